/* SPDX-License-Identifier: MIT */
/*
 * PAPI's profiling interface on hwprof: the names, values and layouts of
 * PAPI 7.0 for what a profiling client uses, so that such a program
 * compiles unchanged with $(pkg-config --cflags --libs hwprof-papi).
 * Each call is described in its PAPI_*(3hwprof) page, with the ways hwprof
 * differs from PAPI.
 */
#ifndef HWPROF_PAPI_H
#define HWPROF_PAPI_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HWPROF_API
#define HWPROF_API __attribute__((visibility("default")))
#endif

#define PAPI_VERSION_NUMBER(maj, min, rev, inc) \
	(((maj) << 24) | ((min) << 16) | ((rev) << 8) | (inc))
#define PAPI_VERSION_MAJOR(x)		(((x) >> 24) & 0xff)
#define PAPI_VERSION_MINOR(x)		(((x) >> 16) & 0xff)
#define PAPI_VERSION_REVISION(x)	(((x) >> 8) & 0xff)
#define PAPI_VERSION_INCREMENT(x)	((x) & 0xff)
#define PAPI_VERSION		PAPI_VERSION_NUMBER(7, 0, 0, 0)
#define PAPI_VER_CURRENT	(PAPI_VERSION & 0xffff0000)

/* Return codes */
#define PAPI_OK			0
#define PAPI_EINVAL		-1
#define PAPI_ENOMEM		-2
#define PAPI_ESYS		-3
#define PAPI_ECMP		-4
#define PAPI_ESBSTR		-4
#define PAPI_ECLOST		-5
#define PAPI_EBUG		-6
#define PAPI_ENOEVNT		-7
#define PAPI_ECNFLCT		-8
#define PAPI_ENOTRUN		-9
#define PAPI_EISRUN		-10
#define PAPI_ENOEVST		-11
#define PAPI_ENOTPRESET		-12
#define PAPI_ENOCNTR		-13
#define PAPI_EMISC		-14
#define PAPI_EPERM		-15
#define PAPI_ENOINIT		-16
#define PAPI_ENOCMP		-17
#define PAPI_ENOSUPP		-18
#define PAPI_ENOIMPL		-19
#define PAPI_EBUF		-20
#define PAPI_EINVAL_DOM		-21
#define PAPI_EATTR		-22
#define PAPI_ECOUNT		-23
#define PAPI_ECOMBO		-24
#define PAPI_ECMP_DISABLED	-25
#define PAPI_EDELAY_INIT	-26
#define PAPI_EMULPASS		-27
#define PAPI_NUM_ERRORS		28

#define PAPI_NULL		-1

/* Initialisation levels (a bit mask) */
#define PAPI_NOT_INITED			0
#define PAPI_LOW_LEVEL_INITED		1
#define PAPI_HIGH_LEVEL_INITED		2
#define PAPI_THREAD_LEVEL_INITED	4

/* EventSet states */
#define PAPI_STOPPED		0x01
#define PAPI_RUNNING		0x02
#define PAPI_PAUSED		0x04
#define PAPI_NOT_INIT		0x08
#define PAPI_OVERFLOWING	0x10
#define PAPI_PROFILING		0x20
#define PAPI_MULTIPLEXING	0x40
#define PAPI_ATTACHED		0x80
#define PAPI_CPU_ATTACHED	0x100

/* Domains and granularity */
#define PAPI_DOM_USER		0x1
#define PAPI_DOM_MIN		PAPI_DOM_USER
#define PAPI_DOM_KERNEL		0x2
#define PAPI_DOM_OTHER		0x4
#define PAPI_DOM_SUPERVISOR	0x8
#define PAPI_DOM_ALL		(PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_OTHER | PAPI_DOM_SUPERVISOR)
#define PAPI_GRN_THR		0x1
#define PAPI_GRN_PROC		0x2
#define PAPI_GRN_PROCG		0x4
#define PAPI_GRN_SYS		0x8
#define PAPI_GRN_SYS_CPU	0x10

#define PAPI_QUIET		0
#define PAPI_VERB_ECONT		1
#define PAPI_VERB_ESTOP		2

