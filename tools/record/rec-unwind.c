/* SPDX-License-Identifier: MIT */
/*
 * hwprof record --call-graph dwarf: a sample's user registers and a copy
 * of the top of its user stack (PERF_SAMPLE_REGS_USER, _STACK_USER)
 * unwound here, in hwprof record, never in the profiled process, with the
 * call-frame information (.eh_frame, .debug_frame) of elfutils' libdwfl.
 * Each process image gets a Dwfl of its objects at their load biases, made
 * again when its mappings have changed; the unwinder reads the stack from
 * the copy only. A frame whose CFA or return address lies past the copy
 * ends the path, which is then counted cut: the cure is a larger copy
 * (--call-graph dwarf,SIZE). x86-64 only.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#if defined(__x86_64__)

struct rec_uw {
	Dwfl *dwfl;
	size_t gen; /* the image's mappings when it was made */
	int pid;
};

/* The sample being unwound: set before each unwind, read by the
 * callbacks below (one unwind at a time). */
struct uw_cur {
	int tid;
	const uint64_t *regs; /* perf's order, REC_UW_REGS of them */
	const unsigned char *stack;
	uint64_t sp, size;
	int past; /* a read past the copy was asked for */
};

static struct uw_cur cur;

/* perf's register numbers (asm/perf_regs.h) in the order the sample gives
 * them (REC_UW_MASK, ascending), and the DWARF number of each (the x86-64
 * psABI: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then rip as 16). */
static const int dwarf_of[REC_UW_REGS] = {
	0,			       /* AX */
	3,			       /* BX */
	2,			       /* CX */
	1,			       /* DX */
	4,			       /* SI */
	5,			       /* DI */
	6,			       /* BP */
	7,			       /* SP */
	16,			       /* IP */
	8,  9, 10, 11, 12, 13, 14, 15, /* R8..R15 */
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = &cur;
	return cur.tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	*thread_argp = &cur;
	return tid == cur.tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	(void)arg;
	if (addr < cur.sp || addr - cur.sp > cur.size || cur.size - (addr - cur.sp) < 8) {
		if (addr >= cur.sp && addr - cur.sp < (1u << 20))
			cur.past = 1; /* in the stack, beyond the copy */
		return false;
	}
	memcpy(result, cur.stack + (addr - cur.sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	Dwarf_Word regs[17];

	(void)arg;
	for (int i = 0; i < REC_UW_REGS; i++)
		regs[dwarf_of[i]] = cur.regs[i];
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;

/* The CFI unwinding needs is the objects' own .eh_frame: no search for
 * separate debug files (which cost milliseconds per object while the
 * rings fill). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* The mappings of image im as the process had them: its own, then its
 * parent's as they were at the fork, for a forked process before its
 * exec. Reports each object once, at the bias of its lowest mapping. */
static int report(struct rec *r, Dwfl *dwfl, long im)
{
	uint64_t t = UINT64_MAX;
	char *seen = calloc(r->nobjs + 1, 1);

	if (!seen)
		return -1;
	for (; im >= 0; t = r->imgs[im].fork_time, im = r->imgs[im].parent) {
		const struct rec_image *img = &r->imgs[im];

		for (size_t k = 0; k < img->ncur; k++) {
			const struct rec_map *m = &img->cur[k];
			const struct rec_obj *o;
			uint64_t v;

			if (m->obj == REC_NO_OBJ || m->time > t || seen[m->obj])
				continue;
			o = &r->objs[m->obj];
			if (o->nseg <= 0 || o->path[0] != '/')
				continue; /* unreadable, or [vdso]: no CFI here */
			seen[m->obj] = 1;
			v = rec_obj_vaddr(o, m->pgoff);
			/* add_p_vaddr: the base given is the load bias */
			dwfl_report_elf(dwfl, o->path, o->path, -1, m->start - v, true);
		}
	}
	free(seen);
	return 0;
}

static Dwfl *dwfl_for(struct rec *r, long im, int pid)
{
	const struct rec_image *img = &r->imgs[im];
	size_t gen = img->ncur + img->nold;
	struct rec_uw *u;

	if ((size_t)im >= r->nuw) {
		size_t n = (size_t)im + 64;
		struct rec_uw *nu = realloc(r->uw, n * sizeof(*nu));

		if (!nu)
			return NULL;
		memset(nu + r->nuw, 0, (n - r->nuw) * sizeof(*nu));
		r->uw = nu;
		r->nuw = n;
	}
	u = &r->uw[im];
	if (u->dwfl && u->gen == gen && u->pid == pid)
		return u->dwfl;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = dwfl_begin(&dwfl_cb);
	if (!u->dwfl)
		return NULL;
	u->gen = gen;
	u->pid = pid;
	dwfl_report_begin(u->dwfl);
	if (report(r, u->dwfl, im) || dwfl_report_end(u->dwfl, NULL, NULL) ||
	    !dwfl_attach_state(u->dwfl, NULL, pid, &thread_cb, NULL)) {
		dwfl_end(u->dwfl);
		u->dwfl = NULL;
	}
	return u->dwfl;
}

struct frames {
	uint64_t *pcs;
	size_t n, cap;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct frames *f = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act) || !pc)
		return DWARF_CB_ABORT;
	f->pcs[f->n++] = pc;
	return f->n < f->cap ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t rec_unwind(struct rec *r, long im, int pid, int tid, const uint64_t *regs,
		  const unsigned char *stack, uint64_t size, uint64_t *pcs, size_t cap,
		  int *cut)
{
	struct frames f = { pcs, 0, cap };
	Dwfl *dwfl = im >= 0 ? dwfl_for(r, im, pid) : NULL;

	*cut = 0;
	if (!dwfl || !cap)
		return 0;
	cur = (struct uw_cur){ tid, regs, stack, regs[7], size, 0 };
	dwfl_getthread_frames(dwfl, tid, frame_cb, &f);
	*cut = cur.past || f.n == cap;
	return f.n;
}

void rec_unwind_forget(struct rec *r, long im)
{
	if (im >= 0 && (size_t)im < r->nuw && r->uw[im].dwfl) {
		dwfl_end(r->uw[im].dwfl);
		r->uw[im].dwfl = NULL;
	}
}

void rec_unwind_free(struct rec *r)
{
	for (size_t i = 0; i < r->nuw; i++)
		if (r->uw[i].dwfl)
			dwfl_end(r->uw[i].dwfl);
	free(r->uw);
	r->uw = NULL;
	r->nuw = 0;
}

int rec_unwind_supported(void)
{
	return 1;
}

#else

size_t rec_unwind(struct rec *r, long im, int pid, int tid, const uint64_t *regs,
		  const unsigned char *stack, uint64_t size, uint64_t *pcs, size_t cap,
		  int *cut)
{
	(void)r, (void)im, (void)pid, (void)tid, (void)regs, (void)stack, (void)size;
	(void)pcs, (void)cap;
	*cut = 1;
	return 0;
}

void rec_unwind_free(struct rec *r)
{
	(void)r;
}

void rec_unwind_forget(struct rec *r, long im)
{
	(void)r, (void)im;
}

int rec_unwind_supported(void)
{
	return 0;
}

#endif
