/* SPDX-License-Identifier: MIT */
/*
 * events/presets.h held against PAPI's papi_events.csv: every preset PAPI
 * defines for a CPU hwprof has rows for (tests/papi-presets.txt, extracted
 * by tests/papi-presets.py) has a row there with PAPI's derivation and
 * PAPI's events, and the table has no row PAPI lacks. The differences
 * allowed are the lists below, which hwprof_event_probe(3) shows; a
 * drift either way fails.
 * usage: test-presets FIXTURE | test-presets enc EVENT (under LIBPFM_FORCE_PMU)
 */
#define _GNU_SOURCE
#define HWP_PFM_HEADERS
#include <perfmon/pfmlib_perf_event.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/engine/internal.h"
#include "../events/presets.h"
#include "harness.h"

/* Events PAPI names that libpfm4 finds only on another PMU than the
 * model's, written as one of the same encoding. */
static const struct {
	const char *table, *papi, *hwprof;
} same[] = {
	/* ix86arch::LLC_REFERENCES 0x4f2e, LLC_MISSES 0x412e: the model PMU's
	 * LONGEST_LAT_CACHE (checked below); icl has no name for 0x4f2e, the
	 * kernel's generic cache-references is that event on Intel */
	{ "skl", "LLC_REFERENCES", "skl::LONGEST_LAT_CACHE:REFERENCE" },
	{ "skl", "LLC_MISSES", "skl::LONGEST_LAT_CACHE:MISS" },
	{ "icl", "LLC_REFERENCES", "perf::CACHE-REFERENCES" },
	{ "icl", "LLC_MISSES", "icl::LONGEST_LAT_CACHE:MISS" },
	{ "spr", "LLC_REFERENCES", "spr::LONGEST_LAT_CACHE:REFERENCE" },
	{ "spr", "LLC_MISSES", "spr::LONGEST_LAT_CACHE:MISS" },
	/* libpfm4's perf::PERF_COUNT_HW_CACHE_L1D:ACCESS (READ is the default
	 * op): the kernel's L1-dcache-loads */
	{ "amd64_fam17h_zen2", "perf::PERF_COUNT_HW_CACHE_L1D:ACCESS",
	  "perf::L1-DCACHE-LOADS" },
};

/* Rows hwprof has that PAPI's file for that CPU lacks: icx takes icl's
 * rows, which are PAPI 7.2's (icx and icl share them there); PAPI 7.0's
 * icx had no FP_OPS, FP_INS, VEC_INS. */
static const struct {
	const char *pmu, *preset;
} extra[] = {
	{ "icx", "PAPI_FP_OPS" },
	{ "icx", "PAPI_FP_INS" },
	{ "icx", "PAPI_VEC_INS" },
};

static const char *table_of(const char *pmu)
{
	for (size_t i = 0; i < sizeof(hwp_preset_aliases) / sizeof(hwp_preset_aliases[0]); i++)
		if (!strcmp(hwp_preset_aliases[i].pmu, pmu))
			return hwp_preset_aliases[i].table;
	return pmu;
}

/* hwprof's term for PAPI's event papi on pmu. */
static void term_of(const char *pmu, const char *papi, char *out, size_t len)
{
	const char *table = table_of(pmu);

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		if (strcmp(same[i].table, table) || strcmp(same[i].papi, papi))
			continue;
		if (!strncmp(same[i].hwprof, table, strlen(table))) /* the alias's prefix */
			snprintf(out, len, "%s%s", pmu, same[i].hwprof + strlen(table));
		else
			snprintf(out, len, "%s", same[i].hwprof);
		return;
	}
	if (strstr(papi, "::"))
		snprintf(out, len, "%s", papi);
	else
		snprintf(out, len, "%s::%s", pmu, papi);
}

#define MAXL 512
struct fact {
	char ver[16], pmu[32], preset[32], kind[32], postfix[128], events[MAXL];
};

static int nfacts;
static struct fact facts[600];

static void load(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	T_CHECK(f != NULL, "%s", path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nfacts < 600) {
		struct fact *x = &facts[nfacts];

		if (line[0] == '#' || line[0] == '\n')
			continue;
		T_CHECK(sscanf(line, "%15s %31s %31s %31s %127s %511s", x->ver, x->pmu,
			       x->preset, x->kind, x->postfix, x->events) == 6,
			"%s", line);
		nfacts++;
	}
	fclose(f);
}

