/* SPDX-License-Identifier: MIT */
/*
 * Names from files a user does not control (lib/profile/names.c):
 * demangling, and printing them safely as text, CSV, JSON or XML.
 */
#ifndef HWPROF_PROFILE_NAMES_H
#define HWPROF_PROFILE_NAMES_H

#include <stdio.h>

/* The demangled name (malloc'd) or NULL when raw is not a C++ name, the
 * demangler is missing, or demangling is off. */
char *nm_demangle(const char *raw);
extern int nm_no_demangle;
/* 1 once a C++ name could not be demangled for lack of libstdc++. */
extern int nm_demangle_missing;

enum nm_esc {
	NM_TEXT, /* control bytes and invalid UTF-8 as \xNN */
	NM_CSV,	 /* NM_TEXT, inside "..." with " doubled (RFC 4180) */
	NM_JSON, /* "..." with JSON escapes, invalid UTF-8 as U+FFFD */
	NM_XML,	 /* XML text/attribute; controls and invalid UTF-8 as U+FFFD */
};
/* 1 when s is printable ASCII only (nothing to escape in text). */
int nm_is_plain(const char *s);
/* Writes s for that format (no quotes added except for CSV and JSON). */
void nm_put(FILE *f, const char *s, enum nm_esc how);
/*
 * A C++ (or any) name made to fit max bytes (malloc'd; NULL when out of
 * memory), as perf shortens them: the parameter list elided to "()",
 * then every template argument list to "<...>", then the start cut to
 * "..." so that the innermost name stays. max below 8 is taken as 8.
 */
char *nm_shorten(const char *name, size_t max);
/*
 * A demangled name as a user types it (malloc'd, NULL when out of
 * memory): without its return type and parameter list ("void
 * ns::f<int>(int) const" -> "ns::f<int>"), and with templates 0 without
 * its template arguments too ("ns::f").
 */
char *nm_bare(const char *name, int templates);

#endif
