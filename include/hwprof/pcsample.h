/* SPDX-License-Identifier: MIT */
/* Solaris pcsample(2) on hwprof: see pcsample(3hwprof). */
#ifndef HWPROF_PCSAMPLE_H
#define HWPROF_PCSAMPLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HWPROF_API
#define HWPROF_API __attribute__((visibility("default")))
#endif

/* Stores the pc of every sample into samples[0..nsamples) in order, until
 * full; returns the previous run's count; nsamples 0 stops. */
HWPROF_API long pcsample(uintptr_t samples[], long nsamples);

#ifdef __cplusplus
}
#endif

#endif /* HWPROF_PCSAMPLE_H */
