/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_learned_sacct.c — `hetsched learned --from-sacct`: a learned table
 * built from accounting history (sched/learn_sacct.h), from a file of
 * sacct's output or from sacct itself, printed (Gavel's format or as
 * stored) or merged into a table or a state file (--into). */
#include "cli/commands.h"
#include "sched/learn_sacct.h"
#include "sched/statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct opts {
	const char *in;            /* NULL = run sacct, "-" = stdin */
	const char *into;          /* table or state file to merge into */
	const char *delim;         /* NULL: "|" for a file, random for sacct */
	const char *since;         /* sacct -S */
	hs_learn_scope_t scope;
	long min_n, max_kinds;
	int raw;
} opts_t;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hetsched learned --from-sacct [FILE|-] [--delimiter D] [--since TIME]\n"
		"         [--scope user|account|site] [--max-kinds N] [--into TABLE]\n"
		"         [--min-samples N] [--raw]\n"
		"  FILE             output of: sacct -a -X -n -P [--delimiter=D] -S TIME -E now\n"
		"                     -o " HS_LEARN_SACCT_FIELDS "\n"
		"                   (no FILE: runs that sacct itself, with a random delimiter)\n"
		"  --delimiter D    the field delimiter of FILE (default '|')\n"
		"  --since TIME     sacct's -S when it runs sacct (default now-90days)\n"
		"  --scope S        LearnScope of the plugin (default user)\n"
		"  --max-kinds N    LearnMaxKinds of the plugin (default 4096)\n"
		"  --into TABLE     merge into TABLE (a learned table or StateSaveLocation/\n"
		"                   " HS_STATE_FILE ", slurmctld stopped) and write it back\n"
		"  --min-samples N  printed rates rest on N samples or more (default 1)\n"
		"  --raw            print the table as stored, not in Gavel's format\n");
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
	*o = (opts_t){ .since = "now-90days", .min_n = 1, .max_kinds = HS_LEARN_DEFAULT_KINDS };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--from-sacct")) {
			/* an optional FILE: the next word unless it is an option */
			if (v && (!strcmp(v, "-") || v[0] != '-'))
				o->in = argv[++i];
		} else if (!strcmp(a, "--raw")) {
			o->raw = 1;
		} else if (!v) {
			return -1;
		} else if (!strcmp(a, "--delimiter") && *v && strlen(v) < 64) {
			o->delim = argv[++i];
		} else if (!strcmp(a, "--since") && *v && v[0] != '-') {
			o->since = argv[++i];
		} else if (!strcmp(a, "--into")) {
			o->into = argv[++i];
		} else if (!strcmp(a, "--scope")) {
			static const char *const sc[] = { "user", "account", "site" };
			int k = -1;
			for (int s = 0; s < 3; s++)
				if (!strcmp(v, sc[s]))
					k = s;
			if (k < 0)
				return -1;
			o->scope = (hs_learn_scope_t)k;
			i++;
		} else if (!strcmp(a, "--min-samples")) {
			if (parse_long(argv[++i], 1, 1000000000, &o->min_n) < 0)
				return -1;
		} else if (!strcmp(a, "--max-kinds")) {
			if (parse_long(argv[++i], 16, 1000000, &o->max_kinds) < 0)
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* A delimiter no user could have known when naming a job (learn_sacct.h):
 * 16 random hex digits between '|'. */
static int random_delim(char *buf, size_t len)
{
	unsigned char r[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(buf, len, "|%02x%02x%02x%02x%02x%02x%02x%02x|", r[0], r[1], r[2], r[3], r[4],
		 r[5], r[6], r[7]);
	return 0;
}

/* Runs sacct with its output on a pipe; *pid its process. */
static FILE *run_sacct(const char *delim, const char *since, pid_t *pid)
{
	int fd[2];
	if (pipe(fd) < 0)
		return NULL;
	char dopt[128], sopt[128];
	snprintf(dopt, sizeof(dopt), "--delimiter=%s", delim);
	snprintf(sopt, sizeof(sopt), "--starttime=%s", since);
	char *args[] = { "sacct", "-a", "-X", "-n", "-P", dopt, sopt, "--endtime=now",
			 "-o", HS_LEARN_SACCT_FIELDS, NULL };
	*pid = fork();
	if (*pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (*pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(args[0], args);
		fprintf(stderr, "hetsched learned: cannot run sacct: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	if (!f)
		close(fd[0]);
	return f;
}

/* Reads every line of f into the import. */
static void read_lines(FILE *f, hs_learn_sacct_t *h, hs_learn_t *l)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			n--;
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		(void)hs_learn_sacct_line(h, l, line, (size_t)n);
	}
	free(line);
}

/* Loads --into's table (a state file's "learned", a table, or nothing
 * when the file does not exist); *doc keeps the document to write back. */
static int load_into(const char *path, hs_learn_t *l, json_object **doc)
{
	hs_err_t err = { "" };
	json_object *tab = NULL;
	*doc = NULL;
	int r = hs_json_read(path, doc, &err);
	if (r < 0) {
		fprintf(stderr, "hetsched learned: %s: %s\n", path, err.msg);
		return -1;
	}
	if (r == 0)
		return 0;
	if (!json_object_object_get_ex(*doc, "learned", &tab)) {
		json_object *fmt;
		if (json_object_object_get_ex(*doc, "format", &fmt) &&
		    !strcmp(json_object_get_string(fmt), "hetsched-learned"))
			tab = *doc;
	}
	if (tab && hs_learn_load(l, tab, &err) < 0) {
		fprintf(stderr, "hetsched learned: %s: %s\n", path, err.msg);
		return -1;
	}
	return 0;
}

/* Writes the merged table back: into the state document's "learned", or
 * as a table of its own. */
static int write_into(const char *path, const hs_learn_t *l, json_object *doc)
{
	hs_err_t err = { "" };
	json_object *tab = hs_learn_save(l), *fmt;
	if (!tab)
		return -1;
	int table = !doc || (json_object_object_get_ex(doc, "format", &fmt) &&
			     !strcmp(json_object_get_string(fmt), "hetsched-learned"));
	int rc;
	if (table) {
		rc = hs_json_write_atomic(path, tab, 0600, &err);
		json_object_put(tab);
	} else {
		json_object_object_add(doc, "learned", tab); /* doc owns it */
		rc = hs_json_write_atomic(path, doc, 0600, &err);
	}
	if (rc < 0)
		fprintf(stderr, "hetsched learned: %s: %s\n", path, err.msg);
	return rc;
}

static void summary(const hs_learn_sacct_t *h, const hs_learn_t *l)
{
	fprintf(stderr,
		"hetsched learned: %ld lines, %ld jobs fed %ld samples (%ld refused), "
		"%ld lines fed nothing, %ld samples repeated, %ld not newer than the table, "
		"%ld bad lines skipped; %d kinds\n",
		h->lines, h->jobs, h->samples, h->refused, h->no_data, h->dup, h->old, h->bad,
		l->n);
	if (h->bad)
		fprintf(stderr, "hetsched learned: first bad line: %s\n", h->first_bad);
}

static int import(const opts_t *o, hs_learn_t *l)
{
	char rnd[32];
	const char *delim = o->delim;
	pid_t pid = -1;
	FILE *f;
	if (!o->in) {
		if (!delim && random_delim(rnd, sizeof(rnd)) == 0)
			delim = rnd;
		if (!delim || !(f = run_sacct(delim, o->since, &pid))) {
			fprintf(stderr, "hetsched learned: cannot run sacct\n");
			return -1;
		}
	} else if (!strcmp(o->in, "-")) {
		f = stdin;
	} else if (!(f = fopen(o->in, "r"))) {
		fprintf(stderr, "hetsched learned: %s: %s\n", o->in, strerror(errno));
		return -1;
	}
	hs_learn_sacct_t h;
	hs_err_t err = { "" };
	int rc = hs_learn_sacct_begin(&h, l, o->scope, delim ? delim : "|", (int64_t)time(NULL),
				      &err);
	if (rc == 0)
		read_lines(f, &h, l);
	else
		fprintf(stderr, "hetsched learned: %s\n", err.msg);
	if (f != stdin)
		fclose(f);
	if (pid > 0) {
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "hetsched learned: sacct failed (status %d)\n", st);
			rc = -1;
		}
	}
	if (rc == 0)
		summary(&h, l);
	hs_learn_sacct_end(&h);
	return rc;
}

int hs_cmd_learned_sacct(int argc, char **argv)
{
	opts_t o;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	if (parse_args(argc, argv, &o) < 0) {
		usage(stderr);
		return 2;
	}
	hs_learn_t l;
	hs_learn_init(&l, (int)o.max_kinds);
	json_object *doc = NULL;
	int rc = 1;
	if ((o.into && load_into(o.into, &l, &doc) < 0) || import(&o, &l) < 0)
		goto out;
	if (o.into) {
		rc = write_into(o.into, &l, doc) < 0 ? 1 : 0;
		goto out;
	}
	json_object *out = o.raw ? hs_learn_save(&l) : hs_learn_export(&l, (unsigned)o.min_n);
	if (out) {
		puts(json_object_to_json_string_ext(
			out, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		rc = fflush(stdout) == 0 ? 0 : 1;
		json_object_put(out);
	}
out:
	json_object_put(doc);
	hs_learn_free(&l);
	return rc;
}
