/* SPDX-License-Identifier: MIT */
/*
 * A small PAPI-style test library, written the way PAPI's own testlib is
 * used (pass/fail/skip helpers, an EventSet of two events, machine
 * banners), built against the installed <papi.h> of hwprof-papi with
 * implicit declarations as errors. Where this machine lacks a hardware
 * preset, the library maps the role to a software event here, in the
 * test, never inside hwprof.
 */
#ifndef PAPI_TLIB_H
#define PAPI_TLIB_H

#include <papi.h>

extern int tl_quiet;

void tl_init(int argc, char **argv); /* PAPI_library_init, quiet flag */
void tl_pass(const char *name) __attribute__((noreturn));
void tl_fail(const char *file, int line, const char *call, int ret) __attribute__((noreturn));
void tl_skip(const char *file, int line, const char *why) __attribute__((noreturn));

/* The "cycles" role: PAPI_TOT_CYC where it counts, else task-clock
 * (ns); the "instructions" role: PAPI_TOT_INS, else cpu-clock. */
int tl_cycles(void);
int tl_instructions(void);

/* A new EventSet holding both roles; *codes gets them. */
int tl_add_two_events(int codes[2]);

void tl_print_machine(void);
long long tl_spin(long long n);

#endif
