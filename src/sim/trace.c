/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c — Gavel's 10-column trace format: strict reader and writer (see
 * trace.h). Lines are read with getline; fields split on tabs by hand
 * because strtok would merge empty fields, which must be errors here. */
#include "sim/trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/users.h"

/* Gavel's 10 columns, and optional ones of ours: the 11th preemptible (1,
 * the default) or 0 = the job cannot be preempted once started
 * (pinned.h); the 12th its user, the 13th its account (users.h). */
#define NFIELDS 13
#define NFIELDS_GAVEL 10

static const char *field_names[NFIELDS] = {
	"job type", "command", "working directory", "steps argument", "needs data dir",
	"total steps", "scale factor", "priority weight", "SLO", "arrival time",
	"preemptible", "user", "account",
};

void hs_trace_free(hs_trace_t *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->njobs; i++) {
		free(t->jobs[i].model);
		free(t->jobs[i].command);
		free(t->jobs[i].workdir);
		free(t->jobs[i].steps_arg);
		free(t->jobs[i].user);
		free(t->jobs[i].account);
	}
	free(t->jobs);
	memset(t, 0, sizeof(*t));
}

/* A finite number filling the whole field. */
static int parse_double(const char *s, double *out)
{
	if (!*s)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	if (!*s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Total steps: Gavel writes integers, generated traces may carry a
 * fraction; either way a finite number > 0. */
static int parse_line(char *line, int lineno, const char *name, hs_trace_job_t *j, hs_err_t *err)
{
	char *f[NFIELDS];
	int n = 0;
	char *s = line;
	for (;;) {
		if (n == NFIELDS)
			return hs_err_set(err, "%s:%d: more than %d tab-separated fields", name, lineno,
					  NFIELDS);
		f[n++] = s;
		char *tab = strchr(s, '\t');
		if (!tab)
			break;
		*tab = '\0';
		s = tab + 1;
	}
	if (n < NFIELDS_GAVEL)
		return hs_err_set(err, "%s:%d: %d tab-separated fields, expected %d "
				  "(job type, command, working dir, steps argument, needs data dir, "
				  "total steps, scale factor, priority weight, SLO, arrival) to %d "
				  "(and preemptible, user, account)", name, lineno, n, NFIELDS_GAVEL,
				  NFIELDS);
	for (int i = 0; i < 4; i++)
		if (!*f[i])
			return hs_err_set(err, "%s:%d: %s is empty", name, lineno, field_names[i]);
	long v;
	double d;
	if (parse_int(f[4], 0, 1, &v) < 0)
		return hs_err_set(err, "%s:%d: %s must be 0 or 1, not '%.40s'", name, lineno,
				  field_names[4], f[4]);
	j->needs_data_dir = (int)v;
	if (parse_double(f[5], &d) < 0 || d <= 0)
		return hs_err_set(err, "%s:%d: %s must be a number > 0, not '%.40s'", name, lineno,
				  field_names[5], f[5]);
	j->total_steps = d;
	if (parse_int(f[6], 1, 1 << 20, &v) < 0)
		return hs_err_set(err, "%s:%d: %s must be an integer >= 1, not '%.40s'", name,
				  lineno, field_names[6], f[6]);
	j->scale_factor = (int)v;
	if (parse_double(f[7], &d) < 0 || d <= 0)
		return hs_err_set(err, "%s:%d: %s must be a number > 0, not '%.40s'", name, lineno,
				  field_names[7], f[7]);
	j->weight = d;
	if (parse_double(f[8], &d) < 0 || (d <= 0 && d != -1.0))
		return hs_err_set(err, "%s:%d: %s must be -1 (none) or a number > 0, not '%.40s'",
				  name, lineno, field_names[8], f[8]);
	j->slo = d;
	if (parse_double(f[9], &d) < 0 || d < 0)
		return hs_err_set(err, "%s:%d: %s must be a number >= 0, not '%.40s'", name, lineno,
				  field_names[9], f[9]);
	j->arrival_s = d;
	j->pinned = 0;
	if (n > 10) {
		if (parse_int(f[10], 0, 1, &v) < 0)
			return hs_err_set(err, "%s:%d: %s must be 0 or 1, not '%.40s'", name,
					  lineno, field_names[10], f[10]);
		j->pinned = !v;
	}
	for (int k = 11; k < n; k++)
		if (!hs_sim_name_ok(f[k]))
			return hs_err_set(err, "%s:%d: %s must be 1..63 characters of "
					  "[A-Za-z0-9._-], not '%.40s'", name, lineno, field_names[k], f[k]);
	if (n > 11 && !(j->user = strdup(f[11])))
		return hs_err_set(err, "out of memory");
	if (n > 12 && !(j->account = strdup(f[12])))
		return hs_err_set(err, "out of memory");
	j->line = lineno;
	j->model = strdup(f[0]);
	j->command = strdup(f[1]);
	j->workdir = strdup(f[2]);
	j->steps_arg = strdup(f[3]);
	if (!j->model || !j->command || !j->workdir || !j->steps_arg)
		return hs_err_set(err, "out of memory");
	return 0;
}

int hs_trace_read(hs_trace_t *t, FILE *f, const char *name, hs_err_t *err)
{
	memset(t, 0, sizeof(*t));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len > HS_TRACE_MAX_LINE) {
			rc = hs_err_set(err, "%s:%d: line longer than %d bytes", name, lineno,
					HS_TRACE_MAX_LINE);
			break;
		}
		if ((size_t)len != strlen(line)) {
			rc = hs_err_set(err, "%s:%d: line contains a NUL byte", name, lineno);
			break;
		}
		if (strspn(line, " \t") == (size_t)len)
			continue;
		if (t->njobs == t->cap) {
			int nc = t->cap ? 2 * t->cap : 64;
			hs_trace_job_t *nj = realloc(t->jobs, (size_t)nc * sizeof(*nj));
			if (!nj) {
				rc = hs_err_set(err, "out of memory");
				break;
			}
			t->jobs = nj;
			t->cap = nc;
		}
		hs_trace_job_t *j = &t->jobs[t->njobs];
		memset(j, 0, sizeof(*j));
		t->njobs++;
		if (parse_line(line, lineno, name, j, err) < 0) {
			rc = -1;
			break;
		}
		if (t->njobs > 1 && j->arrival_s < t->jobs[t->njobs - 2].arrival_s) {
			rc = hs_err_set(err, "%s:%d: arrival time %g is earlier than the previous "
					"job's %g (traces are sorted by arrival)", name, lineno,
					j->arrival_s, t->jobs[t->njobs - 2].arrival_s);
			break;
		}
	}
	if (rc == 0 && ferror(f))
		rc = hs_err_set(err, "%s: read error", name);
	if (rc == 0 && t->njobs == 0)
		rc = hs_err_set(err, "%s: no jobs", name);
	free(line);
	return rc;
}

int hs_trace_load(hs_trace_t *t, const char *path, hs_err_t *err)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f)
		return hs_err_set(err, "%s: %s", path, strerror(errno));
	int rc = hs_trace_read(t, f, path, err);
	fclose(f);
	return rc;
}

int hs_trace_write_job(FILE *f, const hs_trace_job_t *j)
{
	/* Our columns only when they say something: Gavel's tools read the
	 * rest. */
	int ours = j->pinned || j->user;
	return fprintf(f, "%s\t%s\t%s\t%s\t%d\t%.17g\t%d\t%g\t%f\t%.17g%s%s%s%s%s\n", j->model,
		       j->command, j->workdir, j->steps_arg, j->needs_data_dir, j->total_steps,
		       j->scale_factor, j->weight, j->slo, j->arrival_s,
		       ours ? (j->pinned ? "\t0" : "\t1") : "", j->user ? "\t" : "",
		       j->user ? j->user : "", j->user && j->account ? "\t" : "",
		       j->user && j->account ? j->account : "") < 0 ? -1 : 0;
}
