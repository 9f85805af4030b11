/* SPDX-License-Identifier: MIT */
/*
 * Event names to perf_event_attr: the software aliases, execute
 * breakpoints (mem:0xADDR:x, mem:SYMBOL:x), PAPI presets through the table
 * in events/, and any libpfm4 string. Failures are translated here, once,
 * into SPEC's three cases, with the reason in words.
 */
#define _GNU_SOURCE
#define HWP_PFM_HEADERS
#include <perfmon/pfmlib_perf_event.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <linux/hw_breakpoint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "../events/presets.h"

#define DEFAULT_CLOCK_NS	1000000ull	/* 1 ms */
#define DEFAULT_HW_PERIOD	1000000ull

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init(void)
{
	pfm_status = pfm_initialize();
}

static int pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_status == PFM_SUCCESS;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static void soft(struct hwp_event *ev, uint64_t config, int clock)
{
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = config;
	ev->kind = clock ? HWP_EV_CLOCK : HWP_EV_SOFT;
	ev->default_period = clock ? DEFAULT_CLOCK_NS : 1;
}

/* ------------------------------------------------------------------ */
/* mem:SYMBOL:x: the symbol in the running program or a loaded object  */

struct symq {
	const char *name;
	uint64_t addr;
	int found;
};

static int elf_find(const char *path, uint64_t bias, struct symq *q)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !q->found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, q->name)) {
				q->addr = bias + sym.st_value;
				q->found = 1;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return q->found;
}

static int sym_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct symq *q = arg;
	const char *path = info->dlpi_name;

	(void)size;
	if (!path || !*path)
		path = "/proc/self/exe";	/* the main program */
	else if (access(path, R_OK))
		return 0;			/* the vDSO has no file */
	return elf_find(path, info->dlpi_addr, q);
}

/* The run-time address of a function, searched in load order. */
int hwp_symbol_addr(const char *sym, uint64_t *addr)
{
	struct symq q = { .name = sym };

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	dl_iterate_phdr(sym_cb, &q);
	if (!q.found)
		return -ENOENT;
	*addr = q.addr;
	return 0;
}

static int parse_mem(const char *name, struct hwp_event *ev, char *why,
		     size_t len)
{
	const char *spec = name + 4, *colon = strrchr(spec, ':');
	char target[256];
	uint64_t addr;
	size_t n;

	if (!colon || strcmp(colon, ":x")) {
		say(why, len, "%s: only execute breakpoints (mem:ADDR:x) are supported", name);
		return -EINVAL;
	}
	n = (size_t)(colon - spec);
	if (!n || n >= sizeof(target)) {
		say(why, len, "%s: no address or symbol", name);
		return -EINVAL;
	}
	memcpy(target, spec, n);
	target[n] = 0;
	if (!strncmp(target, "0x", 2) || !strncmp(target, "0X", 2)) {
		char *end;

		errno = 0;
		addr = strtoull(target + 2, &end, 16);
		if (errno || *end || end == target + 2) {
			say(why, len, "%s: bad hex address", name);
			return -EINVAL;
		}
	} else if (hwp_symbol_addr(target, &addr)) {
		say(why, len, "%s: no such event (no function '%s' in this program or its loaded objects)",
		    name, target);
		return -ENOENT;
	}
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = HW_BREAKPOINT_X;
	ev->attr.bp_addr = addr;
	ev->attr.bp_len = sizeof(long);
	ev->kind = HWP_EV_BREAKPOINT;
	ev->default_period = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* libpfm4 strings and PAPI presets                                     */

static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &a;
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
				      &arg) != PFM_SUCCESS)
		return -ENOENT;
	*attr = a;
	return 0;
}

static int pmu_active(const char *pmu)
{
	pfm_pmu_info_t info;

	if (!strcmp(pmu, "perf"))
		return 1;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &info) == PFM_SUCCESS &&
		    info.name && !strcmp(info.name, pmu))
			return info.is_present;
	}
	return 0;
}

static int hw_kind(struct hwp_event *ev)
{
	switch (ev->attr.type) {
	case PERF_TYPE_SOFTWARE:
		soft(ev, ev->attr.config,
		     ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		     ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
		return 0;
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		ev->kind = HWP_EV_SOFT;
		ev->default_period = 1;
		return 0;
	default:
		ev->kind = HWP_EV_HARDWARE;
		ev->default_period = DEFAULT_HW_PERIOD;
		return 0;
	}
}

static const struct hwp_preset *preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(hwp_presets) / sizeof(hwp_presets[0]); i++)
		if (!strcmp(hwp_presets[i].name, name))
			return &hwp_presets[i];
	return NULL;
}

