/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status_private.c — the full and the public status documents under
 * PrivateData=jobs, and the per-user view (see status_private.h). */
#include "sched/status_private.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/statefile.h"

int hs_status_public_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);
	if (n >= 5 && !strcmp(path + n - 5, ".json"))
		n -= 5;
	int w = snprintf(buf, len, "%.*s.public.json", (int)n, path);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* A new object holding references to doc's values; NULL on OOM. */
static json_object *shallow_copy(json_object *doc)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_foreach(doc, key, val)
	{
		json_object_object_add(o, key, json_object_get(val));
	}
	return o;
}

/* A new document: doc without per-job data ("jobs", "ops"), marked
 * "private_jobs": true and "summary": true. NULL on out of memory. */
static json_object *status_summary(json_object *doc)
{
	json_object *sum = shallow_copy(doc);
	if (!sum)
		return NULL;
	/* per-job data (ids, states, reasons, accounts, ops) stays in the
	 * private document; aggregates are not per user */
	json_object_object_del(sum, "jobs");
	json_object_object_del(sum, "ops");
	/* user names with their shares: per user as well (sshare hides
	 * them under PrivateData=usage) */
	json_object_object_del(sum, "entities");
	json_object_object_add(sum, "private_jobs", json_object_new_boolean(1));
	json_object_object_add(sum, "summary", json_object_new_boolean(1));
	return sum;
}

int hs_status_write(const char *path, json_object *doc, int private_jobs, hs_err_t *err)
{
	char pub[4200];
	if (hs_status_public_path(path, pub, sizeof(pub)) < 0)
		return hs_err_set(err, "%s: path too long", path);
	json_object_object_add(doc, "private_jobs", json_object_new_boolean(private_jobs != 0));
	if (!private_jobs) {
		if (hs_json_write_atomic(path, doc, HS_STATUS_MODE_PUBLIC, err) < 0)
			return -1;
		/* a summary from a time with PrivateData=jobs is stale now */
		if (unlink(pub) < 0 && errno != ENOENT)
			return hs_err_set(err, "cannot remove %s: %s", pub, strerror(errno));
		return 0;
	}
	/* the new private file replaces the old one by rename: no moment
	 * where the full document is readable by others */
	if (hs_json_write_atomic(path, doc, HS_STATUS_MODE_PRIVATE, err) < 0)
		return -1;
	json_object *sum = status_summary(doc);
	if (!sum)
		return hs_err_set(err, "out of memory");
	int rc = hs_json_write_atomic(pub, sum, HS_STATUS_MODE_PUBLIC, err);
	json_object_put(sum);
	return rc;
}

/* Removes from the array under key the entries whose "id" is not in
 * keep[nkeep] (nkeep < 0: keep by "user_id" == uid and record the ids). */
static int filter_array(json_object *doc, const char *key, uint32_t uid, int64_t *ids,
			int *nids, int by_user)
{
	json_object *arr = NULL, *kept;
	int removed = 0;
	if (!json_object_object_get_ex(doc, key, &arr) || !json_object_is_type(arr, json_type_array))
		return 0;
	kept = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *j = json_object_array_get_idx(arr, i), *v = NULL;
		int64_t id = json_object_object_get_ex(j, "id", &v) ? json_object_get_int64(v) : -1;
		int keep = 0;
		if (by_user) {
			/* a job without user_id is nobody's: hidden */
			keep = json_object_object_get_ex(j, "user_id", &v) &&
			       json_object_is_type(v, json_type_int) &&
			       json_object_get_int64(v) == (int64_t)uid;
			if (keep && ids)
				ids[(*nids)++] = id;
		} else {
			for (int k = 0; k < *nids && !keep; k++)
				keep = ids[k] == id;
		}
		if (keep)
			json_object_array_add(kept, json_object_get(j));
		else
			removed++;
	}
	json_object_object_add(doc, key, kept);
	return removed;
}

