/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack_channel.c — the sched -> select channel of the packing requests
 * (hs_pack.h). Up to Slurm 24.11, select_g_get_info_from_plugin() forwards
 * our private codes to the configured select plugin. 25.05 removed that
 * call, so there the sched plugin finds select/hetsched_cons_tres's
 * exported hetsched_pack_request() itself: slurmctld loaded the .so
 * RTLD_LOCAL (its symbols are not global), so we look for it among the
 * loaded objects and dlopen(RTLD_NOLOAD) that very file, which only takes
 * a reference (kept for the process lifetime, so the pointer stays valid).
 */
#include "config.h"

#include "compat/pack_channel.h"

#if HS_SLURM_GE(25, 5)
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define HS_SELECT_SO "select_hetsched_cons_tres.so"
#define HS_PACK_ENTRY "hetsched_pack_request"

typedef int (*hs_pack_request_f)(uint32_t code, job_record_t *job, void *data);

static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;
static hs_pack_request_f entry;

/* dl_iterate_phdr() callback: copies the path of our select .so. */
static int find_select_so(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name, *base;

	(void)size;
	if (!name || !*name)
		return 0;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strcmp(base, HS_SELECT_SO))
		return 0;
	snprintf(arg, 4096, "%s", name);
	return 1;
}

static void lookup(void)
{
	char path[4096] = "";
	void *h;

	if (!dl_iterate_phdr(find_select_so, path) || !path[0]) {
		info("sched/hetsched: packing off: %s is not loaded in this process", HS_SELECT_SO);
		return;
	}
	if (!(h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD))) {
		error("sched/hetsched: packing off: cannot reopen %s: %s", path, dlerror());
		return;
	}
	*(void **)&entry = dlsym(h, HS_PACK_ENTRY);
	if (!entry)
		error("sched/hetsched: packing off: %s has no %s", path, HS_PACK_ENTRY);
}

int hs_pack_call(uint32_t code, job_record_t *job, void *data)
{
	pthread_once(&lookup_once, lookup);
	return entry ? entry(code, job, data) : SLURM_ERROR;
}
#else
int hs_pack_call(uint32_t code, job_record_t *job, void *data)
{
	/* Slurm forwards any code to the configured select plugin's op. */
	return select_g_get_info_from_plugin((enum select_plugindata_info)code, job, data);
}
#endif
