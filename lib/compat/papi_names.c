/* SPDX-License-Identifier: MIT */
/*
 * PAPI's event names and codes: presets keep PAPI 7.0's codes; every
 * other name hwprof resolves (libpfm4 events, task-clock, mem:...) gets a
 * native code, PAPI_NATIVE_MASK | its index in a table that only grows
 * while the library is initialised. Enumeration walks the presets and the
 * events of the PMUs libpfm4 finds on this machine, with their umasks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <perfmon/pfmlib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi_priv.h"
#include "papi_presets.h"

#define NPRESETS ((int)(sizeof(hwp_papi_preset_names) / sizeof(hwp_papi_preset_names[0])))

struct native {
	char *name;
	int pidx;  /* libpfm4 event index, -1 unknown, -2 not looked up */
	int umask; /* attribute index of the umask it names, or -1 */
};

static struct native *natives; /* under the PAPI lock */
static int nnative, capnative;
static int *enum_list; /* native codes in libpfm4's order */
static int nenum = -1; /* -1: not built yet */

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_ok;

static void pfm_init(void)
{
	/* libpfm4 returns its first result to later calls (lib/perf/event.c's) */
	pfm_ok = pfm_initialize() == PFM_SUCCESS;
}

static int pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_ok;
}

int hwp_papi_npresets(void)
{
	int n = 0;

	while (!hwprof_preset_info((unsigned int)n, NULL, NULL, NULL))
		n++;
	return n;
}

/* Hardware counters of the default PMU; without a PMU the software events
 * are counted, which need none: then PAPI_MAX_MPX_CTRS. */
int hwp_papi_num_cntrs(void)
{
	pfm_pmu_info_t pi;
	int n = 0;

	if (!pfm_ready())
		return HWP_PAPI_MAX_EVENTS;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present)
			continue;
		if (pi.type == PFM_PMU_TYPE_CORE && pi.num_cntrs + pi.num_fixed_cntrs > n)
			n = pi.num_cntrs + pi.num_fixed_cntrs;
	}
	return n ? n : HWP_PAPI_MAX_EVENTS;
}

static int preset_index(const char *name)
{
	for (int i = 0; i < NPRESETS; i++)
		if (!strcmp(hwp_papi_preset_names[i], name))
			return i;
	return -1;
}

static const char *preset_desc(const char *name)
{
	const char *n, *d;

	for (unsigned int i = 0; !hwprof_preset_info(i, &n, NULL, &d); i++)
		if (!strcmp(n, name))
			return d;
	return NULL;
}

const char *hwp_papi_code_name(int code)
{
	if (IS_PRESET(code)) {
		int i = (int)(code & PAPI_PRESET_AND_MASK);

		return i < NPRESETS ? hwp_papi_preset_names[i] : NULL;
	}
	if (IS_NATIVE(code)) {
		int i = (int)(code & PAPI_NATIVE_AND_MASK);

		return i < nnative ? natives[i].name : NULL;
	}
	return NULL;
}

static int add_native(const char *name, int pidx, int umask, int *code)
{
	if (nnative == capnative) {
		int n = capnative ? capnative * 2 : 64;
		struct native *p = realloc(natives, (size_t)n * sizeof(*p));

		if (!p)
			return PAPI_ENOMEM;
		natives = p;
		capnative = n;
	}
	natives[nnative].name = strdup(name);
	if (!natives[nnative].name)
		return PAPI_ENOMEM;
	natives[nnative].pidx = pidx;
	natives[nnative].umask = umask;
	*code = nnative++ | PAPI_NATIVE_MASK;
	return PAPI_OK;
}

static int find_native(const char *name)
{
	for (int i = 0; i < nnative; i++)
		if (!strcmp(natives[i].name, name))
			return i;
	return -1;
}

/* A name (preset, native known or new) to its code; the PAPI lock held. */
static int name_code(const char *name, int *code)
{
	struct hwp_event ev;
	int i = preset_index(name);

	if (i >= 0) {
		*code = i | PAPI_PRESET_MASK;
		return PAPI_OK;
	}
	if (!strncmp(name, "PAPI_", 5))
		return PAPI_ENOTPRESET;
	i = find_native(name);
	if (i >= 0) {
		*code = i | PAPI_NATIVE_MASK;
		return PAPI_OK;
	}
	if (hwp_event_resolve(name, &ev, NULL, 0))
		return PAPI_ENOEVNT;
	return add_native(name, -2, -1, code);
}