#define PAPI_MIN_STR_LEN	64
#define PAPI_MAX_STR_LEN	128
#define PAPI_2MAX_STR_LEN	256
#define PAPI_HUGE_STR_LEN	1024

/* PAPI_get_opt() options hwprof answers */
#define PAPI_MAX_HWCTRS		15
#define PAPI_PROFIL		12
#define PAPI_HWINFO		16
#define PAPI_EXEINFO		17

/* Profiling flags */
#define PAPI_PROFIL_POSIX	0x0
#define PAPI_PROFIL_RANDOM	0x1
#define PAPI_PROFIL_WEIGHTED	0x2
#define PAPI_PROFIL_COMPRESS	0x4
#define PAPI_PROFIL_BUCKET_16	0x8
#define PAPI_PROFIL_BUCKET_32	0x10
#define PAPI_PROFIL_BUCKET_64	0x20
#define PAPI_PROFIL_FORCE_SW	0x40
#define PAPI_PROFIL_DATA_EAR	0x80
#define PAPI_PROFIL_INST_EAR	0x100
#define PAPI_PROFIL_BUCKETS	(PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32 | PAPI_PROFIL_BUCKET_64)

#define PAPI_OVERFLOW_FORCE_SW	0x40
#define PAPI_OVERFLOW_HARDWARE	0x80

/* Event codes */
#define PAPI_PRESET_MASK	((int)0x80000000)
#define PAPI_NATIVE_MASK	((int)0x40000000)
#define PAPI_PRESET_AND_MASK	0x7FFFFFFF
#define PAPI_NATIVE_AND_MASK	0xBFFFFFFF
#define PAPI_MAX_PRESET_EVENTS	128

