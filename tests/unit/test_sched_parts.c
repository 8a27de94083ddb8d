/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sched_parts.c — the small pieces of the sched plugin's Slurm-free
 * library: hetsched.conf values, submit hints from spank_job_env,
 * throughput estimates, atomic state files. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/record.h"
#include "sched/conf_include.h"
#include "sched/conf_lastgood.h"
#include "sched/estimate.h"
#include "sched/hints.h"
#include "sched/sconf.h"
#include "sched/statefile.h"
#include "sched/status_private.h"

/* ---- configuration ------------------------------------------------------------ */

static void test_conf_defaults(void **state)
{
	(void)state;
	hs_sconf_t c;
	hs_err_t err;
	assert_int_equal(hs_sconf_defaults(&c, &err), 0);
	assert_string_equal(c.policy, "max_min_fairness_water_filling_perf");
	assert_int_equal(c.round_s, 360);
	assert_int_equal(c.preempt, HS_PREEMPT_REQUEUE);
	assert_int_equal(c.ckpt_grace_s, 60);
	assert_int_equal(c.npartitions, 0);
	assert_null(c.metrics_file);
	assert_true(hs_sconf_manages(&c, "anything"));
	assert_int_equal(hs_sconf_check(&c, &err), 0);
	hs_sconf_free(&c);
}

