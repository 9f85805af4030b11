/* SPDX-License-Identifier: MIT */
/*
 * The top of the PAPI layer: the calls that reach every layer below it.
 * PAPI_library_init() and PAPI_shutdown(), PAPI_set_opt() and
 * PAPI_get_opt(), and the options of one EventSet (domain, granularity,
 * inheritance, attaching, multiplexing). Nothing below calls into it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "papi_priv.h"

/* ------------------------------------------------------------------ */
/* The library                                                          */

HWPROF_API int PAPI_library_init(int version)
{
	if (version != PAPI_VER_CURRENT)
		return hwp_papi_err(PAPI_EINVAL);
	hwp_papi_lock();
	if (!hwp_papi_inited()) {
		hwp_papi_sysinfo_init();
		hwp_papi_cmp_init();
		hwp_papi_set_inited(PAPI_LOW_LEVEL_INITED);
	}
	hwp_papi_unlock();
	hwp_papi_thread_seen();
	return PAPI_VER_CURRENT;
}

HWPROF_API void PAPI_shutdown(void)
{
	if (!hwp_papi_inited())
		return;
	hwp_papi_sets_stop_all();
	hwp_papi_reap();
	hwp_papi_lock();
	hwp_papi_sets_free();
	hwp_papi_names_free();
	hwp_papi_sysinfo_free();
	hwp_papi_cmp_reset();
	hwp_papi_lib_reset();
	hwp_papi_unlock();
}

/* ------------------------------------------------------------------ */
/* Options of one EventSet                                              */

/* The EventSet an option names: 0 and *id, or -1 for an option that
 * names none. */
static int opt_set_id(int option, const PAPI_option_t *p, int *id)
{
	switch (option) {
	case PAPI_DOMAIN:
		*id = p->domain.eventset;
		return 0;
	case PAPI_GRANUL:
		*id = p->granularity.eventset;
		return 0;
	case PAPI_INHERIT:
		*id = p->inherit.eventset;
		return 0;
	case PAPI_ATTACH:
	case PAPI_DETACH:
		*id = p->attach.eventset;
		return 0;
	case PAPI_CPU_ATTACH:
		*id = p->cpu.eventset;
		return 0;
	case PAPI_MULTIPLEX:
		*id = p->multiplex.eventset;
		return 0;
	default:
		return -1;
	}
}

static int set_opt(int option, PAPI_option_t *p)
{
	struct hwp_pset *s;
	int id, ret;

	if (!p || opt_set_id(option, p, &id))
		return PAPI_EINVAL;
	hwp_papi_lock();
	ret = hwp_papi_stopped(id, &s);
	if (ret)
		goto out;
	switch (option) {
	case PAPI_DOMAIN:
		if (p->domain.domain < PAPI_DOM_MIN || (p->domain.domain & ~PAPI_DOM_ALL))
			ret = PAPI_EINVAL;
		else
			s->domain = p->domain.domain;
		break;
	case PAPI_GRANUL:
		if (p->granularity.granularity != PAPI_GRN_THR &&
		    p->granularity.granularity != PAPI_GRN_SYS)
			ret = PAPI_EINVAL;
		else
			s->granularity = p->granularity.granularity;
		break;
	case PAPI_INHERIT:
		s->inherit = p->inherit.inherit ? PAPI_INHERIT_ALL : PAPI_INHERIT_NONE;
		break;
	case PAPI_ATTACH:
		if (s->attach || s->cpu >= 0)
			ret = PAPI_EINVAL; /* PAPI: detach first */
		else if (!p->attach.tid || p->attach.tid > (unsigned long)INT32_MAX)
			ret = PAPI_EINVAL;
		else
			s->attach = (pid_t)p->attach.tid;
		break;
	case PAPI_DETACH:
		if (!s->attach)
			ret = PAPI_EINVAL;
		s->attach = 0;
		break;
	case PAPI_CPU_ATTACH:
		if (s->attach || s->cpu >= 0)
			ret = PAPI_EINVAL;
		else if (p->cpu.cpu_num >= (unsigned int)sysconf(_SC_NPROCESSORS_CONF))
			ret = PAPI_EINVAL;
		else
			s->cpu = (int)p->cpu.cpu_num;
		break;
	case PAPI_MULTIPLEX:
		if (s->multiplex)
			ret = PAPI_EINVAL; /* PAPI: already multiplexed */
		else
			s->multiplex = 1;
		break;
	}
	s->state = hwp_papi_state_bits(s);
out:
	hwp_papi_unlock();
	return ret;
}

static int get_opt(int option, PAPI_option_t *p)
{
	struct hwp_pset *s;
	int id, ret = PAPI_OK;

	if (opt_set_id(option, p, &id))
		id = p->multiplex.eventset;
	hwp_papi_lock();
	s = hwp_papi_set(id);
	if (!s) {
		ret = PAPI_ENOEVST;
	} else {
		switch (option) {
		case PAPI_DOMAIN:
			p->domain.domain = s->domain;
			ret = s->domain;
			break;
		case PAPI_GRANUL:
			p->granularity.granularity = s->granularity;
			ret = s->granularity;
			break;
		case PAPI_INHERIT:
			p->inherit.inherit = s->inherit;
			ret = s->inherit;
			break;
		case PAPI_ATTACH:
			p->attach.tid = (unsigned long)s->attach;
			break;
		case PAPI_CPU_ATTACH:
			p->cpu.cpu_num = (unsigned int)s->cpu;
			ret = s->cpu < 0 ? PAPI_EINVAL : PAPI_OK;
			break;
		default:
			p->multiplex.ns = 0;
			p->multiplex.flags = PAPI_MULTIPLEX_DEFAULT;
			ret = s->multiplex;
			break;
		}
	}
	hwp_papi_unlock();
	return ret;
}