/* The presets, by their position in PAPI 7.0's list */
#define PAPI_L1_DCM      ((int)(0x00 | PAPI_PRESET_MASK))
#define PAPI_L1_ICM      ((int)(0x01 | PAPI_PRESET_MASK))
#define PAPI_L2_DCM      ((int)(0x02 | PAPI_PRESET_MASK))
#define PAPI_L2_ICM      ((int)(0x03 | PAPI_PRESET_MASK))
#define PAPI_L3_DCM      ((int)(0x04 | PAPI_PRESET_MASK))
#define PAPI_L3_ICM      ((int)(0x05 | PAPI_PRESET_MASK))
#define PAPI_L1_TCM      ((int)(0x06 | PAPI_PRESET_MASK))
#define PAPI_L2_TCM      ((int)(0x07 | PAPI_PRESET_MASK))
#define PAPI_L3_TCM      ((int)(0x08 | PAPI_PRESET_MASK))
#define PAPI_CA_SNP      ((int)(0x09 | PAPI_PRESET_MASK))
#define PAPI_CA_SHR      ((int)(0x0a | PAPI_PRESET_MASK))
#define PAPI_CA_CLN      ((int)(0x0b | PAPI_PRESET_MASK))
#define PAPI_CA_INV      ((int)(0x0c | PAPI_PRESET_MASK))
#define PAPI_CA_ITV      ((int)(0x0d | PAPI_PRESET_MASK))
#define PAPI_L3_LDM      ((int)(0x0e | PAPI_PRESET_MASK))
#define PAPI_L3_STM      ((int)(0x0f | PAPI_PRESET_MASK))
#define PAPI_BRU_IDL     ((int)(0x10 | PAPI_PRESET_MASK))
#define PAPI_FXU_IDL     ((int)(0x11 | PAPI_PRESET_MASK))
#define PAPI_FPU_IDL     ((int)(0x12 | PAPI_PRESET_MASK))
#define PAPI_LSU_IDL     ((int)(0x13 | PAPI_PRESET_MASK))
#define PAPI_TLB_DM      ((int)(0x14 | PAPI_PRESET_MASK))
#define PAPI_TLB_IM      ((int)(0x15 | PAPI_PRESET_MASK))
#define PAPI_TLB_TL      ((int)(0x16 | PAPI_PRESET_MASK))
#define PAPI_L1_LDM      ((int)(0x17 | PAPI_PRESET_MASK))
#define PAPI_L1_STM      ((int)(0x18 | PAPI_PRESET_MASK))
#define PAPI_L2_LDM      ((int)(0x19 | PAPI_PRESET_MASK))
#define PAPI_L2_STM      ((int)(0x1a | PAPI_PRESET_MASK))
#define PAPI_BTAC_M      ((int)(0x1b | PAPI_PRESET_MASK))
#define PAPI_PRF_DM      ((int)(0x1c | PAPI_PRESET_MASK))
#define PAPI_L3_DCH      ((int)(0x1d | PAPI_PRESET_MASK))
#define PAPI_TLB_SD      ((int)(0x1e | PAPI_PRESET_MASK))
#define PAPI_CSR_FAL     ((int)(0x1f | PAPI_PRESET_MASK))
#define PAPI_CSR_SUC     ((int)(0x20 | PAPI_PRESET_MASK))
#define PAPI_CSR_TOT     ((int)(0x21 | PAPI_PRESET_MASK))
#define PAPI_MEM_SCY     ((int)(0x22 | PAPI_PRESET_MASK))
#define PAPI_MEM_RCY     ((int)(0x23 | PAPI_PRESET_MASK))
#define PAPI_MEM_WCY     ((int)(0x24 | PAPI_PRESET_MASK))
#define PAPI_STL_ICY     ((int)(0x25 | PAPI_PRESET_MASK))
#define PAPI_FUL_ICY     ((int)(0x26 | PAPI_PRESET_MASK))
#define PAPI_STL_CCY     ((int)(0x27 | PAPI_PRESET_MASK))
#define PAPI_FUL_CCY     ((int)(0x28 | PAPI_PRESET_MASK))
#define PAPI_HW_INT      ((int)(0x29 | PAPI_PRESET_MASK))
#define PAPI_BR_UCN      ((int)(0x2a | PAPI_PRESET_MASK))
#define PAPI_BR_CN       ((int)(0x2b | PAPI_PRESET_MASK))
#define PAPI_BR_TKN      ((int)(0x2c | PAPI_PRESET_MASK))
#define PAPI_BR_NTK      ((int)(0x2d | PAPI_PRESET_MASK))
#define PAPI_BR_MSP      ((int)(0x2e | PAPI_PRESET_MASK))
#define PAPI_BR_PRC      ((int)(0x2f | PAPI_PRESET_MASK))
#define PAPI_FMA_INS     ((int)(0x30 | PAPI_PRESET_MASK))
#define PAPI_TOT_IIS     ((int)(0x31 | PAPI_PRESET_MASK))
#define PAPI_TOT_INS     ((int)(0x32 | PAPI_PRESET_MASK))
#define PAPI_INT_INS     ((int)(0x33 | PAPI_PRESET_MASK))
#define PAPI_FP_INS      ((int)(0x34 | PAPI_PRESET_MASK))
#define PAPI_LD_INS      ((int)(0x35 | PAPI_PRESET_MASK))
#define PAPI_SR_INS      ((int)(0x36 | PAPI_PRESET_MASK))
#define PAPI_BR_INS      ((int)(0x37 | PAPI_PRESET_MASK))
#define PAPI_VEC_INS     ((int)(0x38 | PAPI_PRESET_MASK))
#define PAPI_RES_STL     ((int)(0x39 | PAPI_PRESET_MASK))
#define PAPI_FP_STAL     ((int)(0x3a | PAPI_PRESET_MASK))
#define PAPI_TOT_CYC     ((int)(0x3b | PAPI_PRESET_MASK))
#define PAPI_LST_INS     ((int)(0x3c | PAPI_PRESET_MASK))
#define PAPI_SYC_INS     ((int)(0x3d | PAPI_PRESET_MASK))
#define PAPI_L1_DCH      ((int)(0x3e | PAPI_PRESET_MASK))
#define PAPI_L2_DCH      ((int)(0x3f | PAPI_PRESET_MASK))
#define PAPI_L1_DCA      ((int)(0x40 | PAPI_PRESET_MASK))
#define PAPI_L2_DCA      ((int)(0x41 | PAPI_PRESET_MASK))
#define PAPI_L3_DCA      ((int)(0x42 | PAPI_PRESET_MASK))
#define PAPI_L1_DCR      ((int)(0x43 | PAPI_PRESET_MASK))
#define PAPI_L2_DCR      ((int)(0x44 | PAPI_PRESET_MASK))
#define PAPI_L3_DCR      ((int)(0x45 | PAPI_PRESET_MASK))
#define PAPI_L1_DCW      ((int)(0x46 | PAPI_PRESET_MASK))
#define PAPI_L2_DCW      ((int)(0x47 | PAPI_PRESET_MASK))
#define PAPI_L3_DCW      ((int)(0x48 | PAPI_PRESET_MASK))
#define PAPI_L1_ICH      ((int)(0x49 | PAPI_PRESET_MASK))
#define PAPI_L2_ICH      ((int)(0x4a | PAPI_PRESET_MASK))
#define PAPI_L3_ICH      ((int)(0x4b | PAPI_PRESET_MASK))
#define PAPI_L1_ICA      ((int)(0x4c | PAPI_PRESET_MASK))
#define PAPI_L2_ICA      ((int)(0x4d | PAPI_PRESET_MASK))
#define PAPI_L3_ICA      ((int)(0x4e | PAPI_PRESET_MASK))
#define PAPI_L1_ICR      ((int)(0x4f | PAPI_PRESET_MASK))
#define PAPI_L2_ICR      ((int)(0x50 | PAPI_PRESET_MASK))
#define PAPI_L3_ICR      ((int)(0x51 | PAPI_PRESET_MASK))
#define PAPI_L1_ICW      ((int)(0x52 | PAPI_PRESET_MASK))
#define PAPI_L2_ICW      ((int)(0x53 | PAPI_PRESET_MASK))
#define PAPI_L3_ICW      ((int)(0x54 | PAPI_PRESET_MASK))
#define PAPI_L1_TCH      ((int)(0x55 | PAPI_PRESET_MASK))
#define PAPI_L2_TCH      ((int)(0x56 | PAPI_PRESET_MASK))
#define PAPI_L3_TCH      ((int)(0x57 | PAPI_PRESET_MASK))
#define PAPI_L1_TCA      ((int)(0x58 | PAPI_PRESET_MASK))
#define PAPI_L2_TCA      ((int)(0x59 | PAPI_PRESET_MASK))
#define PAPI_L3_TCA      ((int)(0x5a | PAPI_PRESET_MASK))
#define PAPI_L1_TCR      ((int)(0x5b | PAPI_PRESET_MASK))
#define PAPI_L2_TCR      ((int)(0x5c | PAPI_PRESET_MASK))
#define PAPI_L3_TCR      ((int)(0x5d | PAPI_PRESET_MASK))
#define PAPI_L1_TCW      ((int)(0x5e | PAPI_PRESET_MASK))
#define PAPI_L2_TCW      ((int)(0x5f | PAPI_PRESET_MASK))
#define PAPI_L3_TCW      ((int)(0x60 | PAPI_PRESET_MASK))
#define PAPI_FML_INS     ((int)(0x61 | PAPI_PRESET_MASK))
#define PAPI_FAD_INS     ((int)(0x62 | PAPI_PRESET_MASK))
#define PAPI_FDV_INS     ((int)(0x63 | PAPI_PRESET_MASK))
#define PAPI_FSQ_INS     ((int)(0x64 | PAPI_PRESET_MASK))
#define PAPI_FNV_INS     ((int)(0x65 | PAPI_PRESET_MASK))
#define PAPI_FP_OPS      ((int)(0x66 | PAPI_PRESET_MASK))
#define PAPI_SP_OPS      ((int)(0x67 | PAPI_PRESET_MASK))
#define PAPI_DP_OPS      ((int)(0x68 | PAPI_PRESET_MASK))
#define PAPI_VEC_SP      ((int)(0x69 | PAPI_PRESET_MASK))
#define PAPI_VEC_DP      ((int)(0x6a | PAPI_PRESET_MASK))
#define PAPI_REF_CYC     ((int)(0x6b | PAPI_PRESET_MASK))