static void test_conf_values(void **state)
{
	(void)state;
	hs_sconf_t c, d;
	hs_err_t err;
	hs_sconf_defaults(&c, &err);
	const char *text =
		"# comment\n"
		"Policy = max_min_fairness\n"
		"roundlength=30   # keys are case-insensitive\n"
		"PreemptMode=suspend\n"
		"Partitions=gpu,big\n"
		"QosWeights=normal:1,high:4.5\n"
		"AccountWeights=shares\n"
		"ThroughputTable=/a/t1.json,/b/t:2.json\n"
		"EntityMode=fifo\n"
		"Backfill=no\n"
		"ApplyDelay=2500\n"
		"MetricsFile=/var/lib/node_exporter/textfile/hetsched.prom\n"
		"\n";
	if (hs_sconf_parse_text(&c, text, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(c.policy, "max_min_fairness");
	assert_int_equal(c.round_s, 30);
	assert_int_equal(c.preempt, HS_PREEMPT_SUSPEND);
	assert_int_equal(c.npartitions, 2);
	assert_true(hs_sconf_manages(&c, "big"));
	assert_false(hs_sconf_manages(&c, "debug"));
	assert_true(fabs(hs_wlist_get(&c.qos_weights, "high") - 4.5) < 1e-12);
	assert_true(fabs(hs_wlist_get(&c.qos_weights, "other") - 1) < 1e-12);
	assert_true(c.account_shares);
	assert_int_equal(c.ntables, 2);
	assert_string_equal(c.tables[1], "/b/t:2.json");
	assert_true(c.entity_fifo);
	assert_int_equal(c.backfill, 0);
	assert_int_equal(c.apply_delay_ms, 2500);
	assert_int_equal(hs_sconf_copy(&d, &c, &err), 0);
	assert_string_equal(d.partitions[1], "big");
	assert_string_equal(d.qos_weights.names[1], "high");
	assert_string_equal(d.metrics_file, "/var/lib/node_exporter/textfile/hetsched.prom");
	assert_ptr_not_equal(d.metrics_file, c.metrics_file);
	hs_sconf_free(&c);
	hs_sconf_free(&d);
}

static void test_conf_errors(void **state)
{
	(void)state;
	const struct {
		const char *key, *value, *msg;
	} bad[] = {
		{ "Policy", "no_such_policy", "unknown policy" },
		{ "RoundLength", "0", "RoundLength" },
		{ "RoundLength", "12x", "integer" },
		{ "RoundLength", "99999999999999999999", "integer" },
		{ "PreemptMode", "kill", "requeue, suspend or off" },
		{ "CheckpointGrace", "-1", "CheckpointGrace" },
		{ "QosWeights", "high", "name:weight" },
		{ "QosWeights", "high:0", "QosWeights" },
		{ "QosWeights", "a:1,a:2", "twice" },
		{ "Partitions", "a,,b", "Partitions" },
		{ "ThroughputTable", "relative.json", "absolute" },
		{ "EarlyRounds", "maybe", "yes or no" },
		{ "StatusFile", "x", "absolute" },
		{ "MetricsFile", "hetsched.prom", "MetricsFile=hetsched.prom: expected an absolute" },
		{ "MetricsFile", "/a\nb.prom", "absolute" },
		{ "SolverTimeLimit", "nan", "SolverTimeLimit" },
		{ "PopPartitions", "0", "PopPartitions" },
		{ "PopPartitions", "65", "PopPartitions" },
		{ "NoSuchKey", "1", "unknown key" },
		{ "Seed", "", "empty" },
		{ "ApplyDelay", "60001", "ApplyDelay" },
		{ "GpuPrices", "v100", "GpuPrices" },
		{ "GpuPrices", "v100:0", "GpuPrices" },
		{ "GpuPrices", "v100:-1", "GpuPrices" },
		{ "GpuPrices", "v100:inf", "GpuPrices" },
		{ "GpuPrices", "v100:nan", "GpuPrices" },
		{ "GpuPrices", "v100:1,v100:2", "twice" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		hs_sconf_t c;
		hs_err_t err;
		hs_sconf_defaults(&c, &err);
		if (hs_sconf_set(&c, bad[k].key, bad[k].value, &err) == 0)
			fail_msg("%s=%s accepted", bad[k].key, bad[k].value);
		if (!strstr(err.msg, bad[k].msg))
			fail_msg("%s=%s: message '%s' lacks '%s'", bad[k].key, bad[k].value,
				 err.msg, bad[k].msg);
		/* the default survives a rejected value */
		assert_int_equal(c.round_s, 360);
		hs_sconf_free(&c);
	}
	hs_sconf_t c;
	hs_err_t err;
	hs_sconf_defaults(&c, &err);
	assert_int_equal(hs_sconf_parse_text(&c, "RoundLength=10\nMinRoundInterval=20\n", &err), -1);
	assert_non_null(strstr(err.msg, "MinRoundInterval"));
	/* a resolve factor below 1 is refused; 0 (off) and 1 are not */
	hs_sconf_t r;
	hs_sconf_defaults(&r, &err);
	assert_int_equal(hs_sconf_parse_text(&r, "EstimateResolveFactor=0.5\n", &err), -1);
	assert_non_null(strstr(err.msg, "EstimateResolveFactor=0.5"));
	assert_int_equal(hs_sconf_parse_text(&r, "EstimateResolveFactor=0\n", &err), 0);
	assert_int_equal(hs_sconf_parse_text(&r, "EstimateResolveFactor=1\n", &err), 0);
	hs_sconf_free(&r);
	/* POP splits LPs: a policy that is none is refused, not failed
	 * at every solve */
	assert_int_equal(hs_sconf_parse_text(&c, "Policy=fifo\nPopPartitions=4\n", &err), -1);
	assert_non_null(strstr(err.msg, "PopPartitions=4 applies only"));
	hs_sconf_free(&c);
	hs_sconf_defaults(&c, &err);
	assert_int_equal(hs_sconf_parse_text(&c, "Policy=max_min_fairness_packed\nPopPartitions=4\n",
					     &err), 0);
	assert_int_equal(c.pop_partitions, 4);
	assert_int_equal(hs_sconf_parse_text(&c, "Policy\n", &err), -1);
	assert_non_null(strstr(err.msg, "line 1"));
	hs_sconf_free(&c);
	/* every documented key is accepted by the setter */
	for (int i = 0; hs_sconf_key_name(i); i++) {
		hs_sconf_defaults(&c, &err);
		hs_err_t e2;
		hs_sconf_set(&c, hs_sconf_key_name(i), "", &e2);
		assert_null(strstr(e2.msg, "unknown key"));
		hs_sconf_free(&c);
	}
}

/* The cost policies need a price for the GPU types: without GpuPrices
 * the configuration is refused (it used to pass and then fail every
 * round); min_cost_slo is refused (no SLOs under Slurm). */
static void test_conf_prices(void **state)
{
	(void)state;
	hs_sconf_t c, d;
	hs_err_t err;
	hs_sconf_defaults(&c, &err);
	assert_int_equal(hs_sconf_parse_text(&c, "Policy=min_cost\n", &err), -1);
	assert_non_null(strstr(err.msg, "GpuPrices"));
	hs_sconf_free(&c);
	hs_sconf_defaults(&c, &err);
	assert_int_equal(hs_sconf_parse_text(&c, "Policy=min_cost_slo\n"
					     "GpuPrices=v100:2.48\n", &err), -1);
	assert_non_null(strstr(err.msg, "min_cost_slo"));
	hs_sconf_free(&c);
	hs_sconf_defaults(&c, &err);
	if (hs_sconf_parse_text(&c, "Policy=min_cost\nGpuPrices=v100:2.48,p100:1.46,k80:0.45\n",
				&err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.gpu_prices.n, 3);
	assert_true(fabs(hs_wlist_get(&c.gpu_prices, "k80") - 0.45) < 1e-12);
	assert_int_equal(hs_sconf_copy(&d, &c, &err), 0);
	assert_string_equal(d.gpu_prices.names[1], "p100");
	hs_sconf_free(&d);
	hs_sconf_free(&c);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Include of a missing file, an Include loop, a directory: found before
 * Slurm's parser gets the file (it retried the missing file for 60 s,
 * and recursed without end on the loop); names resolve relative to the
 * including file as Slurm resolves them. */
static void test_conf_includes(void **state)
{
	(void)state;
	char dir[] = "/tmp/hs-include-XXXXXX", path[512], text[700];
	hs_err_t err;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hetsched.conf", dir);

	write_file(dir, "prices.conf", "GpuPrices=v100:2\n");
	snprintf(text, sizeof(text), "Policy=min_cost\nInclude prices.conf\n"
		 "#Include commented-out.conf\nRoundLength=60 # Include not-a-directive\n"
		 "include %s/prices.conf\nInclude %%c.conf\n", dir);
	write_file(dir, "hetsched.conf", text);
	if (hs_conf_check_includes(path, &err) < 0)
		fail_msg("%s", err.msg);

	/* missing, two levels down: named with the file and line */
	write_file(dir, "hetsched.conf", "RoundLength=60\nInclude sub.conf\n");
	write_file(dir, "sub.conf", "\n\nInclude gone.conf\n");
	assert_int_equal(hs_conf_check_includes(path, &err), -1);
	assert_non_null(strstr(err.msg, "sub.conf line 3"));
	assert_non_null(strstr(err.msg, "gone.conf"));
	assert_non_null(strstr(err.msg, "No such file"));

	/* a loop */
	write_file(dir, "sub.conf", "Include hetsched.conf\n");
	assert_int_equal(hs_conf_check_includes(path, &err), -1);
	assert_non_null(strstr(err.msg, "nested more than"));

	/* not a regular file, no name */
	write_file(dir, "hetsched.conf", "Include /tmp\n");
	assert_int_equal(hs_conf_check_includes(path, &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file"));
	write_file(dir, "hetsched.conf", "Include \n");
	assert_int_equal(hs_conf_check_includes(path, &err), -1);
	assert_non_null(strstr(err.msg, "without a file name"));

	/* a continued line is no directive; an unreadable top file is */
	write_file(dir, "hetsched.conf", "RoundLength=60 \\\nInclude gone.conf\n");
	if (hs_conf_check_includes(path, &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(path, sizeof(path), "%s/absent.conf", dir);
	assert_int_equal(hs_conf_check_includes(path, &err), -1);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The source tree's file rel ($HS_SRCDIR, else ..) into buf, NUL
 * terminated; its path in path. Fails the test when it cannot be read. */
static void read_src_file(const char *rel, char *path, size_t plen, char *buf, size_t len)
{
	const char *src = getenv("HS_SRCDIR");
	snprintf(path, plen, "%s/%s", src ? src : "..", rel);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
}

/* hetsched.conf(5) documents exactly the keys of the table: every key
 * has its ".BI Key=" entry, and every entry is a key of the table. */
static void test_conf_man_keys(void **state)
{
	(void)state;
	char path[4096];
	static char man[131072];
	read_src_file("doc/man/hetsched.conf.5", path, sizeof(path), man, sizeof(man));
	for (int i = 0; hs_sconf_key_name(i); i++) {
		char entry[128];
		snprintf(entry, sizeof(entry), "\n.BI %s= ", hs_sconf_key_name(i));
		if (!strstr(man, entry))
			fail_msg("%s: no entry for %s", path, hs_sconf_key_name(i));
	}
	int entries = 0;
	for (const char *p = strstr(man, "\n.BI "); p; p = strstr(p + 1, "\n.BI ")) {
		const char *k = p + 5, *eq = strchr(k, '=');
		const char *nl = strchr(k, '\n');
		if (!eq || (nl && nl < eq))
			continue;
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - k), k);
		/* looked up in the table itself: hs_sconf_set with a dummy
		 * value would fail on the value before the key */
		int known = 0;
		for (int i = 0; hs_sconf_key_name(i) && !known; i++)
			known = !strcmp(hs_sconf_key_name(i), key);
		if (!known)
			fail_msg("%s documents %s, which is not a key", path, key);
		entries++;
	}
	assert_true(entries > 0);
}

/* The example shipped in etc/ is valid. */
static void test_conf_example(void **state)
{
	(void)state;
	char path[4096];
	static char text[65536];
	read_src_file("etc/hetsched.conf", path, sizeof(path), text, sizeof(text));
	hs_sconf_t c;
	hs_err_t err;
	hs_sconf_defaults(&c, &err);
	if (hs_sconf_parse_text(&c, text, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_int_equal(c.round_s, 360);
	hs_sconf_free(&c);
}

static void test_sched_params(void **state)
{
	(void)state;
	char why[512];
	assert_int_equal(hs_sched_params_ok("defer,sched_interval=-1", why, sizeof(why)), 1);
	assert_int_equal(hs_sched_params_ok("bf_continue,DEFER,sched_interval=-1,max_rpc_cnt=5",
					    why, sizeof(why)), 1);
	assert_int_equal(hs_sched_params_ok(NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "defer and sched_interval=-1"));
	assert_int_equal(hs_sched_params_ok("defer", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "lacks sched_interval=-1"));
	assert_int_equal(hs_sched_params_ok("defer_batch,sched_interval=-1", why, sizeof(why)), 0);
	assert_int_equal(hs_sched_params_ok("defer,sched_interval=-10", why, sizeof(why)), 0);
	assert_int_equal(hs_sched_params_ok("defer,sched_interval=60", why, sizeof(why)), 0);
}

/* ---- hints -------------------------------------------------------------------- */

static void test_hints(void **state)
{
	(void)state;
	char *env[] = {
		"OTHER=1",
		"HS_MODEL=ResNet-50 (batch size 64)",
		"HS_MODEL=second wins not",
		"HS_STEPS=1000",
		"HS_CKPT=1",
		"HS_CKPT_SIGNAL=10",
		NULL,
		"HS_NO_PREEMPT=0",
	};
	hs_hints_t h;
	hs_hints_parse(&h, env, 8);
	assert_string_equal(h.model, "ResNet-50 (batch size 64)");
	assert_int_equal(h.steps, 1000);
	assert_true(h.ckpt);
	assert_false(h.no_preempt);
	assert_int_equal(h.ckpt_signal, SIGUSR1);
	assert_string_equal(h.bad, "");

	const char *bad[] = {
		"HS_MODEL=", "HS_MODEL=a\"b", "HS_MODEL=tab\there", "HS_STEPS=0",
		"HS_STEPS=-5", "HS_STEPS=1000000000000001", "HS_STEPS=12a",
		"HS_CKPT=yes", "HS_NO_PREEMPT=2", "HS_CKPT_SIGNAL=9", "HS_CKPT_SIGNAL=15",
		"HS_CKPT_SIGNAL=URG",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char *one[1] = { (char *)bad[k] };
		hs_hints_parse(&h, one, 1);
		if (!h.bad[0])
			fail_msg("'%s' accepted", bad[k]);
		assert_string_equal(h.model, "");
		assert_int_equal(h.steps, 0);
		assert_false(h.ckpt);
		assert_false(h.no_preempt);
		assert_int_equal(h.ckpt_signal, SIGURG);
	}
	/* a long hostile value is quoted shortened, never overflowing */
	char longv[4096];
	memset(longv, 'x', sizeof(longv));
	memcpy(longv, "HS_MODEL=", 9);
	longv[sizeof(longv) - 1] = 0;
	char *one[1] = { longv };
	hs_hints_parse(&h, one, 1);
	assert_non_null(strstr(h.bad, "..."));
	hs_hints_parse(&h, NULL, 5); /* no environment at all */
	assert_string_equal(h.model, "");
}

/* ---- estimates ---------------------------------------------------------------- */

static const char *table_json =
	"{\"v100\": {\"('ResNet-18', 1)\": {\"null\": 10.0}},"
	" \"p100\": {\"('ResNet-18', 1)\": {\"null\": 5.0}},"
	" \"k80\":  {\"('ResNet-18', 1)\": {\"null\": 2.0}}}";

static void est_setup(hs_cluster_t *c, hs_tables_t *tb)
{
	hs_err_t err;
	assert_int_equal(hs_cluster_parse(c, "k80:4,p100:4,v100:4,a100:4", &err), 0);
	memset(tb, 0, sizeof(*tb));
	assert_int_equal(hs_thrtable_parse(&tb->t[0], table_json, &err), 0);
	tb->n = 1;
}

static void test_estimate(void **state)
{
	(void)state;
	hs_cluster_t c;
	hs_tables_t tb;
	est_setup(&c, &tb);
	double thr[4], meas[4];
	hs_estimate_in_t in = { .cluster = &c, .tables = &tb, .model = "ResNet-18", .scale_factor = 1 };

	/* table only: table values; a100 (not in the table) the table mean */
	assert_int_equal(hs_estimate(&in, thr, meas), HS_ESTIMATE_TABLE);
	assert_true(fabs(thr[0] - 2) < 1e-9 && fabs(thr[1] - 5) < 1e-9 && fabs(thr[2] - 10) < 1e-9);
	assert_true(fabs(thr[3] - 17.0 / 3) < 1e-9);

	/* measured on v100 at twice the table: other table types rescale */
	hs_record_t r;
	hs_record_init(&r);
	hs_record_thr_set(&r, "v100", 20, 3, 1);
	hs_record_thr_set(&r, "v100:shared", 7, 3, 1); /* packed: not an alone rate */
	in.rec = &r;
	assert_int_equal(hs_estimate(&in, thr, meas), HS_ESTIMATE_MEASURED);
	assert_true(fabs(thr[2] - 20) < 1e-9);
	assert_true(fabs(thr[1] - 10) < 1e-9);
	assert_true(fabs(thr[0] - 4) < 1e-9);
	assert_true(fabs(meas[2] - 20) < 1e-9 && meas[0] == 0);

	/* unknown model: agnostic 1.0, then the measured mean */
	in.model = "Unknown";
	in.rec = NULL;
	assert_int_equal(hs_estimate(&in, thr, NULL), HS_ESTIMATE_AGNOSTIC);
	for (int j = 0; j < 4; j++)
		assert_true(fabs(thr[j] - 1) < 1e-9);
	in.rec = &r;
	hs_record_thr_set(&r, "k80", 4, 3, 1);
	assert_int_equal(hs_estimate(&in, thr, NULL), HS_ESTIMATE_MEASURED);
	assert_true(fabs(thr[0] - 4) < 1e-9 && fabs(thr[2] - 20) < 1e-9);
	assert_true(fabs(thr[1] - 12) < 1e-9 && fabs(thr[3] - 12) < 1e-9);

	/* a type the table has and gives 0 (out of memory there) is not
	 * usable, whatever the other rules would guess; once the job
	 * measured a rate there, it is */
	{
		hs_tables_t tz;
		memset(&tz, 0, sizeof(tz));
		hs_err_t err;
		assert_int_equal(hs_thrtable_parse(&tz.t[0],
			"{\"v100\": {\"('ResNet-50', 2)\": {\"null\": 4.0}},"
			" \"p100\": {\"('ResNet-50', 2)\": {\"null\": 2.0}},"
			" \"k80\":  {\"('ResNet-50', 2)\": {\"null\": 0.0}}}", &err), 0);
		tz.n = 1;
		hs_estimate_in_t zin = { .cluster = &c, .tables = &tz, .model = "ResNet-50",
					 .scale_factor = 2 };
		double z[4];
		hs_estimate(&zin, z, NULL);
		assert_true(z[0] == 0); /* k80: cannot */
		assert_true(fabs(z[1] - 2) < 1e-9 && fabs(z[2] - 4) < 1e-9);
		assert_true(fabs(z[3] - 3) < 1e-9); /* a100, not in the table: the mean */
		hs_record_t zr;
		hs_record_init(&zr);
		hs_record_thr_set(&zr, "k80", 0.5, 3, 1);
		zin.rec = &zr;
		hs_estimate(&zin, z, NULL);
		assert_true(fabs(z[0] - 0.5) < 1e-9);
		/* a job that may use only k80 (it asked for it) keeps an
		 * estimate there: no usable type at all would hold every
		 * job's max-min level at 0 */
		unsigned char only_k80[4] = { 1, 0, 0, 0 };
		zin.rec = NULL;
		zin.allowed = only_k80;
		hs_estimate(&zin, z, NULL);
		assert_true(z[0] > 0 && z[1] == 0 && z[2] == 0 && z[3] == 0);
		hs_thrtable_free(&tz.t[0]);
	}

	/* disallowed types are 0 and excluded from means */
	unsigned char allowed[4] = { 1, 0, 0, 0 };
	in.allowed = allowed;
	hs_estimate(&in, thr, NULL);
	assert_true(fabs(thr[0] - 4) < 1e-9 && thr[1] == 0 && thr[2] == 0 && thr[3] == 0);

	/* an absurd measurement (a job can write anything there) is ignored */
	hs_record_t bad;
	hs_record_init(&bad);
	hs_record_thr_set(&bad, "v100", 1e-300, 3, 1);
	in.rec = &bad;
	in.model = "ResNet-18";
	in.allowed = NULL;
	assert_int_equal(hs_estimate(&in, thr, meas), HS_ESTIMATE_TABLE);
	assert_true(fabs(thr[2] - 10) < 1e-9 && meas[2] == 0);

	/* scale factor 2 is another job type: not in the table */
	in.allowed = NULL;
	in.rec = NULL;
	in.model = "ResNet-18";
	in.scale_factor = 2;
	assert_int_equal(hs_estimate(&in, thr, NULL), HS_ESTIMATE_AGNOSTIC);
	hs_tables_free(&tb);
	hs_cluster_free(&c);
}

/* ---- state files -------------------------------------------------------------- */

static void test_statefile(void **state)
{
	(void)state;
	char dir[] = "/tmp/hs-statefile-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[512], moved[600];
	hs_err_t err;
	assert_int_equal(hs_path_join(path, sizeof(path), dir, "s.json"), 0);
	json_object *o;
	assert_int_equal(hs_json_read(path, &o, &err), 0); /* absent */

	json_object *w = json_tokener_parse("{\"a\": [1, 2, 3]}");
	assert_int_equal(hs_json_write_atomic(path, w, 0600, &err), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(hs_json_read(path, &o, &err), 1);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "a")), 3);
	json_object_put(o);
	json_object_put(w);

	/* torn / garbage files are errors, never crashes */
	const char *garbage[] = { "{\"a\": [1, 2", "\x01\x02\x03", "{} trailing", "" };
	for (size_t k = 0; k < sizeof(garbage) / sizeof(garbage[0]); k++) {
		assert_int_equal(hs_file_write_atomic(path, garbage[k], strlen(garbage[k]), 0600,
						      &err), 0);
		assert_int_equal(hs_json_read(path, &o, &err), -1);
		assert_null(o);
	}
	assert_int_equal(hs_file_set_aside(path, 1234, moved, sizeof(moved), &err), 0);
	assert_non_null(strstr(moved, ".bad-1234"));
	assert_int_equal(access(moved, F_OK), 0);
	assert_int_equal(hs_json_read(path, &o, &err), 0);

	/* a symlink is not followed */
	char link[600];
	snprintf(link, sizeof(link), "%s/link.json", dir);
	assert_int_equal(symlink(moved, link), 0);
	assert_int_equal(hs_json_read(link, &o, &err), -1);
	/* no temporary files left behind */
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "ls %s | grep -c tmp >/dev/null", dir);
	assert_int_not_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- status document under PrivateData=jobs ----------------------------------- */

static json_object *status_doc(void)
{
	return json_tokener_parse(
		"{\"format\": \"hetsched-status\", \"version\": 1, \"round\": 3,"
		" \"types\": [{\"name\": \"v100\", \"gpus\": 2}],"
		" \"round_stats\": {\"active\": 3},"
		" \"jobs\": [{\"id\": 11, \"user_id\": 1000, \"reason\": \"mine\"},"
		"            {\"id\": 12, \"user_id\": 1001, \"account\": \"secret\"},"
		"            {\"id\": 13}],"
		" \"ops\": [{\"id\": 11, \"kind\": \"checkpoint\"},"
		"           {\"id\": 12, \"kind\": \"requeue\"}]}");
}

static size_t arr_len(json_object *doc, const char *key)
{
	json_object *a = NULL;
	return json_object_object_get_ex(doc, key, &a) ? json_object_array_length(a) : 0;
}

/* With PrivateData=jobs the full document is 0600 and a summary without
 * per-job data is the world-readable file; without it the full document
 * is 0644 and an old summary goes away. */
static void test_status_private_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/hs-status-XXXXXX", path[512], pub[600];
	hs_err_t err;
	struct stat st;
	json_object *doc = status_doc(), *rd;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hetsched_status.json", dir);
	assert_int_equal(hs_status_public_path(path, pub, sizeof(pub)), 0);
	assert_non_null(strstr(pub, "/hetsched_status.public.json"));

	assert_int_equal(hs_status_write(path, doc, 1, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(pub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(hs_json_read(pub, &rd, &err), 1);
	assert_int_equal(arr_len(rd, "jobs"), 0);
	assert_int_equal(arr_len(rd, "ops"), 0);
	assert_int_equal(arr_len(rd, "types"), 1);
	const char *text = json_object_to_json_string(rd);
	assert_null(strstr(text, "secret"));
	assert_null(strstr(text, "user_id"));
	json_object *pv = NULL;
	assert_true(json_object_object_get_ex(rd, "private_jobs", &pv));
	assert_true(json_object_get_boolean(pv));
	json_object_put(rd);
	assert_int_equal(hs_json_read(path, &rd, &err), 1);
	assert_int_equal(arr_len(rd, "jobs"), 3);
	json_object_put(rd);

	assert_int_equal(hs_status_write(path, doc, 0, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(access(pub, F_OK), -1);
	json_object_put(doc);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A non-privileged reader's view: their jobs and ops only; a job without
 * an owner is nobody's. */
static void test_status_keep_user(void **state)
{
	(void)state;
	json_object *doc = status_doc(), *a, *v;
	assert_int_equal(hs_status_keep_user(doc, 1000), 2);
	assert_true(json_object_object_get_ex(doc, "jobs", &a));
	assert_int_equal(json_object_array_length(a), 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(a, 0), "id", &v));
	assert_int_equal(json_object_get_int(v), 11);
	assert_true(json_object_object_get_ex(doc, "ops", &a));
	assert_int_equal(json_object_array_length(a), 1);
	assert_null(strstr(json_object_to_json_string(doc), "secret"));
	json_object_put(doc);
	doc = status_doc();
	assert_int_equal(hs_status_keep_user(doc, 4242), 3);
	assert_int_equal(arr_len(doc, "ops"), 0);
	json_object_put(doc);
}

/* ---- last good copy (conf_lastgood.h) ---------------------------------------- */

/* write_text -> parse_text gives the same configuration, every value
 * exact (a number %g would round, lists, shares, paths, unset keys) */
static void check_round_trip(const char *text)
{
	hs_sconf_t c, d;
	hs_err_t err;
	char a[8192], b[8192];
	assert_int_equal(hs_sconf_defaults(&c, &err), 0);
	if (hs_sconf_parse_text(&c, text, &err) < 0)
		fail_msg("%s", err.msg);
	char *w = hs_sconf_write_text(&c, &err);
	assert_non_null(w);
	assert_null(strstr(w, "none")); /* unset keys are left out */
	assert_int_equal(hs_sconf_defaults(&d, &err), 0);
	if (hs_sconf_parse_text(&d, w, &err) < 0)
		fail_msg("%s in\n%s", err.msg, w);
	hs_sconf_describe(&c, a, sizeof(a));
	hs_sconf_describe(&d, b, sizeof(b));
	assert_string_equal(a, b);
	assert_true(d.pack_threshold == c.pack_threshold);
	for (int i = 0; i < c.qos_weights.n; i++)
		assert_true(d.qos_weights.w[i] == c.qos_weights.w[i]);
	free(w);
	hs_sconf_free(&c);
	hs_sconf_free(&d);
}

static void test_conf_write_text(void **state)
{
	(void)state;
	check_round_trip("");
	check_round_trip("Policy=max_min_fairness\nRoundLength=30\nPreemptMode=suspend\n"
			 "Partitions=gpu,big\nQosWeights=normal:1,high:4.123456789\n"
			 "AccountWeights=shares\nThroughputTable=/a/t1.json,/b/t:2.json\n"
			 "EntityMode=fifo\nPackThreshold=1.23456789012\nSeed=42\n"
			 "StatusFile=/var/x y/status.json\nBackfill=no\nPinnedAdmission=share\n"
			 "MinResetInterval=100000\nUnknownJobSeconds=1.1\n");
	check_round_trip("AccountWeights=a:2,b:0.5\nGpuPrices=v100:2.48,k80:0.9\n"
			 "Policy=min_cost\nMetricsFile=/tmp/m.prom\n");
	/* the log line keeps %g's short form where it is exact */
	hs_sconf_t c;
	hs_err_t err;
	char desc[8192];
	hs_sconf_defaults(&c, &err);
	assert_int_equal(hs_sconf_parse_text(&c, "PackThreshold=1.5\nMinResetInterval=100000\n",
					     &err), 0);
	hs_sconf_describe(&c, desc, sizeof(desc));
	assert_non_null(strstr(desc, "PackThreshold=1.5 "));
	assert_non_null(strstr(desc, "MinResetInterval=100000 "));
	/* a value the readers would cut is refused, not written wrong */
	assert_int_equal(hs_sconf_set(&c, "StatusFile", "/a#b", &err), 0);
	assert_null(hs_sconf_write_text(&c, &err));
	assert_non_null(strstr(err.msg, "StatusFile"));
	hs_sconf_free(&c);
}

static void test_conf_last_good(void **state)
{
	(void)state;
	char dir[] = "/tmp/hs_lastgood_XXXXXX", path[4096], file[4200];
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/%s", dir, HS_CONF_LAST_GOOD);
	hs_sconf_t c, d;
	hs_err_t err;
	int same = -1;
	/* none yet */
	assert_int_equal(hs_conf_last_good_load(dir, &d, &same, path, sizeof(path), &err), 0);
	assert_int_equal(same, 0);

	hs_sconf_defaults(&c, &err);
	assert_int_equal(hs_sconf_parse_text(&c, "RoundLength=42\nPartitions=gpu\n", &err), 0);
	assert_int_equal(hs_conf_last_good_save(dir, &c, "/etc/slurm/hetsched.conf", &err), 0);
	struct stat st;
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(hs_conf_last_good_load(dir, &d, &same, path, sizeof(path), &err), 1);
	assert_string_equal(path, file);
	assert_int_equal(same, 1); /* written by this process */
	assert_int_equal(d.round_s, 42);
	assert_int_equal(d.npartitions, 1);
	hs_sconf_free(&d);

	/* written by another process (a cold start after a restart) */
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fprintf(f, "# writer=1:1\nRoundLength=43\n");
	fclose(f);
	assert_int_equal(hs_conf_last_good_load(dir, &d, &same, path, sizeof(path), &err), 1);
	assert_int_equal(same, 0);
	assert_int_equal(d.round_s, 43);
	hs_sconf_free(&d);

	/* unusable: a bad value, a symlink */
	f = fopen(file, "w");
	fprintf(f, "RoundLength=0\n");
	fclose(f);
	assert_int_equal(hs_conf_last_good_load(dir, &d, &same, path, sizeof(path), &err), -1);
	assert_non_null(strstr(err.msg, "RoundLength"));
	unlink(file);
	assert_int_equal(symlink("/etc/hostname", file), 0);
	assert_int_equal(hs_conf_last_good_load(dir, &d, &same, path, sizeof(path), &err), -1);
	unlink(file);
	/* a directory that is not there: the save fails with a message */
	char missing[4200];
	snprintf(missing, sizeof(missing), "%s/nope", dir);
	assert_int_equal(hs_conf_last_good_save(missing, &c, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "nope"));
	hs_sconf_free(&c);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_values),
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_conf_man_keys),
		cmocka_unit_test(test_conf_prices),
		cmocka_unit_test(test_conf_includes),
		cmocka_unit_test(test_sched_params),
		cmocka_unit_test(test_conf_example),
		cmocka_unit_test(test_conf_write_text),
		cmocka_unit_test(test_conf_last_good),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_statefile),
		cmocka_unit_test(test_status_private_files),
		cmocka_unit_test(test_status_keep_user),
	};
	return cmocka_run_group_tests_name("sched_parts", tests, NULL, NULL);
}
