/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_lazy.h — a JSON array whose elements are built only while it is
 * serialized, one at a time: each element's tree is made, written and
 * freed before the next. A saved state or status document of 20,000 jobs
 * otherwise holds every job's json-c tree at once, about 13x the size of
 * its text (163 MB for 12.9 MB of text, bench/round.sh); with lazy arrays
 * the peak is the text and one job's tree.
 *
 * The array is empty as a tree (json_object_array_length is 0): use it
 * only in documents that are serialized, not read back as trees, and
 * serialize them while `ctx` is alive and unchanged. The text is exactly
 * what json-c writes for the same elements in an ordinary array, for
 * JSON_C_TO_STRING_PLAIN and _SPACED; with _PRETTY (whose indentation
 * needs the nesting level json-c does not pass on to elements)
 * serialization fails (json_object_to_json_string_ext returns NULL). */
#ifndef HS_CORE_JSON_LAZY_H
#define HS_CORE_JSON_LAZY_H

#include <json-c/json.h>

/* Builds element i of n (a new reference), NULL on out of memory. */
typedef json_object *(*hs_json_elem_fn)(const void *ctx, int i);

/* The lazy array of n elements elem(ctx, 0..n-1); NULL on out of memory.
 * ctx_free (may be NULL) is called on ctx when the array is freed, also
 * when this fails: the array then owns ctx. */
json_object *hs_json_lazy_array(int n, hs_json_elem_fn elem, void *ctx, void (*ctx_free)(void *));

#endif /* HS_CORE_JSON_LAZY_H */
