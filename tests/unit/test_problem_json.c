/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_problem_json.c — the JSON problem reader/writer of `hetsched
 * solve`: a full valid problem, a write/read round trip, job types taken
 * from Gavel's table, entity trees (parents), the allocation writer, and a list of malformed
 * inputs that must each be rejected with a message (never a crash). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/problem_json.h"
#include "tests/unit/testdata.h"

static const char *full =
	"{\"cluster\": {\"v100\": 4, \"k80\": 8},"
	" \"prices\": {\"v100\": 2.48, \"k80\": 0.45},"
	" \"reference_type\": \"k80\","
	" \"job_types\": {\"A\": {\"scale_factor\": 1, \"pairs\": {\"B\": {\"v100\": 3.0}}},"
	"                \"B\": {\"pairs\": {\"A\": {\"v100\": 1.5, \"k80\": 0.5}}},"
	"                \"C\": {\"scale_factor\": 2}},"
	" \"entities\": {\"alice\": {\"weight\": 2, \"mode\": \"fifo\"}, \"bob\": {}},"
	" \"jobs\": ["
	"  {\"id\": \"j1\", \"remaining_steps\": 1000, \"throughput\": {\"v100\": 4, \"k80\": 1},"
	"   \"job_type\": \"A\", \"entity\": \"alice\", \"age_s\": 10, \"slo_s\": 3600, \"weight\": 1.5},"
	"  {\"id\": 42, \"scale_factor\": 2, \"remaining_steps\": 5e3, \"job_type\": \"C\","
	"   \"throughput\": {\"v100\": 7.5}, \"entity\": \"bob\"}"
	"]}";