void hwp_papi_names_free(void)
{
	for (int i = 0; i < nnative; i++)
		free(natives[i].name);
	free(natives);
	natives = NULL;
	nnative = capnative = 0;
	free(enum_list);
	enum_list = NULL;
	nenum = -1;
}

/* Can this thread count it: PAPI_OK, PAPI_ENOEVNT, PAPI_EPERM or
 * PAPI_ENOMEM (hwp_papi_errno()'s query column). */
void hwp_papi_terms(const char *name, struct hwp_preset_terms *t)
{
	if (preset_index(name) >= 0 && !hwp_preset_terms(name, t, NULL, 0) && t->derived)
		return;
	memset(t, 0, sizeof(*t));
	t->n = 1;
	snprintf(t->ev[0], sizeof(t->ev[0]), "%s", name);
}

/* A derived preset is there when each of its events is (PAPI_add_event()
 * counts it; nothing samples it). */
int hwp_papi_probe(const char *name)
{
	struct hwp_preset_terms t;

	hwp_papi_terms(name, &t);
	if (!t.derived)
		return hwp_papi_errno(hwprof_event_probe(name, NULL, 0), HWP_PAPI_AT_QUERY);
	for (int i = 0; i < t.n; i++) {
		int r = hwprof_event_probe(t.ev[i], NULL, 0);

		if (r)
			return hwp_papi_errno(r, HWP_PAPI_AT_QUERY);
	}
	return PAPI_OK;
}

/*
 * A derived preset's value from its terms' counts, as PAPI computes it:
 * DERIVED_ADD the sum, DERIVED_SUB the first less the others,
 * DERIVED_POSTFIX PAPI's formula ("N0|N1|2|*|+|": N<i> the i-th count,
 * numbers, + - * /, each token ended by '|'). A malformed formula gives 0.
 */
long long hwp_papi_derive(const char *derived, const char *postfix, const long long *v, int n)
{
	long long st[HWP_PRESET_MAX_TERMS * 2];
	int sp = 0;

	if (!derived)
		return n ? v[0] : 0;
	if (!strcmp(derived, "DERIVED_ADD") || !strcmp(derived, "DERIVED_SUB")) {
		long long r = n ? v[0] : 0;

		for (int i = 1; i < n; i++)
			r += derived[8] == 'A' ? v[i] : -v[i];
		return r;
	}
	for (const char *p = postfix; p && *p; p++) {
		char *end;
		long long a, b;

		if (*p == '|')
			continue;
		if (*p == 'N') {
			long i = strtol(p + 1, &end, 10);

			if (end == p + 1 || i < 0 || i >= n ||
			    sp == (int)(sizeof(st) / sizeof(st[0])))
				return 0;
			st[sp++] = v[i];
			p = end - 1;
			continue;
		}
		if (*p >= '0' && *p <= '9') {
			if (sp == (int)(sizeof(st) / sizeof(st[0])))
				return 0;
			st[sp++] = strtoll(p, &end, 10);
			p = end - 1;
			continue;
		}
		if (sp < 2)
			return 0;
		b = st[--sp];
		a = st[--sp];
		switch (*p) {
		case '+':
			st[sp++] = a + b;
			break;
		case '-':
			st[sp++] = a - b;
			break;
		case '*':
			st[sp++] = a * b;
			break;
		case '/':
			st[sp++] = b ? a / b : 0;
			break;
		default:
			return 0;
		}
	}
	return sp == 1 ? st[0] : 0;
}

HWPROF_API int PAPI_event_name_to_code(const char *in, int *out)
{
	int ret;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!in || !out)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	ret = name_code(in, out);
	hwp_papi_unlock();
	return hwp_papi_err(ret == PAPI_ENOTPRESET ? PAPI_ENOEVNT : ret);
}