/* One PAPI row against the table. */
static void check_fact(const struct fact *x)
{
	const struct hwp_preset_row *r;
	char src[96], want[256], got[256], *save = NULL, *tok, ev[MAXL];
	int k = 0;

	r = hwp_preset_row(x->preset, x->pmu, src, sizeof(src));
	T_CHECK(r && !strcmp(r->pmu, table_of(x->pmu)), "%s %s: PAPI %s has it, no row (%s)",
		x->pmu, x->preset, x->ver, src);
	if (!r || strcmp(r->pmu, table_of(x->pmu)))
		return;
	if (!strcmp(x->kind, "NOT_DERIVED"))
		T_CHECK(!r->derived, "%s %s: PAPI counts one event, the row is %s", x->pmu,
			x->preset, r->derived);
	else
		T_CHECK(r->derived && !strcmp(r->derived, x->kind),
			"%s %s: PAPI %s, the row %s", x->pmu, x->preset, x->kind,
			r->derived ? r->derived : "one event");
	if (strcmp(x->postfix, "-"))
		T_CHECK(r->postfix && !strcmp(r->postfix, x->postfix), "%s %s: postfix %s",
			x->pmu, x->preset, r->postfix ? r->postfix : "none");
	else
		T_CHECK(!r->postfix, "%s %s: postfix", x->pmu, x->preset);
	snprintf(ev, sizeof(ev), "%s", x->events);
	for (tok = strtok_r(ev, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++) {
		term_of(x->pmu, tok, want, sizeof(want));
		T_CHECK(!hwp_preset_term(r, x->pmu, k, got, sizeof(got)) && !strcmp(got, want),
			"%s %s event %d: PAPI %s (%s), the row %s", x->pmu, x->preset, k, tok,
			want, got);
	}
	T_CHECK(hwp_preset_term(r, x->pmu, k, got, sizeof(got)) == -ENOENT,
		"%s %s: the row has more events than PAPI's %d", x->pmu, x->preset, k);
}

static int listed(const char *pmu, const char *preset)
{
	for (int i = 0; i < nfacts; i++)
		if (!strcmp(facts[i].pmu, pmu) && !strcmp(facts[i].preset, preset))
			return 1;
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (!strcmp(extra[i].pmu, pmu) && !strcmp(extra[i].preset, preset))
			return 2;
	return 0;
}

/* The config libpfm4 gives event under LIBPFM_FORCE_PMU=pmu (a child:
 * libpfm4 reads the variable once). */
static unsigned long long enc_under(const char *self, const char *pmu, const char *event)
{
	char cmd[512];
	unsigned long long v = ~0ULL;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LIBPFM_FORCE_PMU=%s '%s' enc '%s'", pmu, self, event);
	p = popen(cmd, "r");
	if (!p)
		return v;
	if (fscanf(p, "%llx", &v) != 1)
		v = ~0ULL;
	pclose(p);
	return v;
}

static int enc(const char *event)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &a;
	if (pfm_initialize() != PFM_SUCCESS ||
	    pfm_get_os_event_encoding(event, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
				      &arg) != PFM_SUCCESS)
		return 1;
	printf("%llx\n", (unsigned long long)a.config);
	return 0;
}

int main(int argc, char **argv)
{
	int pmus = 0, extras = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 3 && !strcmp(argv[1], "enc"))
		return enc(argv[2]);
	/* (CI's valgrind pass of the unit suite appends its own arguments) */
	if (argc < 2)
		return T_ERROR;
	load(argv[1]);
	T_CHECK(nfacts > 300, "%d facts", nfacts);
	for (int i = 0; i < nfacts; i++) {
		check_fact(&facts[i]);
		if (!i || strcmp(facts[i].pmu, facts[i - 1].pmu))
			pmus++;
	}
	/* the other way: every row of a CPU PAPI knows is PAPI's */
	for (int i = 0; i < nfacts; i++) {
		const char *pmu = facts[i].pmu;

		if (i && !strcmp(pmu, facts[i - 1].pmu))
			continue;
		for (size_t j = 0; j < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]);
		     j++) {
			int l;

			if (strcmp(hwp_preset_rows[j].pmu, table_of(pmu)))
				continue;
			l = listed(pmu, hwp_preset_rows[j].preset);
			T_CHECK(l, "%s %s: a row PAPI's file lacks", pmu,
				hwp_preset_rows[j].preset);
			extras += l == 2;
		}
	}
	T_EQ(extras, (int)(sizeof(extra) / sizeof(extra[0]))); /* no stale exception */
	T_EQ(pmus, 10);
	/* the same encodings: PAPI's architectural names and the model's */
	if (enc_under(argv[0], "ix86arch", "ix86arch::LLC_REFERENCES") == ~0ULL) {
		printf("SKIP: the libpfm4 here has no Intel tables\n");
		return T_SKIP;
	}
	T_EQ(enc_under(argv[0], "ix86arch", "ix86arch::LLC_REFERENCES") & 0xffff, 0x4f2e);
	T_EQ(enc_under(argv[0], "ix86arch", "ix86arch::LLC_MISSES") & 0xffff, 0x412e);
	T_EQ(enc_under(argv[0], "skx", "skx::LONGEST_LAT_CACHE:REFERENCE") & 0xffff, 0x4f2e);
	T_EQ(enc_under(argv[0], "skl", "skl::LONGEST_LAT_CACHE:MISS") & 0xffff, 0x412e);
	T_EQ(enc_under(argv[0], "spr", "spr::LONGEST_LAT_CACHE:REFERENCE") & 0xffff, 0x4f2e);
	T_EQ(enc_under(argv[0], "icx", "icx::LONGEST_LAT_CACHE:MISS") & 0xffff, 0x412e);
	printf("%d PAPI rows of %d CPUs match events/presets.h\n", nfacts, pmus);
	return t_done("presets-papi");
}
