# tests/unit — cmocka unit tests of the core (no Slurm); TAP output.
if HAVE_CMOCKA
UNIT_LDADD = libhetsched_core.la $(CMOCKA_LIBS) $(GLPK_LIBS) $(JSONC_LIBS) -lm
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)

check_PROGRAMS += tests/unit/test_model
tests_unit_test_model_SOURCES = tests/unit/test_model.c
tests_unit_test_model_LDADD = $(UNIT_LDADD)
tests_unit_test_model_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_model

check_PROGRAMS += tests/unit/test_thrtable
tests_unit_test_thrtable_SOURCES = tests/unit/test_thrtable.c tests/unit/testdata.h
tests_unit_test_thrtable_LDADD = $(UNIT_LDADD)
tests_unit_test_thrtable_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_thrtable
endif
