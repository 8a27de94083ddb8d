/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_lazy.c — arrays serialized element by element (json_lazy.h). */
#include "core/json_lazy.h"

#include <json-c/printbuf.h>
#include <stdlib.h>

typedef struct lazy {
	int n;
	hs_json_elem_fn elem;
	void *ctx;
	void (*ctx_free)(void *);
} lazy_t;

static void lazy_free(json_object *jso, void *userdata)
{
	(void)jso;
	lazy_t *z = userdata;
	if (z->ctx_free)
		z->ctx_free(z->ctx);
	free(z);
}

/* As json-c's own array serializer writes it without _PRETTY: "[" and
 * "]", elements separated by ","; _SPACED puts a space before each
 * element and before "]". */
static int lazy_to_string(json_object *jso, struct printbuf *pb, int level, int flags)
{
	(void)level;
	const lazy_t *z = json_object_get_userdata(jso);
	if (!z || (flags & JSON_C_TO_STRING_PRETTY))
		return -1;
	const int spaced = (flags & JSON_C_TO_STRING_SPACED) != 0;
	if (printbuf_memappend(pb, "[", 1) < 0)
		return -1;
	for (int i = 0; i < z->n; i++) {
		json_object *el = z->elem(z->ctx, i);
		size_t len = 0;
		const char *text = el ? json_object_to_json_string_length(el, flags, &len) : NULL;
		int rc = !text || (i && printbuf_memappend(pb, ",", 1) < 0) ||
			 (spaced && printbuf_memappend(pb, " ", 1) < 0) ||
			 printbuf_memappend(pb, text, (int)len) < 0;
		json_object_put(el);
		if (rc)
			return -1;
	}
	return printbuf_memappend(pb, spaced ? " ]" : "]", spaced ? 2 : 1) < 0 ? -1 : 0;
}

json_object *hs_json_lazy_array(int n, hs_json_elem_fn elem, void *ctx, void (*ctx_free)(void *))
{
	json_object *a = json_object_new_array();
	lazy_t *z = calloc(1, sizeof(*z));
	if (!a || !z || n < 0 || !elem) {
		json_object_put(a);
		free(z);
		if (ctx_free)
			ctx_free(ctx);
		return NULL;
	}
	z->n = n;
	z->elem = elem;
	z->ctx = ctx;
	z->ctx_free = ctx_free;
	json_object_set_serializer(a, lazy_to_string, z, lazy_free);
	return a;
}
