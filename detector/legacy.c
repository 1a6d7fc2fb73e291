// SPDX-License-Identifier: MIT
/*
 * The legacy default stream's implicit synchronization (legacy.h), one
 * state machine for the passes that follow it: build.c (an edge per
 * ordering) and clock.c (a wait per ordering).  An op on stream 0 follows
 * the latest work of each blocking stream of its device that has work
 * since stream 0's latest such op (kept on a list: no walk over every
 * stream); an op on a blocking stream follows stream 0's latest op, once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "legacy.h"
#include "util.h"

#define NONE UINT32_MAX

static struct det_ldev *dev_of(struct det_legacy *l, uint32_t device)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->dev[i].device == device)
			return &l->dev[i];
	if (GMP_GROW(l->dev, l->cap, l->n + 1))
		return NULL;
	l->dev[l->n] = (struct det_ldev){ .device = device, .last = NONE };
	return &l->dev[l->n++];
}

int det_legacy_step(struct det_legacy *l, const struct det_lpass *pass, size_t si, uint32_t v,
		    const struct gmp_event *e, int kind)
{
	struct det_ldev *d = dev_of(l, e->device);
	if (!d)
		return -ENOMEM;
	int err;
	if (!e->stream) { /* after each blocking stream's work since the last such op */
		for (size_t i = 0; i < d->n; i++) {
			struct det_lstream *x = pass->state(pass->ctx, d->pending[i]);
			x->pending = 0;
			if ((err = pass->follow(pass->ctx, v, d->pending[i], x->work)))
				return err;
		}
		d->n = 0;
		d->last = v;
		return 0;
	}
	struct det_lstream *s = pass->state(pass->ctx, si);
	if (!s->blocking || kind == 2)
		return 0; /* cudaStreamSynchronize of a blocking stream waits for that stream alone */
	if (d->last != NONE && s->seen != d->last) {
		s->seen = d->last;
		if ((err = pass->follow(pass->ctx, v, SIZE_MAX, d->last)))
			return err;
		s = pass->state(pass->ctx, si); /* follow may have moved the pass's streams */
	}
	s->work = v;
	if (!s->pending) {
		if (GMP_GROW(d->pending, d->cap, d->n + 1))
			return -ENOMEM;
		d->pending[d->n++] = (uint32_t)si;
		s->pending = 1;
	}
	return 0;
}

int det_legacy_setup(struct det_legacy *l, const struct gmp_result *r)
{
	const struct gmp_trace *t = r->trace;
	gmp_u64map__init(&l->blocking);
	for (size_t i = 0; i < t->nstreams; i++)
		if (t->streams[i].number && gmp_stream__blocking(t->streams[i].flags) &&
		    !gmp_u64map__slot(&l->blocking, t->streams[i].number, 1, NULL))
			return -ENOMEM;
	if (!det_legacy_on(l))
		return 0;
	if (!(l->frees = calloc(t->nev / 64 + 1, sizeof(*l->frees))))
		return -ENOMEM;
	for (size_t o = 0; o < r->nobjects; o++) {
		uint32_t f = r->objects[o].free_ev;
		if (r->objects[o].kind == GMP_MEM_ASYNC && f < t->nev)
			l->frees[f >> 6] |= 1ull << (f & 63);
	}
	return 0;
}

void det_legacy_release(struct det_legacy *l)
{
	gmp_u64map__release(&l->blocking);
	free(l->frees);
	for (size_t i = 0; i < l->n; i++)
		free(l->dev[i].pending);
	free(l->dev);
	memset(l, 0, sizeof(*l));
}
