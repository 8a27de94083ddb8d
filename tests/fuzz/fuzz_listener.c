/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_listener.c — libFuzzer target for what the report listener in
 * slurmstepd (root) decodes from each datagram besides its text (which
 * fuzz_wire covers): the control messages recvmsg() returns with it, read
 * by hs_listener_ctl_parse() (src/report/listener.h) — the sender's
 * credentials, its send time, descriptors it passed. The kernel writes
 * that buffer, from what the sender chose to send (SCM_RIGHTS,
 * SCM_CREDENTIALS) and when; here the bytes are arbitrary, a stricter
 * test than the kernel's well-formed buffers. Input: bytes 0..7 give the
 * monotonic read time and the realtime - monotonic offset, bytes 8..35 the
 * values of a kernel-formatted buffer, everything from byte 8 on is also a
 * raw control buffer. Properties:
 *  - a kernel-formatted buffer (send time, credentials, passed
 *    descriptors) decodes to exactly its values, and the send time is used
 *    only within HS_LISTENER_MAX_QUEUE_AGE before the read time;
 *  - any buffer: the send time is finite and either the read time or
 *    within that window; credentials are reported only when a whole
 *    SCM_CREDENTIALS message with those values lies inside the buffer;
 *    every passed descriptor reported is read from inside the buffer
 *    (ASan checks the reads: the buffer is allocated to its exact size).
 * Run with tests/fuzz/run.sh. */
#define _GNU_SOURCE  /* struct ucred */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "report/listener.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Descriptors handed to the callback: counted and remembered, never
 * closed (they are fuzz bytes, not descriptors of this process). */
typedef struct fds {
	unsigned n;
	int v[8];
} fds_t;

static void got_fd(void *arg, int fd)
{
	fds_t *f = arg;

	if (f->n < 8)
		f->v[f->n] = fd;
	f->n++;
}

/* Appends one control message as the kernel's put_cmsg() does. */
static size_t put(unsigned char *buf, size_t pos, int type, const void *v, size_t len)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(len), .cmsg_level = SOL_SOCKET,
			     .cmsg_type = type };

	memset(buf + pos, 0, CMSG_SPACE(len));
	memcpy(buf + pos, &h, sizeof(h));
	memcpy(buf + pos + CMSG_LEN(0), v, len);
	return pos + CMSG_SPACE(len);
}

static void check_kernel_format(const uint8_t *d, double now, double offset)
{
	unsigned char buf[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(struct ucred)) +
			  CMSG_SPACE(3 * sizeof(int))] __attribute__((aligned(8)));
	struct ucred cr = { .pid = (pid_t)(u32(d) & 0x3fffff), .uid = u32(d + 4),
			    .gid = u32(d + 8) };
	/* sent up to 2 min before the read, or up to 1 min after (a clock step) */
	double age = (double)(int32_t)u32(d + 12) / 2147483648.0 * 90 + 30;
	double t = now - age + offset;
	struct timespec ts = { .tv_sec = (time_t)floor(t),
			       .tv_nsec = (long)((t - floor(t)) * 1e9) % 1000000000 };
	int fd[3] = { (int)u32(d + 16), (int)u32(d + 20), (int)u32(d + 24) };
	unsigned nfd = d[28] % 4;
	size_t len = 0;
	hs_listener_ctl_t got;
	fds_t f = { 0 };

	if (d[29] & 1)
		len = put(buf, len, SCM_TIMESTAMPNS, &ts, sizeof(ts));
	len = put(buf, len, SCM_CREDENTIALS, &cr, sizeof(cr));
	if (nfd)
		len = put(buf, len, SCM_RIGHTS, fd, nfd * sizeof(int));
	hs_listener_ctl_parse(buf, len, offset, now, &got, got_fd, &f);
	check(got.has_cred && got.pid == cr.pid && got.uid == cr.uid && got.gid == cr.gid);
	check(got.passed_fds == nfd && f.n == nfd);
	for (unsigned i = 0; i < nfd; i++)
		check(f.v[i] == fd[i]);
	/* (the margins absorb the timespec's rounding) */
	if (!(d[29] & 1) || age < -1e-3 || age > HS_LISTENER_MAX_QUEUE_AGE + 1e-3)
		check(got.sent == now);
	else if (age > 1e-3 && age < HS_LISTENER_MAX_QUEUE_AGE - 1e-3)
		check(fabs(got.sent - (now - age)) < 1e-5);
}

/* Whether a whole SCM_CREDENTIALS message carrying `got`'s values lies in
 * [buf, buf + len) at a cmsghdr-aligned offset. */
static int creds_inside(const unsigned char *buf, size_t len, const hs_listener_ctl_t *got)
{
	for (size_t off = 0; off + CMSG_LEN(sizeof(struct ucred)) <= len; off += sizeof(size_t)) {
		struct cmsghdr h;
		struct ucred cr;

		memcpy(&h, buf + off, sizeof(h));
		memcpy(&cr, buf + off + CMSG_LEN(0), sizeof(cr));
		if (h.cmsg_len == CMSG_LEN(sizeof(cr)) && h.cmsg_level == SOL_SOCKET &&
		    h.cmsg_type == SCM_CREDENTIALS && cr.pid == got->pid && cr.uid == got->uid &&
		    cr.gid == got->gid)
			return 1;
	}
	return 0;
}

static void check_any_buffer(const uint8_t *d, size_t len, double now, double offset)
{
	unsigned char *buf = malloc(len ? len : 1);
	hs_listener_ctl_t got;
	fds_t f = { 0 };

	if (!buf)
		return;
	memcpy(buf, d, len);
	hs_listener_ctl_parse(buf, len, offset, now, &got, got_fd, &f);
	check(isfinite(got.sent));
	check(got.sent == now ||
	      (got.sent <= now && now - got.sent <= HS_LISTENER_MAX_QUEUE_AGE));
	check(!got.has_cred || creds_inside(buf, len, &got));
	check(f.n == got.passed_fds && (size_t)got.passed_fds * sizeof(int) <= len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double now, offset;

	if (size < 8 || size > 4096)
		return 0;
	/* a monotonic clock of up to ~50 days, a realtime one ahead of it */
	now = u32(data) / 1000.0;
	offset = u32(data + 4) / 2.0;
	if (size >= 8 + 30)
		check_kernel_format(data + 8, now, offset);
	check_any_buffer(data + 8, size - 8, now, offset);
	return 0;
}
