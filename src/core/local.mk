# src/core — the Slurm-free core library (model, throughput, policies,
# mechanism, state). Built PIC so the Slurm plugins can link it in.
noinst_LTLIBRARIES += libhetsched_core.la
libhetsched_core_la_SOURCES = \
	src/core/model.c src/core/model.h \
	src/core/thrtable.c src/core/thrtable.h
libhetsched_core_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
libhetsched_core_la_LIBADD = $(GLPK_LIBS) $(JSONC_LIBS) -lm
