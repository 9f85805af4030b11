/* SPDX-License-Identifier: MIT */
/*
 * PAPI's interface on hwprof: the names, values and layouts of PAPI 7.0
 * for the low-level and high-level calls a PAPI client uses, so that such
 * a program compiles unchanged with $(pkg-config --cflags --libs
 * hwprof-papi).
 * Each call is described in its PAPI_*(3hwprof) page, with the ways hwprof
 * differs from PAPI.
 */
#ifndef HWPROF_PAPI_H
#define HWPROF_PAPI_H

#include <signal.h>	/* PAPI's header makes SIGALRM, SIGVTALRM... visible */
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
#define PAPI_DOM_MAX		PAPI_DOM_ALL
#define PAPI_DOM_HWSPEC		0x80000000
#define PAPI_GRN_THR		0x1
#define PAPI_GRN_PROC		0x2
#define PAPI_GRN_PROCG		0x4
#define PAPI_GRN_SYS		0x8
#define PAPI_GRN_SYS_CPU	0x10
#define PAPI_GRN_MIN		PAPI_GRN_THR
#define PAPI_GRN_MAX		PAPI_GRN_SYS_CPU

/* Thread-specific storage tags and user locks */
#define PAPI_USR1_TLS		0x0
#define PAPI_USR2_TLS		0x1
#define PAPI_TLS_HIGH_LEVEL	0x2
#define PAPI_NUM_TLS		0x3
#define PAPI_TLS_USR1		PAPI_USR1_TLS
#define PAPI_TLS_USR2		PAPI_USR2_TLS
#define PAPI_TLS_NUM		PAPI_NUM_TLS
#define PAPI_TLS_ALL_THREADS	0x10
#define PAPI_USR1_LOCK		0x0
#define PAPI_USR2_LOCK		0x1
#define PAPI_NUM_LOCK		0x2
#define PAPI_LOCK_USR1		PAPI_USR1_LOCK
#define PAPI_LOCK_USR2		PAPI_USR2_LOCK
#define PAPI_LOCK_NUM		PAPI_NUM_LOCK

/* CPU vendors (PAPI_hw_info_t.vendor) */
#define PAPI_VENDOR_UNKNOWN	0
#define PAPI_VENDOR_INTEL	1
#define PAPI_VENDOR_AMD		2
#define PAPI_VENDOR_IBM		3
#define PAPI_VENDOR_CRAY	4
#define PAPI_VENDOR_SUN		5
#define PAPI_VENDOR_FREESCALE	6
#define PAPI_VENDOR_ARM		7
#define PAPI_VENDOR_MIPS	8
#define PAPI_VENDOR_ARM_ARM	  0x41
#define PAPI_VENDOR_ARM_BROADCOM  0x42
#define PAPI_VENDOR_ARM_CAVIUM	  0x43
#define PAPI_VENDOR_ARM_FUJITSU	  0x46
#define PAPI_VENDOR_ARM_HISILICON 0x48
#define PAPI_VENDOR_ARM_APM	  0x50
#define PAPI_VENDOR_ARM_QUALCOMM  0x51

#define PAPI_MULTIPLEX_DEFAULT	0x0
#define PAPI_MULTIPLEX_FORCE_SW	0x1
#define PAPI_INHERIT_ALL	1
#define PAPI_INHERIT_NONE	0

#define PAPI_QUIET		0
#define PAPI_VERB_ECONT		1
#define PAPI_VERB_ESTOP		2

#define PAPI_MIN_STR_LEN	64
#define PAPI_MAX_STR_LEN	128
#define PAPI_2MAX_STR_LEN	256
#define PAPI_HUGE_STR_LEN	1024

