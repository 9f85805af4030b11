/* SPDX-License-Identifier: MIT */
/*
 * Bad input to every PAPI call of <papi.h> (the PAPI half of the table;
 * tests/test-badinput.c has the native and classic calls): an
 * EventSet that does not exist, NULL pointers, codes and names that name
 * nothing, out-of-range components, options and counts. Each row runs in
 * a child of its own, after PAPI_library_init, and states the code PAPI 7
 * documents for it; a crash or another code fails the row. The suite runs
 * it under ASan+UBSan too.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <papi.h>
#include "harness.h"

#define NOSET	12345		/* no EventSet has this id */
#define NOCODE	(PAPI_NATIVE_MASK | 0x7ffff)	/* no event has this code */

static int set;			/* an empty EventSet of the child's */
static int codes[4];
static long long vals[4];
static PAPI_option_t opt;

struct row {
	const char *call, *input;
	long want;
};

static long state_null(void) { return PAPI_state(set, NULL); }

/* call, input, the code PAPI 7 gives, the call */
#define ROWS(X) \
	X("PAPI_library_init", "an old version", PAPI_EINVAL, PAPI_library_init(0x05000000)) \
	X("PAPI_thread_init", "NULL id function", PAPI_EINVAL, PAPI_thread_init(NULL)) \
	X("PAPI_create_eventset", "NULL", PAPI_EINVAL, PAPI_create_eventset(NULL)) \
	X("PAPI_add_event", "no such EventSet", PAPI_ENOEVST, PAPI_add_event(NOSET, PAPI_TOT_CYC)) \
	X("PAPI_add_event", "no such event", PAPI_ENOEVNT, PAPI_add_event(set, NOCODE)) \
	X("PAPI_add_events", "NULL events", PAPI_EINVAL, PAPI_add_events(set, NULL, 2)) \
	X("PAPI_add_events", "count 0", PAPI_EINVAL, PAPI_add_events(set, codes, 0)) \
	X("PAPI_add_named_event", "NULL name", PAPI_EINVAL, PAPI_add_named_event(set, NULL)) \
	X("PAPI_add_named_event", "no such name", PAPI_ENOEVNT, PAPI_add_named_event(set, "no::SUCH_EVENT_AT_ALL")) \
	X("PAPI_remove_event", "not in the set", PAPI_EINVAL, PAPI_remove_event(set, PAPI_TOT_CYC)) \
	X("PAPI_remove_event", "no such EventSet", PAPI_ENOEVST, PAPI_remove_event(NOSET, PAPI_TOT_CYC)) \
	X("PAPI_remove_events", "NULL events", PAPI_EINVAL, PAPI_remove_events(set, NULL, 1)) \
	X("PAPI_remove_named_event", "NULL name", PAPI_EINVAL, PAPI_remove_named_event(set, NULL)) \
	X("PAPI_num_events", "no such EventSet", PAPI_ENOEVST, PAPI_num_events(NOSET)) \
	X("PAPI_state", "NULL status", PAPI_EINVAL, state_null()) \
	X("PAPI_state", "no such EventSet", PAPI_ENOEVST, PAPI_state(NOSET, codes)) \
	X("PAPI_cleanup_eventset", "no such EventSet", PAPI_ENOEVST, PAPI_cleanup_eventset(NOSET)) \
	X("PAPI_destroy_eventset", "NULL", PAPI_EINVAL, PAPI_destroy_eventset(NULL)) \
	X("PAPI_start", "empty EventSet", PAPI_EINVAL, PAPI_start(set)) \
	X("PAPI_start", "no such EventSet", PAPI_ENOEVST, PAPI_start(NOSET)) \
	X("PAPI_stop", "not running", PAPI_ENOTRUN, PAPI_stop(set, vals)) \
	X("PAPI_read", "NULL values", PAPI_EINVAL, PAPI_read(set, NULL)) \
	X("PAPI_read", "no such EventSet", PAPI_ENOEVST, PAPI_read(NOSET, vals)) \
	X("PAPI_reset", "no such EventSet", PAPI_ENOEVST, PAPI_reset(NOSET)) \
	X("PAPI_accum", "NULL values", PAPI_EINVAL, PAPI_accum(set, NULL)) \
	X("PAPI_event_name_to_code", "NULL name", PAPI_EINVAL, PAPI_event_name_to_code(NULL, codes)) \
	X("PAPI_event_name_to_code", "NULL code", PAPI_EINVAL, PAPI_event_name_to_code("PAPI_TOT_CYC", NULL)) \
	X("PAPI_event_code_to_name", "NULL name", PAPI_EINVAL, PAPI_event_code_to_name(PAPI_TOT_CYC, NULL)) \
	X("PAPI_query_event", "no such event", PAPI_ENOEVNT, PAPI_query_event(NOCODE)) \
	X("PAPI_query_named_event", "NULL", PAPI_EINVAL, PAPI_query_named_event(NULL)) \
	X("PAPI_get_opt", "unknown option", PAPI_EINVAL, PAPI_get_opt(9999, &opt)) \
	X("PAPI_set_opt", "unknown option", PAPI_EINVAL, PAPI_set_opt(9999, &opt)) \
	X("PAPI_set_opt", "NULL option", PAPI_EINVAL, PAPI_set_opt(PAPI_DOMAIN, NULL)) \
	X("PAPI_get_cmp_opt", "no such component", PAPI_ENOCMP, PAPI_get_cmp_opt(PAPI_MAX_HWCTRS, &opt, 99)) \
	X("PAPI_profil", "no such EventSet", PAPI_ENOEVST, PAPI_profil(vals, sizeof(vals), (vptr_t)0x1000, 0x10000, NOSET, PAPI_TOT_CYC, 100000, 0)) \
	X("PAPI_sprofil", "NULL regions, event not in the set (checked first, as PAPI)", PAPI_ENOEVNT, PAPI_sprofil(NULL, 1, set, PAPI_TOT_CYC, 100000, 0)) \
	X("PAPI_overflow", "no such EventSet", PAPI_ENOEVST, PAPI_overflow(NOSET, PAPI_TOT_CYC, 100000, 0, NULL)) \
	X("PAPI_get_dmem_info", "NULL", PAPI_EINVAL, PAPI_get_dmem_info(NULL)) \
	X("PAPI_get_event_info", "NULL info", PAPI_EINVAL, PAPI_get_event_info(PAPI_TOT_CYC, NULL)) \
	X("PAPI_get_event_info", "no such event", PAPI_ENOTPRESET, PAPI_get_event_info(PAPI_PRESET_MASK | 0x3ff, (PAPI_event_info_t *)(void *)&opt)) \
	X("PAPI_enum_event", "NULL code", PAPI_EINVAL, PAPI_enum_event(NULL, PAPI_ENUM_FIRST)) \
	X("PAPI_enum_cmp_event", "no such component", PAPI_ENOCMP, PAPI_enum_cmp_event(codes, PAPI_ENUM_FIRST, 99)) \
	X("PAPI_get_event_component", "no such event", PAPI_ENOEVNT, PAPI_get_event_component(NOCODE)) \
	X("PAPI_get_eventset_component", "no such EventSet", PAPI_ENOEVST, PAPI_get_eventset_component(NOSET)) \
	X("PAPI_get_component_info", "no such component", 0, PAPI_get_component_info(99)) \
	X("PAPI_get_component_index", "NULL", PAPI_ENOCMP, PAPI_get_component_index(NULL)) \
	X("PAPI_get_component_index", "no such name", PAPI_ENOCMP, PAPI_get_component_index("no-such-component")) \
	X("PAPI_disable_component", "no such component", PAPI_ENOCMP, PAPI_disable_component(99)) \
	X("PAPI_disable_component_by_name", "NULL", PAPI_EINVAL, PAPI_disable_component_by_name(NULL)) \
	X("PAPI_assign_eventset_component", "no such component", PAPI_ENOCMP, PAPI_assign_eventset_component(set, 99)) \
	X("PAPI_assign_eventset_component", "no such EventSet", PAPI_ENOEVST, PAPI_assign_eventset_component(NOSET, 0)) \
	X("PAPI_num_cmp_hwctrs", "no such component", PAPI_ENOCMP, PAPI_num_cmp_hwctrs(99)) \
	X("PAPI_set_domain", "no domain bit", PAPI_EINVAL, PAPI_set_domain(0)) \
	X("PAPI_set_cmp_domain", "no such component", PAPI_ENOCMP, PAPI_set_cmp_domain(PAPI_DOM_USER, 99)) \
	X("PAPI_set_granularity", "unknown", PAPI_EINVAL, PAPI_set_granularity(0x7777)) \
	X("PAPI_set_cmp_granularity", "no such component", PAPI_ENOCMP, PAPI_set_cmp_granularity(PAPI_GRN_THR, 99)) \
	X("PAPI_set_multiplex", "no such EventSet", PAPI_ENOEVST, PAPI_set_multiplex(NOSET)) \
	X("PAPI_get_multiplex", "no such EventSet", PAPI_ENOEVST, PAPI_get_multiplex(NOSET)) \
	X("PAPI_attach", "no such EventSet", PAPI_ENOEVST, PAPI_attach(NOSET, 1)) \
	X("PAPI_detach", "no such EventSet", PAPI_ENOEVST, PAPI_detach(NOSET)) \
	X("PAPI_list_events", "NULL number", PAPI_EINVAL, PAPI_list_events(set, codes, NULL)) \
	X("PAPI_list_events", "no such EventSet", PAPI_ENOEVST, PAPI_list_events(NOSET, codes, codes + 1)) \
	X("PAPI_get_overflow_event_index", "NULL array", PAPI_EINVAL, PAPI_get_overflow_event_index(set, 1, NULL, codes)) \
	X("PAPI_list_threads", "NULL number", PAPI_EINVAL, PAPI_list_threads(NULL, NULL)) \
	X("PAPI_get_thr_specific", "bad tag", PAPI_EINVAL, PAPI_get_thr_specific(999, NULL)) \
	X("PAPI_set_thr_specific", "bad tag", PAPI_EINVAL, PAPI_set_thr_specific(999, NULL)) \
	X("PAPI_lock", "bad lock", PAPI_EINVAL, PAPI_lock(999)) \
	X("PAPI_unlock", "bad lock", PAPI_EINVAL, PAPI_unlock(999)) \
	X("PAPI_set_debug", "unknown level", PAPI_EINVAL, PAPI_set_debug(0x7fff)) \
	X("PAPI_hl_region_begin", "NULL", PAPI_EINVAL, PAPI_hl_region_begin(NULL)) \
	X("PAPI_hl_read", "NULL", PAPI_EINVAL, PAPI_hl_read(NULL)) \
	X("PAPI_hl_region_end", "NULL", PAPI_EINVAL, PAPI_hl_region_end(NULL)) \
	X("PAPI_hl_region_end", "never begun", PAPI_ENOTRUN, PAPI_hl_region_end("never-begun")) \
	X("PAPI_strerror", "unknown code: NULL, as PAPI", 0, PAPI_strerror(-12345) != NULL) \
	X("PAPI_perror", "NULL", 0, (PAPI_perror(NULL), 0)) \
	X("PAPI_num_components", "", 1, PAPI_num_components()) \
	X("PAPI_num_hwctrs", "", 1, PAPI_num_hwctrs() >= 0) \
	X("PAPI_is_initialized", "", PAPI_LOW_LEVEL_INITED, PAPI_is_initialized()) \
	X("PAPI_register_thread", "", PAPI_OK, PAPI_register_thread()) \
	X("PAPI_unregister_thread", "", PAPI_OK, PAPI_unregister_thread()) \
	X("PAPI_multiplex_init", "", PAPI_OK, PAPI_multiplex_init()) \
	X("PAPI_hl_stop", "nothing begun", PAPI_ENOTRUN, PAPI_hl_stop()) \
	X("PAPI_thread_id", "", 1, PAPI_thread_id() != (unsigned long)-1) \
	X("PAPI_get_executable_info", "", 1, PAPI_get_executable_info() != NULL) \
	X("PAPI_get_hardware_info", "", 1, PAPI_get_hardware_info() != NULL) \
	X("PAPI_get_shared_lib_info", "", 1, PAPI_get_shared_lib_info() != NULL) \
	X("PAPI_get_real_cyc", "", 1, PAPI_get_real_cyc() > 0) \
	X("PAPI_get_real_nsec", "", 1, PAPI_get_real_nsec() > 0) \
	X("PAPI_get_real_usec", "", 1, PAPI_get_real_usec() > 0) \
	X("PAPI_get_virt_cyc", "", 1, PAPI_get_virt_cyc() >= 0) \
	X("PAPI_get_virt_nsec", "", 1, PAPI_get_virt_nsec() >= 0) \
	X("PAPI_get_virt_usec", "", 1, PAPI_get_virt_usec() >= 0) \
	X("PAPI_shutdown", "twice", 0, (PAPI_shutdown(), PAPI_shutdown(), 0)) \

