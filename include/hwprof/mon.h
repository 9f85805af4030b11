/* SPDX-License-Identifier: MIT */
/*
 * AIX's <mon.h> on hwprof: monitor, monstartup, moncontrol (see
 * monitor(3hwprof)). Its struct prof is AIX's, not glibc's <sys/profil.h>
 * one: a file includes one or the other.
 */
#ifndef HWPROF_MON_H
#define HWPROF_MON_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HWPROF_API
#define HWPROF_API __attribute__((visibility("default")))
#endif

#ifndef __caddr_t_defined
typedef char *caddr_t;
#define __caddr_t_defined
#endif

typedef unsigned short HISTCOUNTER;
#define HIST_COUNTER_SIZE sizeof(HISTCOUNTER)
#define HIST_CNT_MAX	  65535
/* One counter per 4 bytes of text, as glibc's -pg histogram. */
#define HIST_BYTES_PER_COUNTER 4
#define NUM_HIST_COUNTERS(range) \
	(((range) + HIST_BYTES_PER_COUNTER - 1) / HIST_BYTES_PER_COUNTER)

#define _PROF_TYPE_IS_P	   (-1) /* -p profiling */
#define _PROF_TYPE_IS_PG   1	/* -pg profiling */
#define _PROF_TYPE_IS_NONE 0	/* nothing set it: taken as -p */

struct prof {
	caddr_t p_low;	      /* low sampling address */
	caddr_t p_high;	      /* high sampling address; 0 ends the array */
	HISTCOUNTER *p_buff;  /* sampling buffer */
	int p_bufsize;	      /* its size in HISTCOUNTERs */
	unsigned int p_scale; /* ignored by monitor */
};

/* -p call-count record, for sizing the function-count space. */
struct poutcnt {
	caddr_t fnpc;
	unsigned long mcnt;
};

struct monglobal {
	int prof_type; /* _PROF_TYPE_IS_* */
};

/* Set by a program to choose -p or -pg profiling before monitor(). */
HWPROF_API extern struct monglobal _mondata;

HWPROF_API int monitor(caddr_t lowpc, ...);
HWPROF_API int monstartup(caddr_t lowpc, caddr_t highpc);
HWPROF_API int moncontrol(int mode);

#ifdef __cplusplus
}
#endif

#endif /* HWPROF_MON_H */
