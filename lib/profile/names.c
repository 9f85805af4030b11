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
				fputs(how == NM_CSV  ? "\"\"" :
				      how == NM_JSON ? "\\\"" :
						       "&quot;",
				      f);
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
			fprintf(f, "\\u%04x", *p); /* a control byte */
		} else if (how == NM_JSON || how == NM_XML) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD for what is not UTF-8 */
		} else {
			fprintf(f, "\\x%02x", *p);
		}
		run = ++p;
	}
	fwrite(run, 1, (size_t)(p - run), f);
	if (how == NM_CSV || how == NM_JSON)
		fputc('"', f);
}

/* ------------------------------------------------------------------ */
/* Names that fit a column                                              */

/* 1 when the bracket at s[i] is part of an operator's name
 * ("operator<", "operator<<=", "operator->", "operator()"), not a list:
 * "operator" right before the run of operator characters holding it. */
static int in_operator(const char *s, size_t i)
{
	size_t k = i;

	if (s[i] == '(')
		return s[i + 1] == ')' && i >= 8 && !strncmp(s + i - 8, "operator", 8);
	if (s[i] == ')')
		return i >= 9 && s[i - 1] == '(' && !strncmp(s + i - 9, "operator", 8);
	while (k > 0 && strchr("<>=-*", s[k - 1]) && s[k - 1])
		k--;
	/* the run must reach i: "operator<<" holds both '<' */
	for (size_t j = k; j <= i; j++)
		if (!strchr("<>=-*", s[j]) || !s[j])
			return 0;
	return k >= 8 && !strncmp(s + k - 8, "operator", 8);
}

/* 1 when what follows a function's parameter list may follow it in a
 * demangled name: nothing, or its qualifiers and a clone's suffix. */
static int after_params(const char *t)
{
	static const char *const ok[] = { " const",    " volatile", " &",
					  " noexcept", " [clone",   " throw" };

	if (!*t)
		return 1;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strncmp(t, ok[i], strlen(ok[i])))
			return 1;
	return 0;
}

/* The parameter list of the outermost function, elided to "()": the last
 * top-level "(...)" of the name when only qualifiers follow it ("(anonymous
 * namespace)::v" has none). In place; returns the index of its '(', or -1
 * when the name has none. */
static ssize_t drop_params(char *s)
{
	size_t n = strlen(s), open = 0;
	int depth = 0;
	ssize_t close = -1;

	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')' && !in_operator(s, i)) {
			if (!depth++ && close < 0)
				close = (ssize_t)i;
		} else if (s[i] == '(' && !in_operator(s, i) && depth > 0) {
			if (!--depth && close >= 0) {
				open = i;
				break;
			}
		}
	}
	if (close < 0 || s[open] != '(' || !after_params(s + close + 1))
		return -1;
	if (close > (ssize_t)open + 1)
		memmove(s + open + 1, s + close, n - (size_t)close + 1);
	return (ssize_t)open;
}

/* in with every top-level template argument list elided to "<...>",
 * into out (room for 5 bytes per 2 of in: "<>" grows to "<...>"). */
static void drop_templates(const char *in, char *out)
{
	char *w = out;
	int depth = 0;

	for (size_t i = 0; in[i]; i++) {
		char c = in[i];

		if (c == '<' && !in_operator(in, i)) {
			if (!depth++) {
				memcpy(w, "<...", 4);
				w += 4;
			}
			continue;
		}
		if (c == '>' && depth > 0 && !in_operator(in, i)) {
			if (!--depth)
				*w++ = '>';
			continue;
		}
		if (!depth)
			*w++ = c;
	}
	if (depth) /* unbalanced: no list to close */
		*w++ = '>';
	*w = 0;
}

char *nm_shorten(const char *name, size_t max)
{
	size_t n = strlen(name);
	char *s = malloc(3 * n + 8), *t;

	if (!s)
		return NULL;
	strcpy(s, name);
	if (max < 8)
		max = 8;
	if (n <= max)
		return s;
	drop_params(s);
	if (strlen(s) > max && (t = strdup(s))) {
		drop_templates(t, s);
		free(t);
	}
	n = strlen(s);
	if (n > max) { /* keep the innermost name: cut the start */
		memmove(s + 3, s + n - (max - 3), max - 3 + 1);
		memcpy(s, "...", 3);
	}
	return s;
}

char *nm_bare(const char *name, int templates)
{
	size_t n = strlen(name), from = 0;
	char *s = malloc(3 * n + 8), *t;
	int depth = 0;
	ssize_t at;

	if (!s)
		return NULL;
	strcpy(s, name);
	/* the parameter list and what follows it (qualifiers, a clone's
	 * suffix) go */
	at = drop_params(s);
	if (at >= 0)
		s[at] = 0;
	/* the return type ends at the last space outside brackets that is
	 * not inside an operator's name ("operator new") nor before a
	 * template list ("operator<< <char>") */
	for (size_t i = 0; s[i]; i++) {
		if ((s[i] == '<' || s[i] == '(') && !in_operator(s, i))
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && !in_operator(s, i) && depth > 0)
			depth--;
		else if (s[i] == ' ' && !depth && s[i + 1] != '<' &&
			 !(i >= 8 && !strncmp(s + i - 8, "operator", 8)))
			from = i + 1;
	}
	memmove(s, s + from, strlen(s + from) + 1);
	if (!templates && (t = strdup(s))) {
		char *w;

		drop_templates(t, s);
		/* drop_templates() leaves "<...>": remove those */
		while ((w = strstr(s, "<...>")))
			memmove(w, w + 5, strlen(w + 5) + 1);
		free(t);
		for (size_t k = strlen(s); k > 0 && s[k - 1] == ' '; k--)
			s[k - 1] = 0;
	}
	return s;
}