typedef void *vptr_t;
typedef long long long_long;
typedef unsigned long long u_long_long;

/* One region of PAPI_sprofil(): pr_scale 0x10000 is 2 bytes of text a
 * bucket, 0x20000 one byte; pr_off 0 with pr_scale 2 is the overflow bin. */
typedef struct _papi_sprofil {
	void *pr_base;
	unsigned pr_size;
	vptr_t pr_off;
	unsigned pr_scale;
} PAPI_sprofil_t;

typedef struct _papi_address_map {
	char name[PAPI_HUGE_STR_LEN];
	vptr_t text_start;
	vptr_t text_end;
	vptr_t data_start;
	vptr_t data_end;
	vptr_t bss_start;
	vptr_t bss_end;
} PAPI_address_map_t;

typedef struct _papi_program_info {
	char fullname[PAPI_HUGE_STR_LEN];
	PAPI_address_map_t address_info;
} PAPI_exe_info_t;

typedef struct _papi_shared_lib_info {
	PAPI_address_map_t *map;
	int count;
} PAPI_shlib_info_t;

/* What PAPI_get_opt() fills for PAPI_EXEINFO. */
typedef union {
	PAPI_exe_info_t *exe_info;
} PAPI_option_t;

typedef void (*PAPI_overflow_handler_t)(int EventSet, void *address,
					long long overflow_vector, void *context);