HWPROF_API int PAPI_event_code_to_name(int code, char *out)
{
	const char *n;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!out)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	n = hwp_papi_code_name(code);
	if (n) /* PAPI writes the whole PAPI_MAX_STR_LEN buffer */
		snprintf(out, PAPI_MAX_STR_LEN, "%s", n);
	hwp_papi_unlock();
	return n ? PAPI_OK : hwp_papi_err(PAPI_ENOEVNT);
}

HWPROF_API int PAPI_query_event(int code)
{
	char n[PAPI_2MAX_STR_LEN];
	const char *p;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (IS_PRESET(code) && (int)(code & PAPI_PRESET_AND_MASK) >= NPRESETS)
		return hwp_papi_err(PAPI_ENOTPRESET);
	hwp_papi_lock();
	p = hwp_papi_code_name(code);
	if (p)
		snprintf(n, sizeof(n), "%s", p);
	hwp_papi_unlock();
	return hwp_papi_err(p ? hwp_papi_probe(n) : PAPI_ENOEVNT);
}

HWPROF_API int PAPI_query_named_event(const char *name)
{
	int code, ret = PAPI_event_name_to_code(name, &code);

	return ret ? ret : PAPI_query_event(code);
}

HWPROF_API int PAPI_get_event_component(int code)
{
	int ok;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	hwp_papi_lock();
	ok = hwp_papi_code_name(code) != NULL;
	hwp_papi_unlock();
	return ok ? 0 : hwp_papi_err(PAPI_ENOEVNT);
}

/* ------------------------------------------------------------------ */
/* Event information                                                    */

static void pfm_describe(const char *name, PAPI_event_info_t *info)
{
	pfm_event_info_t ei;
	int idx;

	if (!pfm_ready())
		return;
	idx = pfm_find_event(name);
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (idx < 0 || pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
		return;
	if (ei.desc) {
		snprintf(info->long_descr, sizeof(info->long_descr), "%s", ei.desc);
		snprintf(info->short_descr, sizeof(info->short_descr), "%s", ei.desc);
	}
	info->event_type = (unsigned int)ei.code;
}

HWPROF_API int PAPI_get_event_info(int code, PAPI_event_info_t *info)
{
	char n[PAPI_2MAX_STR_LEN];
	const char *p;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!info)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	p = hwp_papi_code_name(code);
	if (p)
		snprintf(n, sizeof(n), "%s", p);
	hwp_papi_unlock();
	if (!p) /* PAPI: past its preset table ENOTPRESET, a hole ENOEVNT */
		return hwp_papi_err(IS_PRESET(code) && (int)(code & PAPI_PRESET_AND_MASK) >=
							       PAPI_MAX_PRESET_EVENTS ?
					    PAPI_ENOTPRESET :
					    PAPI_ENOEVNT);
	memset(info, 0, sizeof(*info));
	info->event_code = (unsigned int)code;
	snprintf(info->symbol, sizeof(info->symbol), "%s", n);
	info->component_index = 0;
	info->data_type = PAPI_DATATYPE_INT64;
	info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
	info->timescope = PAPI_TIMESCOPE_SINCE_START;
	info->update_type = PAPI_UPDATETYPE_ARBITRARY;
	if (IS_PRESET(code)) {
		const char *d = preset_desc(n);
		struct hwp_preset_terms t;

		if (d) {
			snprintf(info->short_descr, sizeof(info->short_descr), "%s", d);
			snprintf(info->long_descr, sizeof(info->long_descr), "%s", d);
		}
		/* count: the native terms on this machine (the libpfm4 strings
		 * hwprof opens, PMU prefix included), 0 if unavailable; derived
		 * and postfix as PAPI's table has them */
		int ok = !hwp_preset_terms(n, &t, NULL, 0) && t.n > 0 &&
			 t.n <= PAPI_MAX_INFO_TERMS;

		for (int i = 0; ok && i < t.n; i++)
			ok = !hwp_papi_probe(t.ev[i]);
		if (ok) {
			info->count = (unsigned int)t.n;
			for (int i = 0; i < t.n; i++) {
				int c;

				snprintf(info->name[i], sizeof(info->name[i]), "%s", t.ev[i]);
				if (!PAPI_event_name_to_code(t.ev[i], &c))
					info->code[i] = (unsigned int)c;
			}
			if (t.postfix)
				snprintf(info->postfix, sizeof(info->postfix), "%s",
					 t.postfix);
		}
		snprintf(info->derived, sizeof(info->derived), "%s",
			 ok && t.derived ? t.derived : "NOT_DERIVED");
	} else {
		if (!strcmp(n, "task-clock") || !strcmp(n, "cpu-clock") ||
		    !strcasecmp(n, "perf::TASK-CLOCK") || !strcasecmp(n, "perf::CPU-CLOCK"))
			snprintf(info->units, sizeof(info->units), "ns");
		pfm_describe(n, info);
	}
	return PAPI_OK;
}

