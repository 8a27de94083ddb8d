/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_proc.c — libFuzzer target for the /proc/<pid>/stat parser that the
 * report listener in slurmstepd (root) uses to decide whether a report's
 * sender belongs to the job (src/report/proc.h). The kernel writes the
 * file, but its second field is the process name, which the process sets
 * (prctl(PR_SET_NAME), exec): spaces, parentheses, ") S 1 " and all.
 * Input: bytes 0..3 choose a state letter and a parent pid, the rest is a
 * process name (up to its first NUL); the whole input is also parsed as
 * stat text of its own. Properties:
 *  - whatever the name, the line the kernel would write for it parses to
 *    exactly that state and parent (a name cannot forge its ancestry);
 *  - any text either is rejected with the outputs left untouched, or gives
 *    the character two bytes after the last ')' as the state and a parent
 *    that is >= 0 and equal to the number written there (no wrap-around
 *    into pid_t).
 * Run with tests/fuzz/run.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "report/proc.h"

#define MAX_TEXT 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* The line the kernel writes for a process (fs/proc/array.c: "%d (%s) %c
 * %d %d %d ..."), with `name` as its comm; fixed fields after the parent. */
static void kernel_line(char *out, size_t size, const char *name, char state, pid_t ppid)
{
	snprintf(out, size, "4242 (%s) %c %d 4242 4242 34816 4242 4194560 155 0 0 0 "
		 "3 1 0 0 20 0 1 0 123456 2215936 219 18446744073709551615 1 1 0 0 0 0 "
		 "0 0 65536 0 0 0 17 1 0 0 0 0 0\n", name, state, (int)ppid);
}

static void check_forged_name(const uint8_t *data, size_t size)
{
	static const char states[] = "RSDZTtXxKWPI";
	char name[MAX_TEXT], line[MAX_TEXT + 256], st = 0;
	pid_t pp = -1, want_pp;
	char want_st;
	size_t nlen = size - 4;

	want_st = states[data[0] % (sizeof(states) - 1)];
	/* pid_max is at most 2^22 (PID_MAX_LIMIT) */
	want_pp = (pid_t)(((uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3]) % 4194305);
	memcpy(name, data + 4, nlen);
	name[nlen] = '\0';
	kernel_line(line, sizeof(line), name, want_st, want_pp);
	check(hs_proc_stat_parse(line, &st, &pp) == 0);
	check(st == want_st && pp == want_pp);
}

static void check_any_text(const uint8_t *data, size_t size)
{
	char text[MAX_TEXT + 1], st = '?';
	pid_t pp = -7;
	const char *rp, *q;
	uint64_t v = 0;
	int neg;

	memcpy(text, data, size);
	text[size] = '\0';
	{
		/* the start-time parser accepts a subset, with the same values */
		hs_proc_info_t in = { .state = '?', .ppid = -7, .start = 7 };
		char st2 = '?';
		pid_t pp2 = -7;

		if (hs_proc_info_parse(text, &in) == 0)
			check(hs_proc_stat_parse(text, &st2, &pp2) == 0 && st2 == in.state &&
			      pp2 == in.ppid);
		else
			check(in.state == '?' && in.ppid == -7 && in.start == 7);
	}
	if (hs_proc_stat_parse(text, &st, &pp) < 0) {
		check(st == '?' && pp == -7);
		return;
	}
	rp = strrchr(text, ')');
	check(rp != NULL && st == rp[2] && st != '\0' && pp >= 0);
	/* the number after the state, as written, is the parent's pid:
	 * strtol's blanks and sign, then digits, read here without limits */
	for (q = rp + 4; *q == ' ' || (*q >= '\t' && *q <= '\r'); q++)
		;
	neg = *q == '-';
	if (*q == '+' || *q == '-')
		q++;
	for (; *q >= '0' && *q <= '9'; q++)
		if ((v = v * 10 + (uint64_t)(*q - '0')) > 0xffffffffULL)
			v = 0xffffffffULL + 1;   /* saturate: "too big" */
	check(*q == ' ' && (uint64_t)pp == v && (!neg || v == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_TEXT)
		return 0;
	check_any_text(data, size);
	if (size >= 4)
		check_forged_name(data, size);
	return 0;
}
