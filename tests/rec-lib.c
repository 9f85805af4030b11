/* SPDX-License-Identifier: MIT */
/* A library rec-prog dlopens by a relative path, faults in, and closes
 * before it exits: its samples must keep its (absolute) name. */
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

void rec_lib_touch(volatile char *p);
void rec_lib_faults(long n);

__attribute__((noinline, used, no_sanitize_address)) void rec_lib_touch(volatile char *p)
{
	*p = 1;
}

void rec_lib_faults(long n)
{
	volatile char *text = (volatile char *)(size_t)rec_lib_touch;
	long pg = sysconf(_SC_PAGESIZE);
	char *p;

	(void)*text; /* its text is in: running it faults no more */
	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return;
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		rec_lib_touch(p + i * pg);
	munmap(p, (size_t)(n * pg));
}
