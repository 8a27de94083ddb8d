# SPDX-License-Identifier: GPL-2.0-or-later
# tests/soak — the soak test: tests/soak/soak.sh [--duration S]
# [--seed N], run by hand as root from the build directory (not part of
# `make check`; tests/integration/soak_short.sh is its short CI version).
EXTRA_DIST += tests/soak/soak.sh tests/soak/soak_lib.sh tests/soak/soak_procs.py \
	tests/soak/arr_churn.sh