int hs_status_keep_user(json_object *doc, uint32_t uid)
{
	json_object *jobs = NULL;
	size_t n = json_object_object_get_ex(doc, "jobs", &jobs) &&
			   json_object_is_type(jobs, json_type_array)
		   ? json_object_array_length(jobs)
		   : 0;
	int64_t ids_small[1];
	int64_t *ids = n ? calloc(n, sizeof(*ids)) : ids_small;
	int nids = 0;
	int removed = filter_array(doc, "jobs", uid, ids ? ids : NULL, &nids, 1);
	if (ids) {
		filter_array(doc, "ops", uid, ids, &nids, 0);
	} else {
		/* out of memory: no ids to match ops against, drop them all */
		json_object_object_add(doc, "ops", json_object_new_array());
	}
	if (ids != ids_small)
		free(ids);
	/* other users' names and shares: not in one user's view */
	json_object_object_del(doc, "entities");
	return removed;
}

int hs_status_users_dir(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);
	if (n >= 5 && !strcmp(path + n - 5, ".json"))
		n -= 5;
	int w = snprintf(buf, len, "%.*s.users", (int)n, path);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* Is name "<digits>.json" with a uid among uids[n]? */
static int stale_user_file(const char *name, const int64_t *uids, int n)
{
	char *end = NULL;
	errno = 0;
	long long uid = strtoll(name, &end, 10);
	if (end == name || errno || strcmp(end, ".json"))
		return 0; /* not ours: left alone */
	for (int k = 0; k < n; k++)
		if (uids[k] == uid)
			return 0;
	return 1;
}

/* The distinct "user_id"s of doc's jobs (caller frees); -1 = OOM. */
static int doc_users(json_object *doc, int64_t **out)
{
	json_object *jobs = NULL;
	size_t n = json_object_object_get_ex(doc, "jobs", &jobs) &&
			   json_object_is_type(jobs, json_type_array)
		   ? json_object_array_length(jobs)
		   : 0;
	int64_t *u = calloc(n + 1, sizeof(*u));
	if (!u)
		return -1;
	int nu = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *v = NULL;
		if (!json_object_object_get_ex(json_object_array_get_idx(jobs, i), "user_id", &v) ||
		    !json_object_is_type(v, json_type_int))
			continue;
		int64_t id = json_object_get_int64(v);
		int dup = id < 0;
		for (int k = 0; k < nu && !dup; k++)
			dup = u[k] == id;
		if (!dup)
			u[nu++] = id;
	}
	*out = u;
	return nu;
}

int hs_status_write_users(const char *path, json_object *doc, hs_err_t *err)
{
	if (geteuid() != 0)
		return 1; /* cannot give files to users: the summary is all */
	char dir[4200], file[4600];
	if (hs_status_users_dir(path, dir, sizeof(dir)) < 0)
		return hs_err_set(err, "%s: path too long", path);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return hs_err_set(err, "cannot create %s: %s", dir, strerror(errno));
	int64_t *uids = NULL;
	int nu = doc_users(doc, &uids);
	if (nu < 0)
		return hs_err_set(err, "out of memory");
	int rc = 0;
	for (int k = 0; k < nu && rc == 0; k++) {
		/* the document filtered to the user, with the same filter
		 * `hetsched status` applies: a shallow copy sharing doc's
		 * values (the filter replaces "jobs" and "ops" in the copy
		 * only), not a deep copy of every job per user */
		json_object *mine = shallow_copy(doc);
		if (!mine) {
			rc = hs_err_set(err, "out of memory");
			break;
		}
		hs_status_keep_user(mine, (uint32_t)uids[k]);
		snprintf(file, sizeof(file), "%s/%lld.json", dir, (long long)uids[k]);
		rc = hs_json_write_atomic(file, mine, HS_STATUS_MODE_PRIVATE, err);
		json_object_put(mine);
		if (rc == 0 && chown(file, (uid_t)uids[k], (gid_t)-1) < 0)
			rc = hs_err_set(err, "cannot give %s to uid %lld: %s", file,
					(long long)uids[k], strerror(errno));
	}
	DIR *d = rc == 0 ? opendir(dir) : NULL;
	for (struct dirent *de; d && (de = readdir(d));) {
		if (!stale_user_file(de->d_name, uids, nu))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		(void)unlink(file); /* best effort: rewritten or removed next round */
	}
	if (d)
		closedir(d);
	free(uids);
	return rc;
}
