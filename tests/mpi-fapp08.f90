! SPDX-License-Identifier: MIT
! A Fortran MPI program on the mpi_f08 module, its error arguments left
! out: libhwprof-mpi wraps the module's own entry points
! (tests/test-mpi.sh, case fortran).
program mpi_fapp08
  use mpi_f08
  implicit none
  integer :: i, rank
  double precision :: s
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  s = 0
  do i = 1, 30000000
    s = s + sqrt(dble(i))
  end do
  if (rank == 0) print *, 'sum', s
  ! one timed call, without the optional error argument
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program mpi_fapp08
