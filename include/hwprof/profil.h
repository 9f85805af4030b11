/* SPDX-License-Identifier: MIT */
/*
 * glibc's profil(3) and sprofil(3), implemented by hwprof on any
 * performance event: see profil(3hwprof) and sprofil(3hwprof).
 */
#ifndef HWPROF_PROFIL_H
#define HWPROF_PROFIL_H

#include <sys/profil.h> /* struct prof, PROF_USHORT, PROF_UINT, sprofil() */
#include <unistd.h>	/* profil() */

/* 64-bit counters (HP-UX), beside glibc's PROF_USHORT and PROF_UINT. */
#ifndef PROF_UINT64
#define PROF_UINT64 (1 << 2)
#endif

#endif /* HWPROF_PROFIL_H */
