/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap.c — hand the heap that a throughput table's parse freed back to
 * the system.
 *
 * Parsing a table builds a json-c tree about 13 times the file's size
 * (a generated table of 6,308 rows: about 20 MB), then frees it. The
 * dense arrays kept from it are allocated after the tree, above it in
 * the same arena, so glibc cannot trim the freed tree from the top of
 * the heap: the hole stays resident for the life of slurmctld, and it is
 * in the arena of the thread that parsed it (init's check, the agent's
 * engine), where slurmctld's RPC threads never reuse it. bench/round.sh
 * measured it: 22.7 MB resident after the parse, 3.8 MB after
 * malloc_trim (doc/scale.md). malloc_trim gives the free pages of every
 * arena back (madvise), a few milliseconds, only after a configuration
 * is loaded: startup and scontrol reconfigure. */
#include "hs_plugin.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

void hs_heap_release(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
