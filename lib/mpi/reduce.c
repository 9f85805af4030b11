/* SPDX-License-Identifier: MIT */
/*
 * The ranks' profiles reduced to rank 0 with MPI point-to-point messages
 * over a binomial tree (libhwprof-mpi(7), "Scale"): in round k a rank
 * whose bit k is set sends what its subtree holds to the rank 2^k below
 * and is done; the others merge what they receive. A message is the union
 * of its subtree's keys, sorted, so a merge is one linear pass and rank 0
 * holds the job's union, never P copies of it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../hist/sat.h"
#include "hwpmpi.h"

#define TAG 0x6877 /* on the library's own communicator */

uint64_t hwp_mpi_objhash(const char *bid, const char *path, uint64_t size)
{
	const char *s = bid && *bid ? bid : path ? path : "";
	uint64_t h = 0xcbf29ce484222325ull;

	h = (h ^ (unsigned char)(bid && *bid ? 'b' : 'p')) * 0x100000001b3ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	if (!(bid && *bid))
		for (int i = 0; i < 8; i++, size >>= 8)
			h = (h ^ (size & 0xff)) * 0x100000001b3ull;
	return h ? h : 1; /* 0 is "no object" */
}

uint64_t hwp_mpi_nodehash(uint64_t parent, uint64_t obj, uint64_t addr)
{
	uint64_t v[3] = { parent, obj, addr }, h = 0xcbf29ce484222325ull;

	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 8; b++, v[i] >>= 8)
			h = (h ^ (v[i] & 0xff)) * 0x100000001b3ull;
	return h ? h : 1; /* 0 is "no parent" */
}

static int cmp_key(const struct hwp_mpi_ent *a, const struct hwp_mpi_ent *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	return cmp_key(a, b);
}

void hwp_mpi_sort(struct hwp_mpi_prof *p)
{
	size_t o = 0;

	qsort(p->ents, p->nents, sizeof(*p->ents), cmp_ent);
	for (size_t i = 0; i < p->nents; i++) {
		if (o && !cmp_key(&p->ents[o - 1], &p->ents[i])) {
			struct hwp_mpi_ent *e = &p->ents[o - 1];

			/* one rank's counts of one key: min = max = sum (a
			 * node's min and max are its frame and parent) */
			e->sum = hwp_add_sat(e->sum, p->ents[i].sum);
			if (e->kind != HWP_MPI_NODE)
				e->min = e->max = e->sum;
			continue;
		}
		p->ents[o++] = p->ents[i];
	}
	p->nents = o;
}

void hwp_mpi_free(struct hwp_mpi_prof *p)
{
	for (size_t i = 0; i < p->nobjs; i++) {
		free(p->objs[i].bid);
		free(p->objs[i].path);
	}
	free(p->objs);
	free(p->ents);
	memset(p, 0, sizeof(*p));
}

const struct hwp_mpi_ent *hwp_mpi_find(const struct hwp_mpi_prof *p, uint32_t kind,
				       uint64_t obj, uint64_t addr)
{
	struct hwp_mpi_ent k = { .obj = obj, .addr = addr, .kind = kind };

	return bsearch(&k, p->ents, p->nents, sizeof(k), cmp_ent);
}

/* ------------------------------------------------------------------ */
/* Messages: a header, the objects, the entries                         */

struct hdr {
	uint64_t objbytes; /* bytes of object records */
	uint64_t nents;
};

/* An object record: hash, size, build-id length, path length, the two
 * strings (no NULs). */
struct orec {
	uint64_t hash, size;
	uint32_t bidlen, pathlen;
};

static size_t obj_bytes(const struct hwp_mpi_obj *o)
{
	return sizeof(struct orec) + (o->bid ? strlen(o->bid) : 0) + strlen(o->path);
}

/* Where the entries start in a message: after the header and the object
 * records, aligned, so that a receive buffer (malloc'd) holds them as an
 * array to merge from in place. */
static size_t ents_at(uint64_t objbytes)
{
	return (sizeof(struct hdr) + objbytes + 15) & ~(size_t)15;
}

