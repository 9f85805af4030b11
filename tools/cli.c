/* SPDX-License-Identifier: MIT */
/*
 * The floor of the hwprof command: the "hwprof: ..." error line with its
 * exit statuses (1, 2 for a usage error: hwprof(1)), and option values.
 * It calls nothing of the command's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

__attribute__((format(printf, 1, 0))) static void say(const char *fmt, va_list ap)
{
	fputs("hwprof: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	exit(1);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return 1;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return 2;
}

int cli_flag_value(const char *arg, const char *const *flags, const char *cmd)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!eq || arg[0] != '-' || arg[1] != '-')
		return 0;
	for (size_t k = 0; flags[k]; k++)
		if (strlen(flags[k]) == n && !strncmp(arg, flags[k], n))
			return usage_error("%.*s takes no value (see hwprof %s --help)",
					   (int)n, arg, cmd);
	return 0;
}

const char *cli_value(int argc, char **argv, int *i, const char *opt, int *bad)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc) {
		*bad = 1;
		return NULL;
	}
	return argv[++*i];
}
