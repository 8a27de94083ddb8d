/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_packmeas.c — a job's samples taken while it shared a GPU are not
 * its alone speed (doc/protocol.md, "Packed jobs"; issue 28 item 4).
 *
 * A packed job (two jobs on the same GPU indices, doc/packing.md) holds
 * what looks like a whole GPU, so the job side cannot tell it shares and
 * reports its pair rate under the plain type key. Taken as the job's
 * alone throughput, that rate lowers the job's estimate there and, fed
 * to the learned table, its kind's: a user who gets a job packed onto a
 * victim's GPU (a false --hs-model under a packed policy) thereby
 * corrupts the victim's estimates. The engine sees the sharing in every
 * snapshot (two running jobs holding one GPU), so it remembers,
 * per job and type, when the job shared, and leaves out of the job's
 * record every rate whose last sample falls in that time or within
 * HS_PACK_FORGET_S after it; until a clean sample comes, the type's
 * estimate is the table's, the learned or the inferred one.
 *
 * Not saved: after a slurmctld restart a job's sharing before it is
 * forgotten (as the job memo is). */
#include "sched/engine_impl.h"
#include "sched/engine_scratch.h"

#include <stdlib.h>
#include <string.h>

/* The job side's rate is an EMA over 5 s windows with weight 0.5
 * (src/report/estimator.c): four windows after the sharing ended, what
 * it saw packed weighs 1/16. */
#define HS_PACK_FORGET_S 20

/* The slot of job i's k-th held GPU, -1 when it is not a managed GPU
 * the node holds (as hs_classify_owners counts owners: a job holding GPUs
 * the snapshot does not model, sc->unmod, may name any index). */
static int held_slot(const hs_snap_t *s, const hs_round_scratch_t *sc, int i, int k, int *type)
{
	const hs_sjob_t *sj = &s->jobs[i];
	int n = sj->held[k].node, g = sj->held[k].gpu;
	int t = !sc->unmod[i] && n >= 0 && n < s->nnodes ? sc->node_type[n] : -1;
	if (t < 0 || g < 0 || g >= s->nodes[n].ngpus || !s->nodes[n].gpu_held[g])
		return -1;
	*type = t;
	return sc->node_base[n] + g;
}

/* Running jobs per managed GPU slot into run[total_gpus]. Running only: a
 * job suspended for time slicing holds its GPUs too (Gandiva, engine
 * plan), but the job running there meanwhile runs alone. */
static void count_running(const hs_snap_t *s, const hs_round_scratch_t *sc, int *run)
{
	memset(run, 0, (size_t)sc->total_gpus * sizeof(int));
	for (int i = 0; i < s->njobs; i++) {
		if (s->jobs[i].state != HS_SJ_RUNNING)
			continue;
		for (int k = 0, t; k < s->jobs[i].nheld; k++) {
			int slot = held_slot(s, sc, i, k, &t);
			if (slot >= 0)
				run[slot]++;
		}
	}
}

/* The type (engine type index) of a GPU running job i shares with
 * another running job, -1 when it shares none. */
static int shared_type(hs_engine_t *e, const hs_snap_t *s, const hs_round_scratch_t *sc,
		       const int *run, int i)
{
	if (s->jobs[i].state != HS_SJ_RUNNING)
		return -1;
	for (int k = 0, t; k < s->jobs[i].nheld; k++) {
		int slot = held_slot(s, sc, i, k, &t);
		if (slot >= 0 && run[slot] >= 2)
			return hs_acct_type_index(e, sc->tnames[t]);
	}
	return -1;
}

/* Job memo m shares a GPU of type t (engine type index) now. */
static void note_shared(hs_jmemo_t *m, int t, int64_t now, int64_t prev)
{
	int slot = -1;
	for (int k = 0; k < HS_PACK_SPANS; k++)
		if (m->pack[k].type1 == t + 1) {
			slot = k;
			break;
		}
	if (slot >= 0) {
		/* still or again: one span from the first time (the
		 * samples in between, alone, are left out too: rare, and
		 * on the safe side) */
		m->pack[slot].end = 0;
		return;
	}
	/* a free span, else the one that ended first */
	slot = 0;
	for (int k = 0; k < HS_PACK_SPANS; k++) {
		if (!m->pack[k].type1) {
			slot = k;
			break;
		}
		if (m->pack[k].end && (!m->pack[slot].end || m->pack[k].end < m->pack[slot].end))
			slot = k;
	}
	m->pack[slot].type1 = (int16_t)(t + 1);
	/* the sharing began after the previous snapshot, which did not see
	 * it: from then on */
	m->pack[slot].first = prev > 0 && prev < now ? prev : now;
	m->pack[slot].end = 0;
}

void hs_packmeas_note(hs_engine_t *e, const hs_snap_t *s, const hs_round_scratch_t *sc)
{
	int *run = malloc(((size_t)sc->total_gpus + 1) * sizeof(int));
	if (!run)
		return; /* out of memory: this round notes nothing */
	count_running(s, sc, run);
	for (int i = 0; i < s->njobs; i++) {
		hs_jmemo_t *m = hs_jmemo_get(e, s->jobs[i].id);
		if (!m)
			continue; /* not a modelled GPU job */
		int t = shared_type(e, s, sc, run, i);
		if (t >= 0 && t < INT16_MAX) {
			note_shared(m, t, s->now, e->pack_prev_t);
			continue;
		}
		/* alone or not running: every open span ends now */
		for (int k = 0; k < HS_PACK_SPANS; k++)
			if (m->pack[k].type1 && !m->pack[k].end)
				m->pack[k].end = s->now;
	}
	free(run);
	e->pack_prev_t = s->now;
}

/* Was a rate of type `gpu` last sampled at t taken while job memo m
 * shared a GPU of that type (or too soon after)? */
static int tainted(const hs_engine_t *e, const hs_jmemo_t *m, const char *gpu, int64_t t)
{
	for (int k = 0; k < HS_PACK_SPANS; k++) {
		int ty = m->pack[k].type1 - 1;
		if (ty < 0 || ty >= e->ntypes || strcmp(e->types[ty], gpu))
			continue;
		if (t >= m->pack[k].first && (!m->pack[k].end || t <= m->pack[k].end + HS_PACK_FORGET_S))
			return 1;
	}
	return 0;
}

const hs_record_t *hs_packmeas_filter(hs_engine_t *e, uint32_t id, const hs_record_t *r,
				      hs_record_t *out)
{
	hs_jmemo_t *m = r && r->nthr > 0 ? hs_jmemo_get(e, id) : NULL;
	int any = 0;
	for (int k = 0; m && k < HS_PACK_SPANS; k++)
		any |= m->pack[k].type1 != 0;
	if (!any)
		return r;
	int drop[HS_RECORD_MAX_TYPES] = { 0 }, ndrop = 0;
	for (int x = 0; x < r->nthr && x < HS_RECORD_MAX_TYPES; x++)
		if ((drop[x] = tainted(e, m, r->thr[x].gpu, r->thr[x].t)))
			ndrop++;
	if (!ndrop)
		return r;
	if (out != r)
		*out = *r;
	int w = 0;
	for (int x = 0; x < out->nthr && x < HS_RECORD_MAX_TYPES; x++)
		if (!drop[x])
			out->thr[w++] = out->thr[x];
	out->nthr = w;
	return out;
}
