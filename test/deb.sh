#!/bin/sh
# test/deb.sh - build the Debian package postgresql-15-pysandbox from a
# clean copy of the committed tree (debian/, pg_buildext), check what it
# holds, install it with dpkg, and run pg_regress against the installed
# package on a fresh test cluster (preloaded: the library loaded by the
# postmaster and the worker binary run as the fork server; the same files
# serve without preloading, which check.sh tests on the tree's build;
# PYSANDBOX_DEB_MODES="0 1" runs both).  Then
# remove the package and put back the build of this tree (make install), as
# the other tests expect.  As root; installs the build tools it needs.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=${PYSANDBOX_DEB_DIR:-/tmp/pysandbox-deb}
export PYSANDBOX_TEST_DIR=${PYSANDBOX_TEST_DIR:-/tmp/pysandbox-test}
export PGHOST=$PYSANDBOX_TEST_DIR PGPORT=${PGPORT:-54329} PGUSER=postgres PGDATABASE=postgres
PKG=postgresql-15-pysandbox
LIB=/usr/lib/postgresql/15/lib
EXT=/usr/share/postgresql/15/extension

fail() {
	echo "deb: $*" >&2
	exit 1
}

missing=""
for p in debhelper dpkg-dev fakeroot postgresql-server-dev-all libseccomp-dev python3-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "== installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

echo "== building the package from HEAD ($(git rev-parse --short HEAD))"
rm -rf "$WORK"
mkdir -p "$WORK/src"
git archive HEAD | tar -x -C "$WORK/src"
(cd "$WORK/src" && dpkg-buildpackage -us -uc -b >"$WORK/build.log" 2>&1) ||
	{ tail -40 "$WORK/build.log"; fail "dpkg-buildpackage failed (log: $WORK/build.log)"; }
DEB=$(ls "$WORK"/${PKG}_*.deb)
echo "built $(basename "$DEB")"

echo "== what it holds"
dpkg-deb -c "$DEB" >"$WORK/contents"
for f in "$LIB/pysandbox.so" "$LIB/pysandbox-worker" "$EXT/pysandbox.control" \
	"$EXT/pysandbox--0.1.sql" "$EXT/pysandbox--0.1--0.2.sql"; do
	grep -q " \.$f\$" "$WORK/contents" || fail "the package lacks $f"
done
depends=$(dpkg-deb -f "$DEB" Depends)
for d in postgresql-15 python3-pandas python3-numpy python3-matplotlib libseccomp2 libpython3.11; do
	echo "$depends" | grep -q "$d" || fail "Depends lacks $d: $depends"
done
echo "Depends: $depends"
[ "$(dpkg-deb -f "$DEB" Package)" = "$PKG" ] || fail "package name is not $PKG"

echo "== installing it"
# this tree's build goes back however this ends (built first, so it can)
make -s >/dev/null
restore() {
	dpkg -r "$PKG" >/dev/null 2>&1 || true
	(cd "$ROOT" && make -s install >/dev/null)
}
trap restore EXIT
trap 'exit 1' INT TERM HUP
# the files of this tree's make install are replaced by the package's
rm -f "$LIB/pysandbox.so" "$LIB/pysandbox-worker" "$EXT"/pysandbox*
dpkg -i "$DEB" >/dev/null || fail "dpkg -i failed"
dpkg -s "$PKG" | grep -q "Status: install ok installed" || fail "not installed"
[ -x "$LIB/pysandbox-worker" ] || fail "no worker binary after dpkg -i"
if ldd "$LIB/pysandbox.so" | grep -q libpython; then
	fail "the extension library links libpython"
fi

status=0
for preload in ${PYSANDBOX_DEB_MODES:-1}; do
	echo "== pg_regress against the installed package (preload $preload)"
	PYSANDBOX_PRELOAD=$preload sh test/cluster.sh start >/dev/null || fail "could not start the test cluster"
	# the committed tests (sql/, expected/ of HEAD) against the package's files
	if ! make -s -C "$WORK/src" installcheck >"$WORK/regress-$preload.log" 2>&1; then
		tail -20 "$WORK/regress-$preload.log"
		head -100 "$WORK/src/regression.diffs" 2>/dev/null
		status=1
	else
		grep -E "tests passed|tests failed" "$WORK/regress-$preload.log"
	fi
	sh test/cluster.sh stop >/dev/null
done
[ "$status" = 0 ] || fail "pg_regress failed against the installed package"
echo "deb: $PKG built, installed and tested"