HWPROF_API int PAPI_multiplex_init(void)
{
	/* the kernel multiplexes: nothing to set up */
	return hwp_papi_inited() ? PAPI_OK : hwp_papi_err(PAPI_ENOINIT);
}

HWPROF_API int PAPI_set_multiplex(int id)
{
	PAPI_option_t o;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	memset(&o, 0, sizeof(o));
	o.multiplex.eventset = id;
	return hwp_papi_err(set_opt(PAPI_MULTIPLEX, &o));
}

HWPROF_API int PAPI_get_multiplex(int id)
{
	PAPI_option_t o;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	memset(&o, 0, sizeof(o));
	o.multiplex.eventset = id;
	return hwp_papi_err(get_opt(PAPI_MULTIPLEX, &o));
}

HWPROF_API int PAPI_attach(int id, unsigned long tid)
{
	PAPI_option_t o;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	memset(&o, 0, sizeof(o));
	o.attach.eventset = id;
	o.attach.tid = tid;
	return hwp_papi_err(set_opt(PAPI_ATTACH, &o));
}

HWPROF_API int PAPI_detach(int id)
{
	PAPI_option_t o;

	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	memset(&o, 0, sizeof(o));
	o.attach.eventset = id;
	return hwp_papi_err(set_opt(PAPI_DETACH, &o));
}

/* ------------------------------------------------------------------ */
/* PAPI_set_opt and PAPI_get_opt                                        */

HWPROF_API int PAPI_set_opt(int option, PAPI_option_t *ptr)
{
	if (option == PAPI_DEBUG) { /* allowed before init, as in PAPI */
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		return PAPI_set_debug(ptr->debug.level);
	}
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	if (!ptr && option != PAPI_MULTIPLEX)
		return hwp_papi_err(PAPI_EINVAL);
	switch (option) {
	case PAPI_DEFDOM:
		return PAPI_set_cmp_domain(ptr->defdomain.domain, ptr->defdomain.def_cidx);
	case PAPI_DEFGRN:
		return PAPI_set_cmp_granularity(ptr->defgranularity.granularity,
						ptr->defgranularity.def_cidx);
	case PAPI_DOMAIN:
	case PAPI_GRANUL:
	case PAPI_INHERIT:
	case PAPI_ATTACH:
	case PAPI_DETACH:
	case PAPI_CPU_ATTACH:
	case PAPI_MULTIPLEX:
		return hwp_papi_err(set_opt(option, ptr));
	case PAPI_DEF_MPX_NS:
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		/* the kernel rotates multiplexed events and times FORCE_SW */
		return PAPI_OK;
	case PAPI_DATA_ADDRESS:
	case PAPI_INSTR_ADDRESS:
	case PAPI_USER_EVENTS_FILE:
		return hwp_papi_err(PAPI_ENOSUPP);
	default:
		return hwp_papi_err(PAPI_EINVAL);
	}
}

HWPROF_API int PAPI_get_opt(int option, PAPI_option_t *ptr)
{
	if (option == PAPI_DEBUG) {
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		ptr->debug.level = hwp_papi_debug();
		ptr->debug.handler = NULL;
		return PAPI_OK;
	}
	if (!hwp_papi_inited())
		return hwp_papi_err(PAPI_ENOINIT);
	switch (option) {
	case PAPI_LIB_VERSION:
		return PAPI_VERSION;
	case PAPI_MAX_HWCTRS:
	case PAPI_MAX_MPX_CTRS:
	case PAPI_COMPONENTINFO:
		return PAPI_get_cmp_opt(option, ptr, 0);
	case PAPI_DEFDOM:
		return hwp_papi_defdom();
	case PAPI_DEFGRN:
		return hwp_papi_defgrn();
	case PAPI_MAX_CPUS:
		return hwp_papi_hw()->totalcpus;
	case PAPI_CLOCKRATE:
		return hwp_papi_hw()->cpu_max_mhz;
	case PAPI_DEF_MPX_NS:
	case PAPI_DEF_ITIMER_NS:
		return 0;
	case PAPI_EXEINFO:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		ptr->exe_info = hwp_papi_exe();
		return PAPI_OK;
	case PAPI_HWINFO:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		ptr->hw_info = hwp_papi_hw();
		return PAPI_OK;
	case PAPI_SHLIBINFO:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		ptr->shlib_info = hwp_papi_shlib();
		return PAPI_OK;
	case PAPI_PRELOAD:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		memset(&ptr->preload, 0, sizeof(ptr->preload));
		snprintf(ptr->preload.lib_preload_env, sizeof(ptr->preload.lib_preload_env),
			 "LD_PRELOAD");
		ptr->preload.lib_preload_sep = ' ';
		snprintf(ptr->preload.lib_dir_env, sizeof(ptr->preload.lib_dir_env),
			 "LD_LIBRARY_PATH");
		ptr->preload.lib_dir_sep = ':';
		return PAPI_OK;
	case PAPI_DEF_ITIMER:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		/* FORCE_SW is driven by the event's own overflow signal */
		ptr->itimer.itimer_num = -1;
		ptr->itimer.itimer_sig = SIGRTMIN + 6;
		ptr->itimer.ns = 0;
		ptr->itimer.flags = 0;
		return PAPI_OK;
	case PAPI_DOMAIN:
	case PAPI_GRANUL:
	case PAPI_INHERIT:
	case PAPI_ATTACH:
	case PAPI_CPU_ATTACH:
	case PAPI_MULTIPLEX:
		if (!ptr)
			return hwp_papi_err(PAPI_EINVAL);
		return hwp_papi_err(get_opt(option, ptr));
	default:
		return hwp_papi_err(PAPI_EINVAL);
	}
}