static char *pack(const struct hwp_mpi_prof *p, size_t *len)
{
	struct hdr h = { 0, p->nents };
	char *buf, *q;

	for (size_t i = 0; i < p->nobjs; i++)
		h.objbytes += obj_bytes(&p->objs[i]);
	*len = ents_at(h.objbytes) + h.nents * sizeof(struct hwp_mpi_ent);
	buf = calloc(1, *len); /* the padding before the entries zeroed */
	if (!buf)
		return NULL;
	memcpy(buf, &h, sizeof(h));
	q = buf + sizeof(h);
	for (size_t i = 0; i < p->nobjs; i++) {
		const struct hwp_mpi_obj *o = &p->objs[i];
		struct orec r = { o->hash, o->size, o->bid ? (uint32_t)strlen(o->bid) : 0,
				  (uint32_t)strlen(o->path) };

		memcpy(q, &r, sizeof(r));
		q += sizeof(r);
		memcpy(q, o->bid ? o->bid : "", r.bidlen);
		q += r.bidlen;
		memcpy(q, o->path, r.pathlen);
		q += r.pathlen;
	}
	if (h.nents)
		memcpy(buf + ents_at(h.objbytes), p->ents,
		       h.nents * sizeof(struct hwp_mpi_ent));
	return buf;
}

static int has_obj(const struct hwp_mpi_prof *p, uint64_t hash)
{
	for (size_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].hash == hash)
			return 1;
	return 0;
}

/* Adds the objects of a message that p does not have. 0, or -1. */
static int take_objs(struct hwp_mpi_prof *p, const char *q, size_t bytes)
{
	const char *end = q + bytes;

	while (q < end) {
		struct orec r;
		struct hwp_mpi_obj *no;

		if ((size_t)(end - q) < sizeof(r))
			return -1;
		memcpy(&r, q, sizeof(r));
		q += sizeof(r);
		if ((size_t)(end - q) < (size_t)r.bidlen + r.pathlen)
			return -1;
		if (!has_obj(p, r.hash)) {
			no = realloc(p->objs, (p->nobjs + 1) * sizeof(*no));
			if (!no)
				return -1;
			p->objs = no;
			no = &p->objs[p->nobjs];
			no->bid = r.bidlen ? strndup(q, r.bidlen) : NULL;
			no->path = strndup(q + r.bidlen, r.pathlen);
			if (!no->path || (r.bidlen && !no->bid)) {
				free(no->bid);
				free(no->path);
				return -1;
			}
			no->hash = r.hash;
			no->size = r.size;
			p->nobjs++;
		}
		q += r.bidlen + r.pathlen;
	}
	return 0;
}

/*
 * Two subtrees' spreads of one key: counts add; the min is 0 unless both
 * saw the key on every rank (a subtree without it has a rank with 0,
 * and its own min is already 0 when one of its ranks had none).
 */
static void combine(struct hwp_mpi_ent *a, const struct hwp_mpi_ent *b)
{
	a->sum = hwp_add_sat(a->sum, b->sum);
	if (a->kind == HWP_MPI_NODE) { /* min and max: the path's frame */
		a->ranks += b->ranks;
		return;
	}
	a->min = a->min < b->min ? a->min : b->min;
	if (b->max > a->max || (b->max == a->max && b->maxrank < a->maxrank)) {
		a->max = b->max;
		a->maxrank = b->maxrank;
	}
	a->ranks += b->ranks;
}

/* p = p + the entries e[0..n), both sorted. 0, or -1. */
static int merge_ents(struct hwp_mpi_prof *p, const struct hwp_mpi_ent *e, size_t n)
{
	struct hwp_mpi_ent *out = malloc((p->nents + n + 1) * sizeof(*out));
	size_t i = 0, j = 0, k = 0;

	if (!out)
		return -1;
	while (i < p->nents || j < n) {
		int c = i == p->nents ? 1 : j == n ? -1 : cmp_key(&p->ents[i], &e[j]);

		if (c < 0) {
			out[k] = p->ents[i++];
			if (out[k].kind != HWP_MPI_NODE)
				out[k].min = 0; /* the other subtree had none */
			k++;
		} else if (c > 0) {
			out[k] = e[j++];
			if (out[k].kind != HWP_MPI_NODE)
				out[k].min = 0;
			k++;
		} else {
			out[k] = p->ents[i++];
			combine(&out[k++], &e[j++]);
		}
	}
	free(p->ents);
	p->ents = out;
	p->nents = k;
	return 0;
}

