#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_report_pkg.sh — python/ is a proper Python package: pip builds and
# installs it offline (--no-build-isolation --no-index, setuptools from
# Debian) into a fresh venv with --system-site-packages (how a user gets
# both hetsched_report and Debian's python3-torch), and the module imports
# from the venv with its API and the release version of configure.ac.
# TAP on stdout.
#
# The interpreter is Debian's /usr/bin/python3 (HS_PKG_PYTHON overrides):
# contrib/bootstrap.sh installs the build backend (python3-setuptools,
# python3-wheel), pip and venv as Debian packages, which serve only it; a
# python3 earlier in PATH (e.g. pyenv's) may have no setuptools at all.
# Nothing missing is skipped: a missing piece fails and names the package.
py=${HS_PKG_PYTHON:-/usr/bin/python3}
src=${HS_SRCDIR:-.}
build=${HS_BUILDDIR:-.}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}
diag() { sed 's/^/# /'; }

echo "1..8"
# The release version: the build's config header, else configure.ac.
want=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$build/hs_config.h" 2>/dev/null)
[ -n "$want" ] || want=$(sed -n 's/^AC_INIT(\[hetsched\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")

work=$(mktemp -d /tmp/hs-test-report-pkg.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
# Offline and independent of the caller's pip configuration (find-links,
# index URLs): only what is installed is used.
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
PIP_CONFIG_FILE=/dev/null PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_CONFIG_FILE PIP_NO_INPUT PIP_DISABLE_PIP_VERSION_CHECK
unset PYTHONPATH PYTHONHOME PYTHONUSERBASE

check "backend present for $py: setuptools >= 61, wheel, pip, venv (else: contrib/bootstrap.sh; python3-setuptools python3-wheel python3-pip python3-venv)" \
	"$py" -c 'import setuptools, wheel, pip, venv, sys
sys.exit(int(setuptools.__version__.split(".")[0]) < 61)'

# Without its own pip (ensurepip would copy one in, slowly): the venv sees
# Debian's pip through --system-site-packages, and pip run by the venv's
# interpreter installs into the venv.
check "venv with --system-site-packages" "$py" -m venv --without-pip --system-site-packages "$work/venv"
vpy=$work/venv/bin/python

# pip builds in the source directory (build/, *.egg-info): build from a
# copy, so the checkout stays clean and a read-only srcdir (distcheck) works.
cp -R "$src/python" "$work/pkg" && chmod -R u+w "$work/pkg" && rm -rf "$work/pkg/build" "$work/pkg"/*.egg-info
if (cd "$work" && "$vpy" -m pip install --no-build-isolation --no-index ./pkg) >"$work/pip.log" 2>&1; then
	ok "pip install --no-build-isolation --no-index ./python (offline)"
else
	nok "pip install --no-build-isolation --no-index ./python (offline)"
	diag <"$work/pip.log"
fi

# Imported from the venv (cwd and PYTHONPATH name no source copy).
where=$(cd / && "$vpy" -c 'import hetsched_report; print(hetsched_report.__file__)' 2>&1)
installed=
case "$where" in
"$work"/venv/lib/python3*/site-packages/hetsched_report.py)
	installed=$where
	ok "imports from the venv's site-packages" ;;
*) nok "imports from the venv's site-packages (got: $(echo "$where" | tail -n 1))" ;;
esac

meta=$(cd / && "$vpy" -c 'import importlib.metadata as m
d = m.metadata("hetsched-report")
print(d["Name"], d["Version"], d["License"], "summary" if d["Summary"] else "no-summary",
      m.version("hetsched-report") == __import__("hetsched_report").__version__)' 2>&1)
check "metadata: name, version $want (configure.ac), licence GPL-2.0-or-later, description ($(echo "$meta" | tail -n 1))" \
	test "$meta" = "hetsched-report $want GPL-2.0-or-later summary True"

# The API of the installed copy: wire format, and a no-op outside a job.
api=$(cd / && env -u HS_REPORT_SOCKET "$vpy" -c 'import hetsched_report as hs
print(hs.format_report(step=3, samples=192).decode(), hs.step(1, samples=64), hs.active(),
      sorted(set(hs.__all__) - set(dir(hs))))' 2>&1)
check "API from the venv: format_report, step() a no-op without the plugin ($(echo "$api" | tail -n 1))" \
	test "$api" = "hs1 step=3 samples=192 1 False []"

check "the same file as the source tree's module (nothing generated differs)" \
	cmp -s "$src/python/hetsched_report.py" "$installed"

# A proper install (RECORD): pip uninstall removes the module again.
if [ -f "$installed" ] && (cd / && "$vpy" -m pip uninstall -y hetsched-report) >"$work/uninstall.log" 2>&1 &&
	! [ -e "$installed" ]; then
	ok "pip uninstall removes it from the venv"
else
	nok "pip uninstall removes it from the venv"
	diag <"$work/uninstall.log"
fi

[ "$failed" = 0 ] || echo "# $failed of $n failed"
exit 0
