/* SPDX-License-Identifier: MIT */
/*
 * Writes a GNU gmon.out that gprof reads: the 20-byte header, then one
 * TIME_HIST record per range of the main program, addresses relative to
 * its load base (PIE), 16-bit counts, a count above 65535 carried by
 * repeating the record (gprof sums identical records).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../profile/outfile.h"
#include "gmon.h"

struct main_obj {
	uint64_t bias;
	uint64_t lo, hi;	 /* its executable text */
	uint64_t img_lo, img_hi; /* all it loaded */
	int found;
};

static int main_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct main_obj *m = arg;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name)
		return 0;
	m->bias = info->dlpi_addr;
	m->lo = m->img_lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < m->img_lo)
			m->img_lo = a;
		if (a + ph->p_memsz > m->img_hi)
			m->img_hi = a + ph->p_memsz;
		if (!(ph->p_flags & PF_X))
			continue;
		if (a < m->lo)
			m->lo = a;
		if (a + ph->p_memsz > m->hi)
			m->hi = a + ph->p_memsz;
	}
	m->found = 1;
	return 1;
}

int hwp_gmon_main_text(uint64_t *lo, uint64_t *hi, uint64_t *bias)
{
	struct main_obj m = { 0 };

	dl_iterate_phdr(main_cb, &m);
	if (!m.found || m.lo >= m.hi)
		return -ENOENT;
	*lo = m.lo;
	*hi = m.hi;
	if (bias)
		*bias = m.bias;
	return 0;
}

static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

/*
 * The data file as glibc's gmon makes it (a symbolic link at the name is
 * not followed: -ELOOP; mode 0666 less the umask), and more carefully
 * (lib/profile/outfile.h): a FIFO, device or socket there is left as it is
 * (HWP_GMON_NOTREG); the file is written beside the name and renamed over
 * it, so nothing put at the name meanwhile is written through; and in a
 * set-user-ID or set-group-ID program (AT_SECURE) a file already there is
 * never replaced (-EEXIST): the program's privilege writes no file its
 * caller could name.
 */
static int gmon_open(struct hwp_out *o, const char *path)
{
	int ret = hwp_out_open(o, path);

	if (ret == HWP_OUT_NOTREG)
		return S_ISLNK(o->found) ? -ELOOP : HWP_GMON_NOTREG;
	if (!ret && o->found && getauxval(AT_SECURE))
		return -EEXIST;
	return ret ? ret : hwp_out_temp(o);
}

int hwp_gmon_write(const char *path, const struct hwp_gmon_range *r, size_t nr,
		   uint32_t bytes_per_bin, const struct hwp_env *env, size_t *written)
{
	static const char cookie[4] = { 'g', 'm', 'o', 'n' };
	char spare[12] = { 0 }, dimen[15];
	struct main_obj m = { 0 };
	int32_t version = 1, rate = 1;
	char abbrev = '#';
	struct hwp_out o;
	int ret = 0;
	FILE *f;

	*written = 0;
	dl_iterate_phdr(main_cb, &m);
	if (!m.found)
		return -ENOENT;
	memset(dimen, 0, sizeof(dimen));
	if (env->clock && env->period) {
		uint64_t p = hwp_attr_applied_period(1, env->period);

		rate = (int32_t)((1000000000ull + p / 2) / p);
		strcpy(dimen, "seconds");
		abbrev = 's';
	} else {
		strcpy(dimen, "samples");
	}
	ret = gmon_open(&o, path);
	f = ret ? NULL : hwp_out_stream(&o);
	if (!f) {
		ret = ret ? ret : -errno;
		hwp_out_close(&o);
		return ret;
	}
	ret = put(f, cookie, 4);
	ret = ret ? ret : put(f, &version, 4);
	ret = ret ? ret : put(f, spare, sizeof(spare));
	for (size_t i = 0; !ret && i < nr; i++) {
		const struct hwp_gmon_range *g = &r[i];
		uint64_t max = 0, low, high;
		int32_t nb = (int32_t)g->nbins;

		/* gprof knows only the main program's symbols */
		if (g->lo < m.img_lo || g->lo >= m.img_hi)
			continue;
		for (size_t b = 0; b < g->nbins; b++)
			if (g->counts[b] > max)
				max = g->counts[b];
		low = g->lo - m.bias;
		high = low + (uint64_t)g->nbins * bytes_per_bin;
		for (uint64_t k = 0; !ret && (k == 0 || k * 65535 < max); k++) {
			unsigned char tag = 0;

			ret = put(f, &tag, 1);
			ret = ret ? ret : put(f, &low, sizeof(low));
			ret = ret ? ret : put(f, &high, sizeof(high));
			ret = ret ? ret : put(f, &nb, 4);
			ret = ret ? ret : put(f, &rate, 4);
			ret = ret ? ret : put(f, dimen, sizeof(dimen));
			ret = ret ? ret : put(f, &abbrev, 1);
			for (size_t b = 0; !ret && b < g->nbins; b++) {
				uint64_t c = g->counts[b] > k * 65535 ?
						     g->counts[b] - k * 65535 :
						     0;
				uint16_t v = (uint16_t)(c > 65535 ? 65535 : c);

				ret = put(f, &v, 2);
			}
		}
		if (!ret)
			(*written)++;
	}
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret)
		ret = hwp_out_commit(&o, getauxval(AT_SECURE) ? HWP_OUT_NOREPLACE : 0);
	hwp_out_close(&o);
	return ret;
}
