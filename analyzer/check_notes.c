// SPDX-License-Identifier: MIT
/*
 * The checks of gmprof check that never fail (check.h, gmp_gate__notes):
 * what the other checks rest on, where there is something to say.
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "cmds.h"
#include "input.h"
#include "session.h"

/*
 * Never fails: where the detector merged graph launches whose kernel nodes'
 * accesses mixed, or counted those of launches that reported no access as
 * unknown, the pattern checks rest on that (findings may be missed, none
 * made up: docs/known-limits.md, CUDA graphs); likewise where unmonitored
 * launches began while another thread's graph launch held their kernel's
 * buffer as its data (META graph_data_crossed_bare).
 */
static void graphs(struct gmp_gate *g)
{
	char buf[1024];
	const struct gmp_result *r = g->s->r;
	const int bare = gmp_trace__meta(r->trace, "graph_data_crossed_bare") != NULL; /* collector/graphdata.c */
	if ((r->graph_launches_merged || r->graph_launches_lost || bare) && gmp_report__graph_words(r, buf, sizeof(buf)))
		gmp_gate__add(g, "graphs", 0, "%s", buf);
}

/*
 * Never fails, as graphs: kernel nodes of CUDA graphs that ran while the
 * program had tensor maps, and maps the collector dropped (it keeps the
 * latest), whose reads through them were not seen (META tensor_maps).
 */
static void tensor_maps(struct gmp_gate *g)
{
	struct gmp_tmaps m;
	if (!gmp_tmaps__of(g->s->in.trace, &m) || !(m.nodes || m.forgotten))
		return;
	char nodes[128] = "", dropped[128] = "";
	if (m.nodes)
		snprintf(nodes, sizeof(nodes), "%" PRIu64 " kernel node launch%s of CUDA graphs ran while the program had "
			 "tensor maps", m.nodes, m.nodes == 1 ? "" : "es");
	if (m.forgotten)
		snprintf(dropped, sizeof(dropped), "the collector dropped the program's %" PRIu64 " oldest tensor map%s "
			 "(it keeps the latest)", m.forgotten, m.forgotten == 1 ? "" : "s");
	gmp_gate__add(g, "tensor_maps", 0, "%s%s%s: what %s read through the maps is not seen, so findings on those "
		      "objects may be wrong", nodes, *nodes && *dropped ? ", and " : "", dropped,
		      *nodes && !*dropped ? "they" : "launches");
}

/*
 * Never fails: what stream-ordered memory pools held reserved at most (the
 * device held that beside the objects' peak, as far as their cache goes).
 */
static void pools(struct gmp_gate *g)
{
	const struct gmp_result *r = g->s->r;
	struct gmp_check *c = NULL;
	char w[256];
	for (size_t i = 0; i < r->ndevices; i++) {
		if (!gmp_text__pool_words(r->trace, r->devices[i].device, w, sizeof(w)))
			continue;
		if (!c) {
			c = gmp_gate__add(g, "pools", 0, "%s", w);
		} else {
			char more[300];
			snprintf(more, sizeof(more), "  %s", w);
			gmp_check__more(c, more);
		}
	}
}

/*
 * Never fails: objects of memory shared between processes, whose bytes
 * (imported) the budgets leave out, and whose findings the pattern checks
 * do not get (the detector left them out: gmp_result.nshared).
 */
static void shared(struct gmp_gate *g)
{
	char buf[768];
	const struct gmp_result *r = g->s->r;
	if (!gmp_report__shared_words(r, buf, sizeof(buf)))
		return;
	struct gmp_check *c = gmp_gate__add(g, "shared", 0, "%s", buf);
	if (r->nshared) {
		snprintf(buf, sizeof(buf), "  %zu finding%s on them left out", r->nshared, r->nshared == 1 ? "" : "s");
		gmp_check__more(c, buf);
	}
}

void gmp_gate__notes(struct gmp_gate *g)
{
	graphs(g);
	tensor_maps(g);
	pools(g);
	shared(g);
}