/* ------------------------------------------------------------------ */
/* Enumeration                                                          */

static int pmu_listed(pfm_pmu_t pmu, char *name, size_t len)
{
	pfm_pmu_info_t pi;

	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	if (pfm_get_pmu_info(pmu, &pi) != PFM_SUCCESS || !pi.is_present)
		return 0;
	if (!strcmp(pi.name, "perf_raw")) /* raw codes: nothing to list */
		return 0;
	snprintf(name, len, "%s", pi.name);
	return 1;
}

/* Every event of this machine's PMUs, once, in libpfm4's order. */
static int enum_pmu(int pidx, const char *pmu, int *n, int *c)
{
	for (int i = pidx; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ei;
		char full[PAPI_2MAX_STR_LEN];
		int code, k;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(i, PFM_OS_NONE, &ei) != PFM_SUCCESS)
			continue;
		snprintf(full, sizeof(full), "%s::%s", pmu, ei.name);
		if (*n == *c) {
			int nc = *c ? *c * 2 : 256;
			int *grown = realloc(enum_list, (size_t)nc * sizeof(*grown));

			if (!grown)
				return PAPI_ENOMEM;
			enum_list = grown;
			*c = nc;
		}
		k = find_native(full);
		if (k >= 0) {
			natives[k].pidx = i;
			code = k | PAPI_NATIVE_MASK;
		} else if (add_native(full, i, -1, &code)) {
			return PAPI_ENOMEM;
		}
		enum_list[(*n)++] = code;
	}
	return PAPI_OK;
}

static int enum_build(void)
{
	int n = 0, c = 0;

	if (nenum >= 0)
		return PAPI_OK;
	if (!pfm_ready()) {
		nenum = 0;
		return PAPI_OK;
	}
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		char pmu[64];

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (!pmu_listed((pfm_pmu_t)p, pmu, sizeof(pmu)) ||
		    pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS)
			continue;
		if (enum_pmu(pi.first_event, pmu, &n, &c))
			return PAPI_ENOMEM;
	}
	nenum = n;
	return PAPI_OK;
}