/* PAPI_get_opt() and PAPI_set_opt() options */
#define PAPI_DETACH		1
#define PAPI_DEBUG		2
#define PAPI_MULTIPLEX		3
#define PAPI_DEFDOM		4
#define PAPI_DOMAIN		5
#define PAPI_DEFGRN		6
#define PAPI_GRANUL		7
#define PAPI_DEF_MPX_NS		8
#define PAPI_MAX_MPX_CTRS	11
#define PAPI_PROFIL		12
#define PAPI_PRELOAD		13
#define PAPI_CLOCKRATE		14
#define PAPI_MAX_HWCTRS		15
#define PAPI_HWINFO		16
#define PAPI_EXEINFO		17
#define PAPI_MAX_CPUS		18
#define PAPI_ATTACH		19
#define PAPI_SHLIBINFO		20
#define PAPI_LIB_VERSION	21
#define PAPI_COMPONENTINFO	22
#define PAPI_DATA_ADDRESS	23
#define PAPI_INSTR_ADDRESS	24
#define PAPI_DEF_ITIMER		25
#define PAPI_DEF_ITIMER_NS	26
#define PAPI_CPU_ATTACH		27
#define PAPI_INHERIT		28
#define PAPI_USER_EVENTS_FILE	29
#define PAPI_INIT_SLOTS		64

#define PAPI_PMU_MAX		80
#define PAPI_DERIVED		0x1
#define PAPI_MAX_INFO_TERMS	12

/* PAPI_enum_event() modifiers */
enum {
	PAPI_ENUM_EVENTS = 0,
	PAPI_ENUM_FIRST,
	PAPI_PRESET_ENUM_AVAIL,
	PAPI_PRESET_ENUM_MSC,
	PAPI_PRESET_ENUM_INS,
	PAPI_PRESET_ENUM_IDL,
	PAPI_PRESET_ENUM_BR,
	PAPI_PRESET_ENUM_CND,
	PAPI_PRESET_ENUM_MEM,
	PAPI_PRESET_ENUM_CACH,
	PAPI_PRESET_ENUM_L1,
	PAPI_PRESET_ENUM_L2,
	PAPI_PRESET_ENUM_L3,
	PAPI_PRESET_ENUM_TLB,
	PAPI_PRESET_ENUM_FP,
	PAPI_NTV_ENUM_UMASKS,
	PAPI_NTV_ENUM_UMASK_COMBOS,
	PAPI_NTV_ENUM_IARR,
	PAPI_NTV_ENUM_DARR,
	PAPI_NTV_ENUM_OPCM,
	PAPI_NTV_ENUM_IEAR,
	PAPI_NTV_ENUM_DEAR,
	PAPI_NTV_ENUM_GROUPS
};
#define PAPI_ENUM_ALL		PAPI_ENUM_EVENTS
#define PAPI_PRESET_BIT_MSC	(1 << PAPI_PRESET_ENUM_MSC)
#define PAPI_PRESET_BIT_INS	(1 << PAPI_PRESET_ENUM_INS)
#define PAPI_PRESET_BIT_IDL	(1 << PAPI_PRESET_ENUM_IDL)
#define PAPI_PRESET_BIT_BR	(1 << PAPI_PRESET_ENUM_BR)
#define PAPI_PRESET_BIT_CND	(1 << PAPI_PRESET_ENUM_CND)
#define PAPI_PRESET_BIT_MEM	(1 << PAPI_PRESET_ENUM_MEM)
#define PAPI_PRESET_BIT_CACH	(1 << PAPI_PRESET_ENUM_CACH)
#define PAPI_PRESET_BIT_L1	(1 << PAPI_PRESET_ENUM_L1)
#define PAPI_PRESET_BIT_L2	(1 << PAPI_PRESET_ENUM_L2)
#define PAPI_PRESET_BIT_L3	(1 << PAPI_PRESET_ENUM_L3)
#define PAPI_PRESET_BIT_TLB	(1 << PAPI_PRESET_ENUM_TLB)
#define PAPI_PRESET_BIT_FP	(1 << PAPI_PRESET_ENUM_FP)

