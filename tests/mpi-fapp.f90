! SPDX-License-Identifier: MIT
! A Fortran MPI program (mpif.h): libhwprof-mpi must start its profile in
! mpi_init and write the job file in mpi_finalize, which the MPI library's
! Fortran entry points reach only through its C PMPI calls
! (tests/test-mpi.sh, case fortran).
program mpi_fapp
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, i
  double precision :: s
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  s = 0
  do i = 1, 30000000
    s = s + sqrt(dble(i))
  end do
  if (rank == 0) print *, 'sum', s
  ! one timed call (libhwprof-mpi's msr lines: 1 call a rank)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  call mpi_finalize(ierr)
end program mpi_fapp