static void parse_full(void **state)
{
	(void)state;
	hs_problem_t p;
	hs_err_t err = { "" };
	if (hs_problem_parse_json(&p, full, strlen(full), NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(p.cluster.ntypes, 2);
	int v = hs_cluster_type_index(&p.cluster, "v100"), k = hs_cluster_type_index(&p.cluster, "k80");
	assert_true(v >= 0 && k >= 0);
	assert_int_equal(p.cluster.count[k], 8);
	assert_true(p.cluster.price[v] == 2.48);
	assert_int_equal(p.reference_type, k);
	assert_int_equal(p.jobtypes.n, 3);
	assert_int_equal(p.jobtypes.scale_factor[2], 2);
	assert_int_equal(p.njobs, 2);
	assert_string_equal(p.jobs[0].id, "j1");
	assert_string_equal(p.jobs[1].id, "42");
	assert_true(p.jobs[0].weight == 1.5 && p.jobs[0].age_s == 10 && p.jobs[0].slo_s == 3600);
	assert_true(p.jobs[1].slo_s < 0);       /* default: none */
	assert_true(p.jobs[1].thr[k] == 0.0);   /* missing type: cannot run */
	assert_true(p.jobs[1].remaining_steps == 5000);
	assert_int_equal(p.jobs[1].scale_factor, 2);
	assert_int_equal(p.entities.n, 2);
	assert_int_equal(p.entities.mode[p.jobs[0].entity], HS_ENTITY_FIFO);
	assert_true(p.entities.weight[p.jobs[1].entity] == 1.0);
	/* pair throughput of an A-job with a B-job on v100 */
	assert_true(hs_job_pair_thr(&p, 0, 1, v) == 3.0);
	hs_problem_free(&p);
}

static void round_trip(void **state)
{
	(void)state;
	hs_problem_t p, q;
	hs_err_t err = { "" };
	assert_int_equal(hs_problem_parse_json(&p, full, strlen(full), NULL, &err), 0);
	char *text = hs_problem_to_json(&p, &err);
	assert_non_null(text);
	if (hs_problem_parse_json(&q, text, strlen(text), NULL, &err) < 0)
		fail_msg("%s\n%s", err.msg, text);
	char *again = hs_problem_to_json(&q, &err);
	assert_string_equal(text, again);
	assert_int_equal(q.njobs, p.njobs);
	for (int m = 0; m < p.njobs; m++)
		for (int j = 0; j < p.cluster.ntypes; j++)
			assert_true(p.jobs[m].thr[j] == q.jobs[m].thr[j]);
	free(text);
	free(again);
	hs_problem_free(&p);
	hs_problem_free(&q);
}

/* An association tree: a child declared before its parent, three
 * levels, jobs on users; the parents survive a write/read round trip and
 * a problem without "parent" has no parent array (flat, as before). */
static const char *tree =
	"{\"cluster\": {\"v100\": 2},"
	" \"entities\": {\"alice\": {\"weight\": 2, \"parent\": \"physics.hep\"},"
	"               \"physics\": {\"weight\": 3},"
	"               \"physics.hep\": {\"parent\": \"physics\"},"
	"               \"bob\": {\"mode\": \"fifo\", \"parent\": \"physics\"},"
	"               \"chem\": {}},"
	" \"jobs\": [{\"id\": \"a\", \"remaining_steps\": 1, \"throughput\": {\"v100\": 1}, \"entity\": \"alice\"},"
	"          {\"id\": \"b\", \"remaining_steps\": 1, \"throughput\": {\"v100\": 1}, \"entity\": \"bob\"},"
	"          {\"id\": \"c\", \"remaining_steps\": 1, \"throughput\": {\"v100\": 1}, \"entity\": \"chem\"}]}";

static int entity_index(const hs_problem_t *p, const char *name)
{
	for (int e = 0; e < p->entities.n; e++)
		if (!strcmp(p->entities.names[e], name))
			return e;
	return -1;
}

static void entity_tree(void **state)
{
	(void)state;
	hs_problem_t p, q;
	hs_err_t err = { "" };
	if (hs_problem_parse_json(&p, tree, strlen(tree), NULL, &err) < 0)
		fail_msg("%s", err.msg);
	int alice = entity_index(&p, "alice"), phys = entity_index(&p, "physics"),
	    hep = entity_index(&p, "physics.hep"), bob = entity_index(&p, "bob"), chem = entity_index(&p, "chem");
	assert_non_null(p.entities.parent);
	assert_int_equal(p.entities.parent[alice], hep);
	assert_int_equal(p.entities.parent[hep], phys);
	assert_int_equal(p.entities.parent[bob], phys);
	assert_int_equal(p.entities.parent[phys], -1);
	assert_int_equal(p.entities.parent[chem], -1);
	assert_true(p.entities.weight[phys] == 3.0 && p.entities.weight[hep] == 1.0);
	assert_int_equal(p.jobs[0].entity, alice);
	char *text = hs_problem_to_json(&p, &err);
	assert_non_null(text);
	if (hs_problem_parse_json(&q, text, strlen(text), NULL, &err) < 0)
		fail_msg("%s\n%s", err.msg, text);
	for (int e = 0; e < p.entities.n; e++) {
		int f = entity_index(&q, p.entities.names[e]);
		int pe = p.entities.parent[e], qf = q.entities.parent[f];
		assert_true(f >= 0);
		if (pe < 0)
			assert_int_equal(qf, -1);
		else
			assert_string_equal(q.entities.names[qf], p.entities.names[pe]);
	}
	char *again = hs_problem_to_json(&q, &err);
	assert_string_equal(text, again);
	free(text);
	free(again);
	hs_problem_free(&p);
	hs_problem_free(&q);
	/* written without parents, a flat problem reads back flat */
	const char *flat = "{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {}}, \"jobs\": []}";
	assert_int_equal(hs_problem_parse_json(&p, flat, strlen(flat), NULL, &err), 0);
	text = hs_problem_to_json(&p, &err);
	assert_null(strstr(text, "parent"));
	free(text);
	hs_problem_free(&p);
}

static void job_types_from_table(void **state)
{
	(void)state;
	char path[4096];
	if (hs_test_gavel_path(path, sizeof(path), "simulation_throughputs.json") < 0)
		skip();
	hs_thrtable_t t;
	hs_err_t err = { "" };
	assert_int_equal(hs_thrtable_load(&t, path, &err), 0);
	const char *in =
		"{\"cluster\": {\"v100\": 1, \"k80\": 2, \"tpu\": 1},"
		" \"jobs\": [{\"id\": \"a\", \"remaining_steps\": 10,"
		"            \"job_type\": \"('ResNet-18 (batch size 16)', 1)\"},"
		"           {\"id\": \"b\", \"remaining_steps\": 10, \"throughput\": {\"tpu\": 3},"
		"            \"job_type\": \"('ResNet-18 (batch size 32)', 1)\"}]}";
	hs_problem_t p;
	if (hs_problem_parse_json(&p, in, strlen(in), &t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(p.jobtypes.n, t.njobtypes);
	int k80 = hs_cluster_type_index(&p.cluster, "k80");
	assert_true(fabs(p.jobs[0].thr[k80] - 4.795294551566172) < 1e-12);
	assert_true(p.jobs[0].thr[hs_cluster_type_index(&p.cluster, "tpu")] == 0.0);
	assert_true(p.jobs[1].thr[k80] == 0.0); /* explicit throughput wins */
	assert_true(fabs(hs_job_pair_thr(&p, 0, p.jobs[1].job_type, k80) - 2.539979567443098) < 1e-12);
	hs_problem_free(&p);
	/* without a table the same input is an error naming the job */
	assert_int_equal(hs_problem_parse_json(&p, in, strlen(in), NULL, &err), -1);
	hs_problem_free(&p);
	hs_thrtable_free(&t);
}

static void alloc_writer(void **state)
{
	(void)state;
	hs_problem_t p;
	hs_err_t err = { "" };
	assert_int_equal(hs_problem_parse_json(&p, full, strlen(full), NULL, &err), 0);
	hs_alloc_t a;
	assert_int_equal(hs_alloc_init(&a, 2, 2, &err), 0);
	a.x[0] = 0.25;
	a.x[1] = 0.5;
	a.objective = 1.5;
	int i = hs_alloc_add_pair(&a, 1, 0, &err);
	assert_true(i >= 0);
	a.pairs[i].x[0] = 0.125;
	char *s = hs_alloc_to_json(&a, &p, "max_min_fairness", 1.25, 0, &err);
	assert_non_null(s);
	json_object *o = json_tokener_parse(s), *f, *g;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "policy", &f));
	assert_string_equal(json_object_get_string(f), "max_min_fairness");
	assert_true(json_object_object_get_ex(o, "objective", &f));
	assert_true(json_object_get_double(f) == 1.5);
	assert_true(json_object_object_get_ex(o, "allocation", &f));
	assert_true(json_object_object_get_ex(f, "j1", &g));
	assert_true(json_object_object_get_ex(g, "v100", &f));
	assert_true(json_object_get_double(f) == 0.25);
	assert_true(json_object_object_get_ex(o, "pairs", &f));
	assert_int_equal(json_object_array_length(f), 1);
	assert_true(json_object_object_get_ex(o, "solve_ms", &f));
	assert_true(json_object_get_double(f) == 1.25);
	/* j1 alone: 0.25 * 4 + 0.5 * 1; with a C-job (no pair entry): + 0 */
	assert_true(json_object_object_get_ex(o, "effective_throughput", &f));
	assert_true(json_object_object_get_ex(f, "j1", &g));
	assert_true(fabs(json_object_get_double(g) - 1.5) < 1e-12);
	json_object_put(o);
	free(s);
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

static void malformed(void **state)
{
	(void)state;
	const char *bad[] = {
		"", "   ", "[]", "42", "{", "{\"cluster\": {\"a\": 1}, \"jobs\": []} x",
		"{\"jobs\": []}",
		"{\"cluster\": {}, \"jobs\": []}",
		"{\"cluster\": {\"a\": -1}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1.5}, \"jobs\": []}",
		"{\"cluster\": {\"a\": \"1\"}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1e30}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": {}}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [], \"extra\": 1}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [3]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"throughput\": {\"a\": 1}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 0, \"throughput\": {\"a\": 1}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"b\": 1}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": -1}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 0}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"scale_factor\": 2}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"scale_factor\": 0}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"weight\": 0}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"age_s\": -1}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"slo_s\": 0}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"job_type\": \"T\"}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"entity\": \"E\"}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"typo\": 1}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}},"
		" {\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}}]}",
		"{\"cluster\": {\"a\": 1}, \"prices\": {\"b\": 1}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"prices\": {\"a\": -1}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"reference_type\": \"b\", \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {\"weight\": -2}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {\"mode\": \"lifo\"}}, \"jobs\": []}",
		/* entity trees: unknown parent, itself, a cycle, a parent that is
		 * not a name, a job on an entity with children */
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {\"parent\": \"f\"}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {\"parent\": \"e\"}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {\"parent\": \"f\"}, \"f\": {\"parent\": \"g\"},"
		" \"g\": {\"parent\": \"e\"}, \"h\": {\"parent\": \"g\"}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {\"parent\": 1}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"entities\": {\"e\": {}, \"u\": {\"parent\": \"e\"}}, \"jobs\": "
		"[{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"entity\": \"e\"}]}",
		"{\"cluster\": {\"a\": 1}, \"job_types\": {\"T\": {\"pairs\": {\"U\": {\"a\": 1}}}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"job_types\": {\"T\": {\"scale_factor\": 1}, \"U\": {\"scale_factor\": 2,"
		" \"pairs\": {\"T\": {\"a\": 1}}}}, \"jobs\": []}",
		"{\"cluster\": {\"a\": 1}, \"job_types\": {\"T\": {\"scale_factor\": 2}}, \"jobs\": "
		"[{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": 1}, \"job_type\": \"T\"}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1, \"throughput\": {\"a\": NaN}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": \"x\", \"remaining_steps\": 1e999, \"throughput\": {\"a\": 1}}]}",
		"{\"cluster\": {\"a\": 1}, \"jobs\": [{\"id\": [1], \"remaining_steps\": 1, \"throughput\": {\"a\": 1}}]}",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hs_problem_t p;
		hs_err_t err = { "" };
		if (hs_problem_parse_json(&p, bad[i], strlen(bad[i]), NULL, &err) != -1)
			fail_msg("accepted malformed problem #%zu: %s", i, bad[i]);
		if (strlen(err.msg) == 0)
			fail_msg("no message for malformed problem #%zu", i);
		hs_problem_free(&p);
	}
	/* an embedded NUL in the text is malformed, not truncated silently */
	const char nul[] = "{\"cluster\": {\"a\": 1}, \"jobs\": []}\0garbage";
	hs_problem_t p;
	hs_err_t err;
	assert_int_equal(hs_problem_parse_json(&p, nul, sizeof(nul) - 1, NULL, &err), -1);
	hs_problem_free(&p);
	assert_int_equal(hs_problem_load_json(&p, "/nonexistent/problem.json", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/problem.json"));
	hs_problem_free(&p);
}

/* Replays the fuzzing corpus (tests/fuzz/corpus/problem, grown by
 * tests/fuzz/run.sh problem): every input is rejected with a message or
 * accepted and written back to text that reads back the same. */
static void fuzz_corpus(void **state)
{
	(void)state;
	const char *src = getenv("HS_SRCDIR");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/problem", src ? src : ".");
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "# no corpus at %s\n", dir);
		skip();
	}
	int n = 0, accepted = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		hs_problem_t p, q;
		hs_err_t err = { "" };
		n++;
		if (hs_problem_load_json(&p, path, NULL, &err) < 0) {
			if (!err.msg[0])
				fail_msg("%s rejected without a message", path);
			hs_problem_free(&p);
			continue;
		}
		accepted++;
		char *a = hs_problem_to_json(&p, &err);
		assert_non_null(a);
		if (hs_problem_parse_json(&q, a, strlen(a), NULL, &err) < 0)
			fail_msg("%s: written form does not read back: %s", path, err.msg);
		char *b = hs_problem_to_json(&q, &err);
		assert_string_equal(a, b);
		free(a);
		free(b);
		hs_problem_free(&p);
		hs_problem_free(&q);
	}
	closedir(d);
	assert_true(n >= 3 && accepted >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_full),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(entity_tree),
		cmocka_unit_test(job_types_from_table),
		cmocka_unit_test(alloc_writer),
		cmocka_unit_test(malformed),
		cmocka_unit_test(fuzz_corpus),
	};
	return cmocka_run_group_tests_name("problem_json", tests, NULL, NULL);
}