HWPROF_API int PAPI_library_init(int version);
HWPROF_API int PAPI_is_initialized(void);
HWPROF_API void PAPI_shutdown(void);
HWPROF_API int PAPI_thread_init(unsigned long (*id_fn)(void));
HWPROF_API int PAPI_register_thread(void);
HWPROF_API int PAPI_unregister_thread(void);

HWPROF_API int PAPI_create_eventset(int *EventSet);
HWPROF_API int PAPI_add_event(int EventSet, int EventCode);
HWPROF_API int PAPI_add_events(int EventSet, int *Events, int number);
HWPROF_API int PAPI_add_named_event(int EventSet, const char *EventName);
HWPROF_API int PAPI_remove_event(int EventSet, int EventCode);
HWPROF_API int PAPI_num_events(int EventSet);
HWPROF_API int PAPI_state(int EventSet, int *status);
HWPROF_API int PAPI_cleanup_eventset(int EventSet);
HWPROF_API int PAPI_destroy_eventset(int *EventSet);

HWPROF_API int PAPI_start(int EventSet);
HWPROF_API int PAPI_stop(int EventSet, long long *values);
HWPROF_API int PAPI_read(int EventSet, long long *values);
HWPROF_API int PAPI_reset(int EventSet);
HWPROF_API int PAPI_accum(int EventSet, long long *values);

HWPROF_API int PAPI_event_name_to_code(const char *in, int *out);
HWPROF_API int PAPI_event_code_to_name(int EventCode, char *out);
HWPROF_API int PAPI_query_event(int EventCode);
HWPROF_API int PAPI_query_named_event(const char *EventName);
HWPROF_API int PAPI_get_opt(int option, PAPI_option_t *ptr);

HWPROF_API int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset,
			   unsigned scale, int EventSet, int EventCode,
			   int threshold, int flags);
HWPROF_API int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int EventSet,
			    int EventCode, int threshold, int flags);
HWPROF_API int PAPI_overflow(int EventSet, int EventCode, int threshold,
			     int flags, PAPI_overflow_handler_t handler);

HWPROF_API const PAPI_exe_info_t *PAPI_get_executable_info(void);
HWPROF_API long long PAPI_get_real_usec(void);
HWPROF_API long long PAPI_get_real_nsec(void);
HWPROF_API long long PAPI_get_real_cyc(void);
HWPROF_API long long PAPI_get_virt_usec(void);
HWPROF_API char *PAPI_strerror(int code);
HWPROF_API void PAPI_perror(const char *msg);

#ifdef __cplusplus
}
#endif

#endif /* HWPROF_PAPI_H */
