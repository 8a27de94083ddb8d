/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank_job.c — slurm_load_job/slurm_update_job glue of spank_hetsched; see
 * spank_job.h. Runs in slurmstepd as root: the listener thread calls
 * hs_spank_job_publish() (at a bounded rate), the step start calls
 * hs_spank_job_load(). Nothing here opens a file. */
#include "spank_job.h"

#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <string.h>

#include "compat/hs_spank.h"
#include "report/gres.h"

/* Index of node in the job's node list, -1 if absent. */
static int node_index(const char *nodes, const char *node)
{
	hs_hostlist_t hl;
	int i;

	if (!nodes || !node || !*node)
		return -1;
	hl = slurm_hostlist_create(nodes);
	if (!hl)
		return -1;
	i = slurm_hostlist_find(hl, node);
	slurm_hostlist_destroy(hl);
	return i;
}

static void set_seed(hs_spank_job_t *j, const char *admin_comment)
{
	const hs_record_thr_t *e;
	hs_record_t r;
	hs_err_t err;

	if (!hs_record_is_ours(admin_comment)) {
		slurm_info("spank/hetsched: job %u: AdminComment is not a hetsched record; "
			   "it is left alone and no throughput is published", j->job_id);
		j->foreign_logged = 1;
		return;
	}
	if (hs_record_parse(&r, admin_comment, &err) < 0) {
		slurm_error("spank/hetsched: job %u: %s; starting a new record", j->job_id, err.msg);
		return;
	}
	e = j->key[0] ? hs_record_thr_find(&r, j->key) : NULL;
	if (e) {
		j->seed_sps = e->sps;
		j->seed_n = e->n;
	}
}

/* Sets gpu, key and shared from a GPU type string of the allocation. */
static void set_gpu(hs_spank_job_t *j, const char *gres_detail)
{
	j->gpu[0] = j->key[0] = '\0';
	j->shared = 0;
	if (gres_detail && hs_gres_gpu_type(gres_detail, j->gpu, sizeof(j->gpu), &j->shared) == 0) {
		size_t n = strlen(j->gpu);

		/* the key is the type, with ":shared" for a shard of a GPU */
		if (n + (j->shared ? 7 : 0) < sizeof(j->key)) {
			memcpy(j->key, j->gpu, n + 1);
			if (j->shared)
				memcpy(j->key + n, ":shared", 8);
		}
		if (!hs_record_gpu_valid(j->key))
			j->gpu[0] = j->key[0] = '\0';
	}
}

int hs_spank_job_cache_format(const hs_spank_job_t *j, char *buf, size_t size)
{
	int n = snprintf(buf, size, "hs1 rc=%u shared=%d gpu=%s\n", j->restart_count,
			 j->shared ? 1 : 0, j->gpu);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int hs_spank_job_cache_parse(hs_spank_job_t *j, const char *text)
{
	char gpu[HS_RECORD_GPU_MAX] = "";
	unsigned rc;
	int shared, end = 0;

	/* root wrote it in a directory only root can write, but it is
	 * still parsed as strictly as any input */
	if (sscanf(text, "hs1 rc=%u shared=%d gpu=%n", &rc, &shared, &end) != 2 || !end ||
	    (shared != 0 && shared != 1))
		return -1;
	text += end;
	{
		size_t n = strcspn(text, "\n");

		if (n >= sizeof(gpu) || strcmp(text + n, "\n") != 0)
			return -1;
		memcpy(gpu, text, n);
		gpu[n] = '\0';
	}
	if (gpu[0]) {
		/* the key as set_gpu() makes it: "type" or "type:shared" */
		char key[HS_RECORD_GPU_MAX];
		int n = snprintf(key, sizeof(key), "%s%s", gpu, shared ? ":shared" : "");

		if (n < 0 || (size_t)n >= sizeof(key) || !hs_record_gpu_valid(key))
			return -1;
		memcpy(j->key, key, (size_t)n + 1);
	} else {
		j->key[0] = '\0';
		shared = 0;
	}
	memcpy(j->gpu, gpu, sizeof(gpu));
	j->shared = shared;
	if (rc > j->restart_count)
		j->restart_count = rc;
	return 0;
}

int hs_spank_job_load(hs_spank_job_t *j)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *ji;
	int idx;

	if (hs_slurm_load_job(&msg, j->job_id, SHOW_DETAIL) != SLURM_SUCCESS || !msg ||
	    msg->record_count < 1) {
		slurm_error("spank/hetsched: job %u: cannot load the job from slurmctld: %s",
			    j->job_id, slurm_strerror(hs_slurm_errno()));
		if (msg)
			slurm_free_job_info_msg(msg);
		return -1;
	}
	ji = &msg->job_array[0];
	/* slurmstepd fills S_SLURM_RESTART_COUNT for srun steps only */
	if (ji->restart_cnt > j->restart_count)
		j->restart_count = ji->restart_cnt;
	idx = node_index(ji->nodes, j->node);
	set_gpu(j, idx >= 0 && (uint32_t)idx < ji->gres_detail_cnt && ji->gres_detail_str ?
		   ji->gres_detail_str[idx] : NULL);
	set_seed(j, ji->admin_comment);
	j->seeded = 1;
	slurm_free_job_info_msg(msg);
	return 0;
}