/* Memory hierarchy (PAPI_mh_*_info_t.type) */
#define PAPI_MH_TYPE_EMPTY	0x0
#define PAPI_MH_TYPE_INST	0x1
#define PAPI_MH_TYPE_DATA	0x2
#define PAPI_MH_TYPE_VECTOR	0x4
#define PAPI_MH_TYPE_TRACE	0x8
#define PAPI_MH_TYPE_UNIFIED	(PAPI_MH_TYPE_INST | PAPI_MH_TYPE_DATA)
#define PAPI_MH_CACHE_TYPE(a)	((a) & 0xf)
#define PAPI_MH_TYPE_WT		0x00
#define PAPI_MH_TYPE_WB		0x10
#define PAPI_MH_CACHE_WRITE_POLICY(a)	((a) & 0xf0)
#define PAPI_MH_TYPE_UNKNOWN	0x000
#define PAPI_MH_TYPE_LRU	0x100
#define PAPI_MH_TYPE_PSEUDO_LRU	0x200
#define PAPI_MH_TYPE_FIFO	0x400
#define PAPI_MH_CACHE_REPLACEMENT_POLICY(a)	((a) & 0xf00)
#define PAPI_MH_TYPE_TLB	0x1000
#define PAPI_MH_TYPE_PREF	0x2000
#define PAPI_MH_TYPE_RD_ALLOC	0x10000
#define PAPI_MH_TYPE_WR_ALLOC	0x20000
#define PAPI_MH_TYPE_RW_ALLOC	0x40000
#define PAPI_MH_CACHE_ALLOCATION_POLICY(a)	((a) & 0xf0000)
#define PAPI_MH_MAX_LEVELS	6
#define PAPI_MAX_MEM_HIERARCHY_LEVELS	4

/* PAPI_get_dmem_info() fields, by number */
#define PAPIF_DMEM_VMPEAK	1
#define PAPIF_DMEM_VMSIZE	2
#define PAPIF_DMEM_RESIDENT	3
#define PAPIF_DMEM_HIGH_WATER	4
#define PAPIF_DMEM_SHARED	5
#define PAPIF_DMEM_TEXT		6
#define PAPIF_DMEM_LIBRARY	7
#define PAPIF_DMEM_HEAP		8
#define PAPIF_DMEM_LOCKED	9
#define PAPIF_DMEM_STACK	10
#define PAPIF_DMEM_PAGESIZE	11
#define PAPIF_DMEM_PTE		12
#define PAPIF_DMEM_MAXVAL	12

/* PAPI_event_info_t.location, data_type, value_type, timescope, update_type */
enum {
	PAPI_LOCATION_CORE = 0,
	PAPI_LOCATION_CPU,
	PAPI_LOCATION_PACKAGE,
	PAPI_LOCATION_UNCORE,
};
enum {
	PAPI_DATATYPE_INT64 = 0,
	PAPI_DATATYPE_UINT64,
	PAPI_DATATYPE_FP64,
	PAPI_DATATYPE_BIT64,
};
enum {
	PAPI_VALUETYPE_RUNNING_SUM = 0,
	PAPI_VALUETYPE_ABSOLUTE,
};
enum {
	PAPI_TIMESCOPE_SINCE_START = 0,
	PAPI_TIMESCOPE_SINCE_LAST,
	PAPI_TIMESCOPE_UNTIL_NEXT,
	PAPI_TIMESCOPE_POINT,
};
enum {
	PAPI_UPDATETYPE_ARBITRARY = 0,
	PAPI_UPDATETYPE_PUSH,
	PAPI_UPDATETYPE_PULL,
	PAPI_UPDATETYPE_FIXEDFREQ,
};

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
#define PAPI_UE_MASK		((int)0xC0000000)
#define PAPI_UE_AND_MASK	0x3FFFFFFF
#define IS_NATIVE(c)	(((c) & PAPI_NATIVE_MASK) && !((c) & PAPI_PRESET_MASK))
#define IS_PRESET(c)	(((c) & PAPI_PRESET_MASK) && !((c) & PAPI_NATIVE_MASK))
#define IS_USER_DEFINED(c)	(((c) & PAPI_PRESET_MASK) && ((c) & PAPI_NATIVE_MASK))
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
typedef unsigned long PAPI_thread_id_t;

typedef struct _papi_all_thr_spec {
	int num;
	PAPI_thread_id_t *id;
	void **data;
} PAPI_all_thr_spec_t;

