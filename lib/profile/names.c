/* SPDX-License-Identifier: MIT */
/*
 * Names for hwprof report's output: C++ demangling, and names from files
 * a user does not control printed safely in text, CSV, JSON and XML.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

int nm_no_demangle;
int nm_demangle_missing;

/* ------------------------------------------------------------------ */
/* Demangling: libstdc++'s __cxa_demangle, found at run time, so the C
 * program needs no C++ to build and works (raw names) without it.      */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

char *nm_demangle(const char *raw)
{
	static demangle_fn fn;
	static int tried;
	char *out;
	int st = 0;

	if (nm_no_demangle || strncmp(raw, "_Z", 2))
		return NULL;
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = 1;
		if (h)
			fn = (demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
	}
	if (!fn) {
		nm_demangle_missing = 1;
		return NULL;
	}
	/* a PLT stub or a clone keeps its suffix: demangle the stem */
	{
		const char *at = strchr(raw, '@');
		char *stem = at ? strndup(raw, (size_t)(at - raw)) : NULL, *r;

		if (at && !stem)
			return NULL;
		out = fn(stem ? stem : raw, NULL, NULL, &st);
		free(stem);
		if (st || !out) {
			free(out);
			return NULL;
		}
		if (at) {
			r = NULL;
			if (asprintf(&r, "%s%s", out, at) < 0)
				r = NULL;
			free(out);
			out = r;
		}
	}
	return out;
}

/* ------------------------------------------------------------------ */
/* Printing names that come from files                                  */

/* The length of the valid UTF-8 sequence at p (1-4), or 0. */
static int utf8_len(const unsigned char *p)
{
	int n;
	uint32_t c;

	if (*p < 0x80)
		return 1;
	if ((*p & 0xe0) == 0xc0)
		n = 2, c = *p & 0x1f;
	else if ((*p & 0xf0) == 0xe0)
		n = 3, c = *p & 0x0f;
	else if ((*p & 0xf8) == 0xf0)
		n = 4, c = *p & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	return n;
}

static int special(unsigned char c, enum nm_esc how)
{
	switch (how) {
	case NM_CSV:
		return c == '"';
	case NM_JSON:
		return c == '"' || c == '\\';
	case NM_XML:
		return c == '<' || c == '>' || c == '&' || c == '"' || c == '\'';
	default:
		return 0;
	}
}

int nm_is_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return 0;
	return 1;
}

void nm_put(FILE *f, const char *s, enum nm_esc how)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;

	if (how == NM_CSV || how == NM_JSON)
		fputc('"', f);
	while (*p) {
		int n = utf8_len(p);

		if (n > 1 || (n == 1 && *p >= 0x20 && *p != 0x7f && !special(*p, how))) {
			p += n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), f);
		if (n == 1 && *p >= 0x20 && *p != 0x7f) {
			switch (*p) {
			case '"':
				fputs(how == NM_CSV ? "\"\"" : how == NM_JSON ? "\\\"" : "&quot;", f);
				break;
			case '\\':
				fputs("\\\\", f);
				break;
			case '<':
				fputs("&lt;", f);
				break;
			case '>':
				fputs("&gt;", f);
				break;
			case '&':
				fputs("&amp;", f);
				break;
			case '\'':
				fputs("&apos;", f);
				break;
			}
		} else if (how == NM_JSON && n == 1) {
			fprintf(f, "\\u%04x", *p);	/* a control byte */
		} else if (how == NM_JSON || how == NM_XML) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD for what is not UTF-8 */
		} else {
			fprintf(f, "\\x%02x", *p);
		}
		run = ++p;
	}
	fwrite(run, 1, (size_t)(p - run), f);
	if (how == NM_CSV || how == NM_JSON)
		fputc('"', f);
}