/* The next umask of the event @code names (or after the umask it names). */
static int next_umask(int code, int *out)
{
	struct native *nv = &natives[(int)(code & PAPI_NATIVE_AND_MASK)];
	pfm_event_info_t ei;
	char base[PAPI_2MAX_STR_LEN], *colon;
	int from = nv->umask + 1;

	if (nv->pidx == -2)
		nv->pidx = pfm_ready() ? pfm_find_event(nv->name) : -1;
	if (nv->pidx < 0)
		return PAPI_ENOEVNT;
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(nv->pidx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
		return PAPI_ENOEVNT;
	snprintf(base, sizeof(base), "%s", nv->name);
	if (nv->umask >= 0) { /* strip ":UMASK" */
		colon = strrchr(base, ':');
		if (colon && colon > base && colon[-1] != ':')
			*colon = 0;
	}
	for (int a = from; a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai;
		char full[PAPI_2MAX_STR_LEN + PAPI_MAX_STR_LEN];
		int k;

		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(nv->pidx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		snprintf(full, sizeof(full), "%s:%s", base, ai.name);
		k = find_native(full);
		if (k >= 0) {
			*out = k | PAPI_NATIVE_MASK;
			return PAPI_OK;
		}
		{
			int pidx = nv->pidx, r = add_native(full, pidx, a, out);

			return r; /* nv may have moved: not used after */
		}
	}
	return PAPI_ENOEVNT;
}

static int preset_in_class(int i, int modifier)
{
	const char *n = hwp_papi_preset_names[i];

	switch (modifier) {
	case PAPI_PRESET_ENUM_AVAIL:
		return !hwp_papi_probe(n);
	case PAPI_PRESET_ENUM_BR:
		return !strncmp(n, "PAPI_BR", 7) || !strncmp(n, "PAPI_BTAC", 9);
	case PAPI_PRESET_ENUM_L1:
		return !strncmp(n, "PAPI_L1", 7);
	case PAPI_PRESET_ENUM_L2:
		return !strncmp(n, "PAPI_L2", 7);
	case PAPI_PRESET_ENUM_L3:
		return !strncmp(n, "PAPI_L3", 7);
	case PAPI_PRESET_ENUM_CACH:
		return !strncmp(n, "PAPI_L", 6) || !strncmp(n, "PAPI_CA", 7);
	case PAPI_PRESET_ENUM_TLB:
		return !strncmp(n, "PAPI_TLB", 8);
	case PAPI_PRESET_ENUM_FP:
		return strstr(n, "_FP") || strstr(n, "_SP") || strstr(n, "_DP") ||
		       !strncmp(n, "PAPI_F", 6);
	case PAPI_PRESET_ENUM_INS:
		return strstr(n, "_INS") != NULL;
	case PAPI_PRESET_ENUM_IDL:
		return strstr(n, "IDL") || strstr(n, "STL") || strstr(n, "_FUL_");
	default:
		return 1;
	}
}

static int enum_locked(int *code, int modifier)
{
	int c = *code;

	if (IS_PRESET(c)) {
		int i = (int)(c & PAPI_PRESET_AND_MASK);

		if (modifier == PAPI_ENUM_FIRST) {
			*code = PAPI_PRESET_MASK;
			return PAPI_OK;
		}
		if (modifier != PAPI_ENUM_EVENTS &&
		    (modifier < PAPI_PRESET_ENUM_AVAIL || modifier > PAPI_PRESET_ENUM_FP))
			return PAPI_EINVAL;
		for (i++; i < NPRESETS; i++) {
			if (preset_in_class(i, modifier)) {
				*code = i | PAPI_PRESET_MASK;
				return PAPI_OK;
			}
		}
		return PAPI_ENOEVNT;
	}
	if (IS_NATIVE(c)) {
		int r = enum_build();

		if (r)
			return r;
		if (modifier == PAPI_ENUM_FIRST) {
			if (!nenum)
				return PAPI_ENOEVNT;
			*code = enum_list[0];
			return PAPI_OK;
		}
		if (modifier == PAPI_NTV_ENUM_UMASKS) {
			if ((int)(c & PAPI_NATIVE_AND_MASK) >= nnative)
				return PAPI_ENOEVNT;
			return next_umask(c, code);
		}
		if (modifier != PAPI_ENUM_EVENTS)
			return PAPI_ENOSUPP;
		if ((int)(c & PAPI_NATIVE_AND_MASK) < nnative &&
		    natives[(int)(c & PAPI_NATIVE_AND_MASK)].umask >= 0)
			return PAPI_ENOEVNT; /* enumerating events from a umask */
		for (int i = 0; i < nenum - 1; i++) {
			if (enum_list[i] == c) {
				*code = enum_list[i + 1];
				return PAPI_OK;
			}
		}
		return PAPI_ENOEVNT;
	}
	return PAPI_ENOEVNT;
}

HWPROF_API int PAPI_enum_cmp_event(int *code, int modifier, int cidx)
{
	int r;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!code)
		return hwp_papi_err(PAPI_EINVAL);
	if (cidx != 0)
		return hwp_papi_err(PAPI_ENOCMP);
	hwp_papi_lock();
	r = enum_locked(code, modifier);
	hwp_papi_unlock();
	return r == PAPI_ENOEVNT ? r : hwp_papi_err(r); /* the end is no error */
}

HWPROF_API int PAPI_enum_event(int *code, int modifier)
{
	return PAPI_enum_cmp_event(code, modifier, 0);
}