typedef void (*PAPI_overflow_handler_t)(int EventSet, void *address,
					long long overflow_vector, void *context);

/* One region of PAPI_sprofil(): pr_scale 0x10000 is 2 bytes of text a
 * bucket, 0x20000 one byte; pr_off 0 with pr_scale 2 is the overflow bin. */
typedef struct _papi_sprofil {
	void *pr_base;
	unsigned pr_size;
	vptr_t pr_off;
	unsigned pr_scale;
} PAPI_sprofil_t;

typedef struct _papi_itimer_option {
	int itimer_num;
	int itimer_sig;
	int ns;
	int flags;
} PAPI_itimer_option_t;

typedef struct _papi_inherit_option {
	int eventset;
	int inherit;
} PAPI_inherit_option_t;

typedef struct _papi_domain_option {
	int def_cidx;		/* component, for PAPI_DEFDOM */
	int eventset;
	int domain;
} PAPI_domain_option_t;

typedef struct _papi_granularity_option {
	int def_cidx;		/* component, for PAPI_DEFGRN */
	int eventset;
	int granularity;
} PAPI_granularity_option_t;

typedef struct _papi_preload_option {
	char lib_preload_env[PAPI_MAX_STR_LEN];
	char lib_preload_sep;
	char lib_dir_env[PAPI_MAX_STR_LEN];
	char lib_dir_sep;
} PAPI_preload_info_t;

/* What PAPI_get_component_info() describes: one component here. */
typedef struct _papi_component_option {
	char name[PAPI_MAX_STR_LEN];
	char short_name[PAPI_MIN_STR_LEN];
	char description[PAPI_MAX_STR_LEN];
	char version[PAPI_MIN_STR_LEN];
	char support_version[PAPI_MIN_STR_LEN];
	char kernel_version[PAPI_MIN_STR_LEN];
	char disabled_reason[PAPI_HUGE_STR_LEN];
	int disabled;
	int initialized;
	int CmpIdx;
	int num_cntrs;
	int num_mpx_cntrs;
	int num_preset_events;
	int num_native_events;
	int default_domain;
	int available_domains;
	int default_granularity;
	int available_granularities;
	int hardware_intr_sig;
	int component_type;
	char *pmu_names[PAPI_PMU_MAX];
	int reserved[8];
	unsigned int hardware_intr:1;
	unsigned int precise_intr:1;
	unsigned int posix1b_timers:1;
	unsigned int kernel_profile:1;
	unsigned int kernel_multiplex:1;
	unsigned int fast_counter_read:1;
	unsigned int fast_real_timer:1;
	unsigned int fast_virtual_timer:1;
	unsigned int attach:1;
	unsigned int attach_must_ptrace:1;
	unsigned int cntr_umasks:1;
	unsigned int cpu:1;
	unsigned int inherit:1;
	unsigned int reserved_bits:19;
} PAPI_component_info_t;

typedef struct _papi_mpx_info {
	int timer_sig;
	int timer_num;
	int timer_us;
} PAPI_mpx_info_t;

typedef int (*PAPI_debug_handler_t)(int code);

typedef struct _papi_debug_option {
	int level;
	PAPI_debug_handler_t handler;
} PAPI_debug_option_t;

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

typedef char *PAPI_user_defined_events_file_t;

typedef struct _papi_mh_tlb_info {
	int type;
	int num_entries;
	int page_size;
	int associativity;
} PAPI_mh_tlb_info_t;

typedef struct _papi_mh_cache_info {
	int type;
	int size;		/* bytes */
	int line_size;
	int num_lines;
	int associativity;	/* 0 unknown, 1 direct mapped, SHRT_MAX full */
} PAPI_mh_cache_info_t;

typedef struct _papi_mh_level_info {
	PAPI_mh_tlb_info_t tlb[PAPI_MH_MAX_LEVELS];
	PAPI_mh_cache_info_t cache[PAPI_MH_MAX_LEVELS];
} PAPI_mh_level_t;

typedef struct _papi_mh_info {
	int levels;
	PAPI_mh_level_t level[PAPI_MAX_MEM_HIERARCHY_LEVELS];
} PAPI_mh_info_t;

