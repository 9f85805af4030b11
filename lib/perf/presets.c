/* SPDX-License-Identifier: MIT */
/*
 * PAPI presets on this machine: the rows of events/presets.h a preset
 * takes, given the core PMU libpfm4 detected (picked here as PAPI picks
 * it), and the libpfm4 strings of a row's events (hwprof_preset_info(3),
 * hwprof_event_probe(3)). event.c turns a row's event into an attr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "perf.h"
#include "../../events/presets.h"

/*
 * The core PMU, as PAPI 7.0 chooses it: libpfm4 activates, beside the
 * model's PMU, PMUs that stand for a whole family (is_dfl: ix86arch on
 * every Intel CPU with architectural perfmon, which comes first in its
 * order; and amd64_fam17h, the deprecated name of Zen 1 active beside
 * amd64_fam17h_zen1): they are taken only when no other core PMU is
 * present. On a hybrid CPU the first model PMU (adl_glc, the P-cores)
 * is taken (PAPI 7.0 refuses to start there).
 */
static const char *const family_pmus[] = { "amd64_fam17h" };

const char *hwp_preset_core_pick(const struct hwp_pmu_seen *pmu, size_t n)
{
	const char *fallback = NULL;

	for (size_t i = 0; i < n; i++) {
		int family = pmu[i].dfl;

		for (size_t k = 0; k < sizeof(family_pmus) / sizeof(family_pmus[0]); k++)
			family |= !strcmp(pmu[i].name, family_pmus[k]);
		if (!family)
			return pmu[i].name;
		if (!fallback)
			fallback = pmu[i].name;
	}
	return fallback;
}

/* The core PMU libpfm4 detected on this CPU (or was forced to with
 * LIBPFM_FORCE_PMU), or NULL when it knows none. */
static const char *core_pmu(void)
{
	struct hwp_pmu_seen seen[16];
	pfm_pmu_info_t info;
	size_t n = 0;

	if (!hwp_pfm_ready())
		return NULL;
	for (int p = 0; p < PFM_PMU_MAX && n < sizeof(seen) / sizeof(seen[0]); p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &info) == PFM_SUCCESS && info.is_present &&
		    info.type == PFM_PMU_TYPE_CORE && info.name) {
			seen[n].name = info.name;
			seen[n++].dfl = info.is_dfl;
		}
	}
	return hwp_preset_core_pick(seen, n);
}

/* The table of events/presets.h the core PMU takes: its own rows, an
 * alias's (skx, clx -> skl; icx -> icl), or NULL when it has none. */
static const char *preset_table(const char *core)
{
	if (!core)
		return NULL;
	for (size_t i = 0; i < sizeof(hwp_preset_aliases) / sizeof(hwp_preset_aliases[0]); i++)
		if (!strcmp(hwp_preset_aliases[i].pmu, core))
			return hwp_preset_aliases[i].table;
	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++)
		if (!strcmp(hwp_preset_rows[i].pmu, core))
			return core;
	return NULL;
}

/*
 * The row of events/presets.h a preset takes given the core PMU (NULL:
 * libpfm4 knows none): the row of the core PMU's table when it has one
 * (as PAPI, which has only its CSV's presets for a CPU it knows), else the
 * kernel's generic event. Says which in src. NULL when no row applies.
 */
const struct hwp_preset_row *hwp_preset_row(const char *preset, const char *core, char *src,
					    size_t len)
{
	const char *table = preset_table(core);
	const struct hwp_preset_row *gen = NULL;

	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++) {
		const struct hwp_preset_row *r = &hwp_preset_rows[i];

		if (strcmp(r->preset, preset))
			continue;
		if (table && !strcmp(r->pmu, table)) {
			if (strcmp(table, core))
				hwp_say(src, len, "libpfm4 table %s (the rows of %s)", core,
					table);
			else
				hwp_say(src, len, "libpfm4 table %s", core);
			return r;
		}
		if (!strcmp(r->pmu, "perf") && !gen)
			gen = r;
	}
	if (table) {
		hwp_say(src, len, "no %s row for libpfm4 PMU %s", preset, core);
		return NULL;
	}
	if (gen && core)
		hwp_say(src, len, "kernel generic events: no %s row for libpfm4 PMU %s",
			preset, core);
	else if (gen)
		hwp_say(src, len, "kernel generic events: libpfm4 does not know this CPU");
	return gen;
}

/*
 * The i-th event of row r (0 for a row of one event) as libpfm4 takes it
 * on core PMU core: an alias's rows name the table's PMU, which libpfm4
 * has not activated there, so the prefix becomes core's. 0, or -ENOENT
 * past the last event (or when it does not fit in buf).
 */
int hwp_preset_term(const struct hwp_preset_row *r, const char *core, int i, char *buf,
		    size_t len)
{
	const char *p = r->event, *end;
	size_t n, pl = strlen(r->pmu);
	int w;

	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		return -ENOENT;
	end = strchr(p, ',');
	n = end ? (size_t)(end - p) : strlen(p);
	if (core && strcmp(r->pmu, "perf") && strcmp(r->pmu, core) &&
	    !strncmp(p, r->pmu, pl) && !strncmp(p + pl, "::", 2))
		w = snprintf(buf, len, "%s%.*s", core, (int)(n - pl), p + pl);
	else
		w = snprintf(buf, len, "%.*s", (int)n, p);
	return w < 0 || (size_t)w >= len ? -ENOENT : 0;
}

/* The preset's terms on this machine: see perf.h. */
int hwp_preset_terms(const char *preset, struct hwp_preset_terms *t, char *why, size_t len)
{
	const char *core = core_pmu();
	const struct hwp_preset_row *r;

	memset(t, 0, sizeof(*t));
	r = hwp_preset_row(preset, core, t->src, sizeof(t->src));
	if (!r) {
		hwp_say(why, len, "%s: event not supported by this machine's PMU (%s)", preset,
			*t->src ? t->src : "no row of events/presets.h applies here");
		return -EOPNOTSUPP;
	}
	t->derived = r->derived;
	t->postfix = r->postfix;
	while (t->n < HWP_PRESET_MAX_TERMS &&
	       !hwp_preset_term(r, core, t->n, t->ev[t->n], sizeof(t->ev[0])))
		t->n++;
	return 0;
}

/* 1 when name is a PAPI preset of events/presets.h. */
int hwp_preset_known(const char *name)
{
	for (size_t i = 0; i < sizeof(hwp_presets) / sizeof(hwp_presets[0]); i++)
		if (!strcmp(hwp_presets[i].name, name))
			return 1;
	return 0;
}

int hwp_preset_info(unsigned int i, const char **name, unsigned int *code, const char **desc)
{
	if (i >= sizeof(hwp_presets) / sizeof(hwp_presets[0]))
		return -ENOENT;
	if (name)
		*name = hwp_presets[i].name;
	if (code)
		*code = hwp_presets[i].code;
	if (desc)
		*desc = hwp_presets[i].desc;
	return 0;
}