static int unpack_merge(struct hwp_mpi_prof *p, const char *buf, size_t len)
{
	struct hdr h;
	const char *q = buf + sizeof(h);

	if (len < sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (h.objbytes > len || ents_at(h.objbytes) > len ||
	    h.nents != (len - ents_at(h.objbytes)) / sizeof(struct hwp_mpi_ent) ||
	    (len - ents_at(h.objbytes)) % sizeof(struct hwp_mpi_ent))
		return -1;
	if (take_objs(p, q, h.objbytes))
		return -1;
	return merge_ents(p,
			  (const struct hwp_mpi_ent *)(const void *)(buf +
								     ents_at(h.objbytes)),
			  h.nents);
}

/*
 * A child's message in two steps, so that a parent that cannot take it
 * says so before it is sent: the child sends a header (its length, or
 * "bad"); the parent answers go (it has room) or no-go; only on go does
 * the body follow. A receive never has to drop a message it cannot hold.
 * Every rank sends its header whatever went wrong before, so no parent
 * waits for ever; a failed MPI call makes the result bad, never a rank
 * that leaves the protocol early.
 */
struct announce {
	uint64_t len;
	uint64_t bad;
};

static int send_up(MPI_Comm comm, int parent, struct hwp_mpi_prof *p, int bad)
{
	struct announce a = { 0, 1 };
	size_t len = 0;
	char *buf = bad ? NULL : pack(p, &len);
	int go = 0;

	if (buf && len <= INT_MAX)
		a = (struct announce){ len, 0 };
	if (PMPI_Send(&a, sizeof(a), MPI_BYTE, parent, TAG, comm) != MPI_SUCCESS)
		a.bad = 1;
	else if (!a.bad && (PMPI_Recv(&go, 1, MPI_INT, parent, TAG, comm, MPI_STATUS_IGNORE) !=
				    MPI_SUCCESS ||
			    (go && PMPI_Send(buf, (int)len, MPI_BYTE, parent, TAG, comm) !=
					   MPI_SUCCESS)))
		a.bad = 1;
	free(buf);
	hwp_mpi_free(p);
	return a.bad || !go ? -1 : 0;
}

/* Takes the child's message into p; returns 1 when the result is bad. */
static int take_child(MPI_Comm comm, int child, struct hwp_mpi_prof *p, int bad)
{
	struct announce a;
	char *buf = NULL;
	int go;

	if (PMPI_Recv(&a, sizeof(a), MPI_BYTE, child, TAG, comm, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return 1;
	if (a.bad)
		return 1; /* the child sends nothing more */
	if (!bad && a.len >= sizeof(struct hdr) && a.len <= INT_MAX)
		buf = malloc(a.len);
	go = buf != NULL;
	if (PMPI_Send(&go, 1, MPI_INT, child, TAG, comm) != MPI_SUCCESS || !go ||
	    PMPI_Recv(buf, (int)a.len, MPI_BYTE, child, TAG, comm, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS ||
	    unpack_merge(p, buf, a.len))
		bad = 1;
	free(buf);
	return bad;
}

int hwp_mpi_reduce(MPI_Comm comm, struct hwp_mpi_prof *p, int bad)
{
	int rank, size;

	if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
	    PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
		return -1;
	for (int step = 1; step < size; step <<= 1) {
		if (rank & step)
			return send_up(comm, rank - step, p, bad);
		if (rank + step < size && take_child(comm, rank + step, p, bad))
			bad = 1;
	}
	return bad ? -1 : 0;
}