typedef struct _papi_hw_info {
	int ncpu;		/* CPUs per NUMA node */
	int threads;		/* hardware threads per core */
	int cores;		/* cores per socket */
	int sockets;
	int nnodes;
	int totalcpus;
	int vendor;
	char vendor_string[PAPI_MAX_STR_LEN];
	int model;
	char model_string[PAPI_MAX_STR_LEN];
	float revision;
	int cpuid_family;
	int cpuid_model;
	int cpuid_stepping;
	int cpu_max_mhz;
	int cpu_min_mhz;
	PAPI_mh_info_t mem_hierarchy;
	int virtualized;
	char virtual_vendor_string[PAPI_MAX_STR_LEN];
	char virtual_vendor_version[PAPI_MAX_STR_LEN];
	float mhz;		/* deprecated: cpu_max_mhz */
	int clock_mhz;		/* deprecated: cpu_max_mhz */
	int reserved[8];
} PAPI_hw_info_t;

typedef struct _papi_attach_option {
	int eventset;
	unsigned long tid;
} PAPI_attach_option_t;

typedef struct _papi_cpu_option {
	int eventset;
	unsigned int cpu_num;
} PAPI_cpu_option_t;

typedef struct _papi_multiplex_option {
	int eventset;
	int ns;
	int flags;
} PAPI_multiplex_option_t;

typedef struct _papi_addr_range_option {
	int eventset;
	vptr_t start;
	vptr_t end;
	int start_off;
	int end_off;
} PAPI_addr_range_option_t;

/* What PAPI_get_opt() fills and PAPI_set_opt() reads, by option. */
typedef union {
	PAPI_preload_info_t preload;
	PAPI_debug_option_t debug;
	PAPI_inherit_option_t inherit;
	PAPI_granularity_option_t granularity;
	PAPI_granularity_option_t defgranularity;
	PAPI_domain_option_t domain;
	PAPI_domain_option_t defdomain;
	PAPI_attach_option_t attach;
	PAPI_cpu_option_t cpu;
	PAPI_multiplex_option_t multiplex;
	PAPI_itimer_option_t itimer;
	PAPI_hw_info_t *hw_info;
	PAPI_shlib_info_t *shlib_info;
	PAPI_exe_info_t *exe_info;
	PAPI_component_info_t *cmp_info;
	PAPI_addr_range_option_t addr;
	PAPI_user_defined_events_file_t events_file;
} PAPI_option_t;

/* PAPI_get_dmem_info(): kilobytes, except pagesize (bytes). */
typedef struct _dmem_t {
	long long peak;
	long long size;
	long long resident;
	long long high_water_mark;
	long long shared;
	long long text;
	long long library;
	long long heap;
	long long locked;
	long long stack;
	long long pagesize;
	long long pte;
} PAPI_dmem_info_t;

