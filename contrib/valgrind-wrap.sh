#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# valgrind-wrap.sh — LOG_COMPILER for `make check` that runs a test program
# (through its libtool wrapper) under valgrind memcheck; any memory error or
# definite leak makes the test fail. Shell-script tests run unchanged.
case "$1" in
*.sh) exec "$@" ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${HS_BUILDDIR:-.}
exec "$builddir/libtool" --mode=execute valgrind -q --error-exitcode=99 \
	--leak-check=full --errors-for-leak-kinds=definite \
	--suppressions="$top/contrib/valgrind.supp" "$@"