int hs_spank_job_seed(hs_spank_job_t *j)
{
	job_info_msg_t *msg = NULL;

	if (hs_slurm_load_job(&msg, j->job_id, 0) != SLURM_SUCCESS || !msg || msg->record_count < 1) {
		slurm_error("spank/hetsched: job %u: cannot load the job from slurmctld: %s; "
			    "the estimate starts afresh", j->job_id, slurm_strerror(hs_slurm_errno()));
		if (msg)
			slurm_free_job_info_msg(msg);
		return -1;
	}
	set_seed(j, msg->job_array[0].admin_comment);
	j->seeded = 1;
	slurm_free_job_info_msg(msg);
	return 0;
}

/* Applies the listener state to the record r. */
static void merge(const hs_spank_job_t *j, const hs_listener_state_t *st, hs_record_t *r)
{
	hs_record_hist_add(r, j->key, j->restart_count, j->start_t);
	if (st->new_samples > 0 && st->n > 0)
		hs_record_thr_set(r, j->key, st->ema, st->n, st->sample_t);
	if (st->has_step && (!r->has_step || st->step_t >= r->t)) {
		r->has_step = 1;
		r->step = st->step;
		r->t = st->step_t;
		r->has_samples = st->has_samples;
		r->samples = st->has_samples ? st->samples : 0;
	}
	/* the model names the job's learned kind (--from-sacct); a step
	 * without the option keeps what an earlier one recorded */
	if (j->model[0])
		memcpy(r->model, j->model, sizeof(r->model));
	if (st->has_ckpt && (!r->has_ckpt || st->ckpt_t >= r->ckpt_t)) {
		r->has_ckpt = 1;
		r->ckpt_step = st->ckpt;
		r->ckpt_t = st->ckpt_t;
	}
}

int hs_spank_job_publish(void *arg, const hs_listener_state_t *st, hs_publish_why_t why)
{
	hs_spank_job_t *j = arg;
	job_info_msg_t *msg = NULL;
	job_desc_msg_t desc;
	char text[HS_RECORD_MAX_BYTES + 1];
	const char *cur;
	hs_record_t r;
	hs_err_t err;
	int rc;

	(void)why;
	if (hs_slurm_load_job(&msg, j->job_id, 0) != SLURM_SUCCESS || !msg || msg->record_count < 1) {
		slurm_debug("spank/hetsched: job %u: cannot load the job (%s); publish later",
			    j->job_id, slurm_strerror(hs_slurm_errno()));
		if (msg)
			slurm_free_job_info_msg(msg);
		return -1;
	}
	cur = msg->job_array[0].admin_comment;
	if (!hs_record_is_ours(cur)) {
		if (!j->foreign_logged)
			slurm_info("spank/hetsched: job %u: AdminComment is not a hetsched record; "
				   "it is left alone", j->job_id);
		j->foreign_logged = 1;
		slurm_free_job_info_msg(msg);
		return 0;  /* nothing to retry */
	}
	if (hs_record_parse(&r, cur, &err) < 0) {
		slurm_error("spank/hetsched: job %u: %s; writing a new record", j->job_id, err.msg);
		hs_record_init(&r);
	}
	merge(j, st, &r);
	rc = hs_record_format(&r, text, sizeof(text), &err);
	if (rc < 0) {
		slurm_error("spank/hetsched: job %u: %s", j->job_id, err.msg);
		slurm_free_job_info_msg(msg);
		return 0;
	}
	if (cur && !strcmp(cur, text)) {
		slurm_free_job_info_msg(msg);
		return 0;
	}
	slurm_free_job_info_msg(msg);
	slurm_init_job_desc_msg(&desc);
	hs_job_desc_set_id(&desc, j->job_id);
	desc.admin_comment = text;
	if (slurm_update_job(&desc) != SLURM_SUCCESS) {
		/* the job ended (e.g. its node was declared dead while this
		 * step still runs): the record can no longer change, and
		 * retrying only loads slurmctld */
		if (hs_slurm_errno() == ESLURM_ALREADY_DONE ||
		    hs_slurm_errno() == ESLURM_INVALID_JOB_ID) {
			slurm_debug("spank/hetsched: job %u: ended, AdminComment not updated",
				    j->job_id);
			return 0;
		}
		/* e.g. while slurmstepd runs with the user's privileges (task
		 * launch): the update is refused and retried later */
		slurm_debug("spank/hetsched: job %u: AdminComment update failed: %s",
			    j->job_id, slurm_strerror(hs_slurm_errno()));
		return -1;
	}
	return 0;
}