static int parse_preset(const char *name, struct hwp_event *ev, char *why,
			size_t len)
{
	for (size_t i = 0; i < sizeof(hwp_preset_rows) / sizeof(hwp_preset_rows[0]); i++) {
		const struct hwp_preset_row *r = &hwp_preset_rows[i];

		if (strcmp(r->preset, name) || !pmu_active(r->pmu) ||
		    pfm_encode(r->event, &ev->attr))
			continue;
		return hw_kind(ev);
	}
	say(why, len, "%s: event not supported by this machine's PMU (no row of events/presets.h applies here)",
	    name);
	return -EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */

int hwp_event_resolve(const char *name, struct hwp_event *ev, char *why,
		      size_t len)
{
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	if (!name || !*name)
		name = "task-clock";
	if (!strcmp(name, "task-clock")) {
		soft(ev, PERF_COUNT_SW_TASK_CLOCK, 1);
		return 0;
	}
	if (!strcmp(name, "cpu-clock")) {
		soft(ev, PERF_COUNT_SW_CPU_CLOCK, 1);
		return 0;
	}
	if (!strcmp(name, "page-faults")) {
		soft(ev, PERF_COUNT_SW_PAGE_FAULTS, 0);
		return 0;
	}
	if (!strncmp(name, "mem:", 4))
		return parse_mem(name, ev, why, len);
	if (!pfm_ready()) {
		say(why, len, "%s: libpfm4 failed to initialise", name);
		return -ENOENT;
	}
	if (!strncmp(name, "PAPI_", 5)) {
		if (!preset_find(name)) {
			say(why, len, "%s: no such event (not a PAPI preset hwprof knows)", name);
			return -ENOENT;
		}
		return parse_preset(name, ev, why, len);
	}
	if (pfm_encode(name, &ev->attr)) {
		say(why, len, "%s: no such event", name);
		return -ENOENT;
	}
	ev->attr.size = sizeof(ev->attr);
	return hw_kind(ev);
}

/*
 * Opens a sampling fd for a resolved event. Hardware events get the most
 * precise skid level the PMU accepts, tried from 3 down. Returns the fd or
 * -EOPNOTSUPP (cannot sample here), -EACCES (forbidden) or another -errno,
 * with the reason in why.
 */
int hwp_event_open(const char *name, struct hwp_event *ev, pid_t pid,
		   int cpu, int *precise, char *why, size_t len)
{
	int level = ev->kind == HWP_EV_HARDWARE ? 3 : 0;
	int fd;

	for (;; level--) {
		ev->attr.precise_ip = (unsigned int)level;
		fd = hwp_perf_open(&ev->attr, pid, cpu, -1);
		if (fd >= 0) {
			if (precise)
				*precise = level;
			return fd;
		}
		if (!level || (fd != -EINVAL && fd != -EOPNOTSUPP))
			break;
	}
	switch (fd) {
	case -ENOENT:
	case -ENODEV:
	case -EOPNOTSUPP:
		say(why, len, "%s: event not supported by this machine's PMU", name);
		return -EOPNOTSUPP;
	case -EACCES:
	case -EPERM:
		say(why, len, "%s: perf_event_paranoid forbids it (value %d)", name,
		    hwp_paranoid());
		return -EACCES;
	case -ENOSPC:
		say(why, len, "%s: no free debug register (at most 4 breakpoints a thread)", name);
		return fd;
	default:
		say(why, len, "%s: perf_event_open: %s", name, strerror(-fd));
		return fd;
	}
}

HWPROF_API int hwprof_event_probe(const char *name, char *why, size_t len)
{
	struct hwp_event ev;
	int ret, fd;

	say(why, len, "ok");
	ret = hwp_event_resolve(name, &ev, why, len);
	if (ret)
		return ret;
	ev.attr.disabled = 1;
	ev.attr.exclude_kernel = 1;
	ev.attr.exclude_hv = 1;
	ev.attr.sample_period = ev.default_period;
	ev.attr.sample_type = PERF_SAMPLE_IP;
	fd = hwp_event_open(name ? name : "task-clock", &ev, 0, -1, NULL, why, len);
	if (fd < 0)
		return fd;
	close(fd);
	say(why, len, "ok");
	return 0;
}

HWPROF_API int hwprof_preset_info(unsigned int i, const char **name,
				  unsigned int *code, const char **desc)
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
