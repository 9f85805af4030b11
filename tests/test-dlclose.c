/* SPDX-License-Identifier: MIT */
/*
 * dlclose() of libhwprof while profil(3) runs: the drain thread's code
 * and hwprof's fault handler stay mapped (libhwprof is linked -z nodelete),
 * so the program goes on and exits 0. This program is not linked with
 * libhwprof: it loads it by the path it is given, as a plugin host would.
 * usage: test-dlclose PATH-TO-libhwprof.so.0
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "tlib.h"

#define NPF 256

typedef int (*profil_fn)(unsigned short *, size_t, size_t, unsigned int);

int main(int argc, char **argv)
{
	static unsigned short buf[4096];
	uintptr_t lo = (uintptr_t)touch_a & ~(uintptr_t)4095;
	struct t_pages pool;
	profil_fn prof;
	void *h;
	int r;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: test-dlclose PATH\n");
		return T_ERROR;
	}
	r = t_require_pf();
	if (r)
		return r;
	if (t_pages_new(&pool, NPF))
		return T_ERROR;
	setenv("HWPROF_EVENT", "page-faults", 1);
	setenv("HWPROF_PERIOD", "1", 1);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("ERROR: dlopen: %s\n", dlerror());
		return T_ERROR;
	}
	prof = (profil_fn)(uintptr_t)dlsym(h, "profil");
	if (!prof || prof(buf, sizeof(buf), lo, 0x10000)) {
		printf("ERROR: profil from %s did not start\n", argv[1]);
		return T_ERROR;
	}
	t_touch_n(touch_a, &pool, NPF);
	T_EQ(dlclose(h), 0);
	/* still loaded: the drain thread runs its code */
	T_CHECK(dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) != NULL,
		"%s was unloaded while its thread runs", argv[1]);
	/* samples keep coming and the drain thread wakes to fold them */
	for (int i = 0; i < 4; i++) {
		t_touch_n(touch_a, &pool, NPF);
		usleep(150000);
	}
	return t_done("dlclose");
}
