/* SPDX-License-Identifier: MIT */
/*
 * Samples where the kernel's frame-pointer walk misses the caller, for
 * hwprof record -g's leaf patch (tests/test-leaf.sh). Built with -O1
 * -fno-omit-frame-pointer: leaf() calls nothing and needs no frame, so
 * GCC gives it no push of BP (the test checks that with objdump). Each
 * fault is one store into a fresh page (MADV_NOHUGEPAGE), so page-fault
 * samples at a period of 1 count them exactly:
 *   leaf-prog leaf [K]  main -> top -> mid_a -> leaf: 200 K faults,
 *                       main -> top -> mid_b -> leaf: 100 K faults
 *   leaf-prog edge [K]  the same calls of edge(), which faults once in its
 *                       prologue (after push BP, before BP is set) and
 *                       once in its epilogue (after BP is restored):
 *                       mid_a 400 K, mid_b 200 K (x86-64 only)
 *   leaf-prog ptr [K]   leaf's calls, each mid_a or mid_b called once,
 *                       interleaved, from one call through a pointer in
 *                       top: 200 K and 100 K faults whose kernel chains are
 *                       all the same (the walk's first frame is the return
 *                       into top) and whose callers differ
 * The kernel's walk reads each of those samples' caller as top.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void leaf(void);
void edge(char *a, char *b);
void mid_a(long n, int e);
void mid_b(long n, int e);
void top(long k, int e, int ptr);

static char *pool;
static long used, psz = 4096;

/* one fault, one fresh page; no frame, no call */
__attribute__((noinline)) void leaf(void)
{
	pool[used] = 1;
	used += psz;
}

#if defined(__x86_64__)
/* edge(a, b): a store to a in the prologue, to b in the epilogue, each
 * with the CFI row of that point */
__asm__(".text\n"
	".globl edge\n"
	".type edge, @function\n"
	"edge:\n"
	".cfi_startproc\n"
	"	pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"	movb $1, (%rdi)\n" /* the prologue: BP still the caller's */
	"	movq %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"	nop\n"
	"	popq %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"	movb $1, (%rsi)\n" /* the epilogue: BP the caller's again */
	"	ret\n"
	".cfi_endproc\n"
	".size edge, .-edge\n");
#endif

static inline __attribute__((always_inline)) void call(int e)
{
#if defined(__x86_64__)
	if (e) {
		edge(pool + used, pool + used + psz);
		used += 2 * psz;
		return;
	}
#endif
	(void)e;
	leaf();
}

__attribute__((noinline)) void mid_a(long n, int e)
{
	for (long i = 0; i < n; i++)
		call(e);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

__attribute__((noinline)) void mid_b(long n, int e)
{
	for (long i = 0; i < n; i++)
		call(e);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void top(long k, int e, int ptr)
{
	void (*volatile fn)(long, int);

	if (ptr) { /* one call site: mid_a twice, then mid_b, ... */
		for (long i = 0; i < 300 * k; i++) {
			fn = i % 3 == 2 ? mid_b : mid_a;
			fn(1, e);
		}
	} else {
		mid_a(200 * k, e);
		mid_b(100 * k, e);
	}
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long k = argc > 2 ? atol(argv[2]) : 1;
	int e = argc > 1 && !strcmp(argv[1], "edge");
	int ptr = argc > 1 && !strcmp(argv[1], "ptr");
	size_t len;

	if (argc < 2 || k < 1 || k > 1000 || (!e && !ptr && strcmp(argv[1], "leaf")))
		return 2;
#if !defined(__x86_64__)
	if (e)
		return 77;
#endif
	len = (size_t)(600 * k + 16) * (size_t)psz;
	pool = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED || madvise(pool, len, MADV_NOHUGEPAGE))
		return 1;
	top(k, e, ptr);
	return 0;
}