#define META(call, input, want, expr) { call, input, want },
static const struct row rows[] = { ROWS(META) };

/* Makes row i's call (in the child). */
static long call(int i)
{
	enum { first = __COUNTER__ + 1 };
#define CASE(c_, in_, w_, expr) case __COUNTER__ - first: return (long)(expr);
	switch (i) {
	ROWS(CASE)
	}
	return -99998;
}

static int run(const struct row *r)
{
	int pfd[2], st;
	long got = -99999;
	pid_t pid;

	if (pipe(pfd))
		return 1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		long v;

		close(pfd[0]);
		set = PAPI_NULL;
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
		    PAPI_create_eventset(&set) != PAPI_OK)
			_exit(98);
		codes[0] = PAPI_TOT_CYC;
		v = call((int)(r - rows));
		if (write(pfd[1], &v, sizeof(v)) != sizeof(v))
			_exit(97);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &got, sizeof(got)) != sizeof(got))
		got = -99999;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("FAIL %s (%s): the child ended with status %#x\n", r->call, r->input, st);
		return 1;
	}
	if (got != r->want) {
		printf("FAIL %s (%s): returned %ld, want %ld\n", r->call, r->input, got, r->want);
		return 1;
	}
	printf("ok   %s (%s): %ld\n", r->call, r->input, got);
	return 0;
}

int main(void)
{
	size_t n = sizeof(rows) / sizeof(rows[0]), bad = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < n; i++)
		bad += run(&rows[i]) != 0;
	printf("%zu rows, %zu failed\n", n, bad);
	return bad ? T_FAIL : T_PASS;
}