/* One event described by PAPI_get_event_info(), preset or native. */
typedef struct event_info {
	unsigned int event_code;
	char symbol[PAPI_HUGE_STR_LEN];
	char short_descr[PAPI_MIN_STR_LEN];
	char long_descr[PAPI_HUGE_STR_LEN];
	int component_index;
	char units[PAPI_MIN_STR_LEN];
	int location;
	int data_type;
	int value_type;
	int timescope;
	int update_type;
	int update_freq;
	unsigned int count;	/* presets: native terms; natives: 0 */
	unsigned int event_type;
	char derived[PAPI_MIN_STR_LEN];
	char postfix[PAPI_2MAX_STR_LEN];
	unsigned int code[PAPI_MAX_INFO_TERMS];
	char name[PAPI_MAX_INFO_TERMS][PAPI_2MAX_STR_LEN];
	char note[PAPI_HUGE_STR_LEN];
} PAPI_event_info_t;

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
HWPROF_API const PAPI_hw_info_t *PAPI_get_hardware_info(void);
HWPROF_API const PAPI_shlib_info_t *PAPI_get_shared_lib_info(void);
HWPROF_API int PAPI_get_dmem_info(PAPI_dmem_info_t *dest);
HWPROF_API int PAPI_get_event_info(int EventCode, PAPI_event_info_t *info);
HWPROF_API int PAPI_enum_event(int *EventCode, int modifier);
HWPROF_API int PAPI_enum_cmp_event(int *EventCode, int modifier, int cidx);
HWPROF_API int PAPI_get_event_component(int EventCode);
HWPROF_API int PAPI_get_eventset_component(int EventSet);
HWPROF_API int PAPI_num_components(void);
HWPROF_API const PAPI_component_info_t *PAPI_get_component_info(int cidx);
HWPROF_API int PAPI_get_component_index(const char *name);
HWPROF_API int PAPI_disable_component(int cidx);
HWPROF_API int PAPI_disable_component_by_name(const char *name);
HWPROF_API int PAPI_assign_eventset_component(int EventSet, int cidx);
HWPROF_API int PAPI_num_hwctrs(void);
HWPROF_API int PAPI_num_cmp_hwctrs(int cidx);
HWPROF_API int PAPI_set_opt(int option, PAPI_option_t *ptr);
HWPROF_API int PAPI_get_cmp_opt(int option, PAPI_option_t *ptr, int cidx);
HWPROF_API int PAPI_set_domain(int domain);
HWPROF_API int PAPI_set_cmp_domain(int domain, int cidx);
HWPROF_API int PAPI_set_granularity(int granularity);
HWPROF_API int PAPI_set_cmp_granularity(int granularity, int cidx);
HWPROF_API int PAPI_set_debug(int level);
HWPROF_API int PAPI_multiplex_init(void);
HWPROF_API int PAPI_set_multiplex(int EventSet);
HWPROF_API int PAPI_get_multiplex(int EventSet);
HWPROF_API int PAPI_attach(int EventSet, unsigned long tid);
HWPROF_API int PAPI_detach(int EventSet);
HWPROF_API int PAPI_remove_named_event(int EventSet, const char *EventName);
HWPROF_API int PAPI_remove_events(int EventSet, int *Events, int number);
HWPROF_API int PAPI_list_events(int EventSet, int *Events, int *number);
HWPROF_API int PAPI_get_overflow_event_index(int EventSet, long long overflow_vector,
					    int *array, int *number);
HWPROF_API unsigned long PAPI_thread_id(void);
HWPROF_API int PAPI_list_threads(unsigned long *tids, int *number);
HWPROF_API int PAPI_get_thr_specific(int tag, void **ptr);
HWPROF_API int PAPI_set_thr_specific(int tag, void *ptr);
HWPROF_API int PAPI_lock(int lck);
HWPROF_API int PAPI_unlock(int lck);
HWPROF_API long long PAPI_get_virt_cyc(void);
HWPROF_API long long PAPI_get_virt_nsec(void);

/* The high-level API (PAPI 7): regions counted on PAPI_EVENTS, reported
 * as JSON under PAPI_OUTPUT_DIRECTORY at exit. */
HWPROF_API int PAPI_hl_region_begin(const char *region);
HWPROF_API int PAPI_hl_read(const char *region);
HWPROF_API int PAPI_hl_region_end(const char *region);
HWPROF_API int PAPI_hl_stop(void);

/* PAPI 7's rate calls: each thread's counts, times and rate since its
 * last call (PAPI_flops_rate(3hwprof)). */
HWPROF_API int PAPI_flips_rate(int event, float *rtime, float *ptime, long long *flpins,
			       float *mflips);
HWPROF_API int PAPI_flops_rate(int event, float *rtime, float *ptime, long long *flpops,
			       float *mflops);
HWPROF_API int PAPI_ipc(float *rtime, float *ptime, long long *ins, float *ipc);
HWPROF_API int PAPI_epc(int event, float *rtime, float *ptime, long long *ref,
			long long *core, long long *evt, float *epc);
HWPROF_API int PAPI_rate_stop(void);

#define PAPI_COMPONENT_INDEX(a)	PAPI_get_event_component(a)
#define PAPI_descr_error(a)	PAPI_strerror(a)
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
