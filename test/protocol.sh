#!/bin/sh
# test/protocol.sh - a partial upgrade: the installed library with a worker
# binary of another protocol version (built from this tree with
# SB_PROTOCOL_VERSION one less) must refuse to work with it, with an error
# that says what happened and what to do, and work again once the matching
# binary is back.  Against the running test cluster (PGHOST/PGPORT/PGUSER),
# without shared_preload_libraries (a session starts its own worker); as
# root, since it swaps the installed worker binary.
set -eu
cd "$(dirname "$0")/.."
PKGLIB=$(/usr/lib/postgresql/15/bin/pg_config --pkglibdir)
WORK=${PYSANDBOX_PROTOCOL_DIR:-/tmp/pysandbox-protocol}
version=$(sed -n 's/^#define SB_PROTOCOL_VERSION[[:space:]]*\([0-9]*\).*/\1/p' src/protocol/sb_protocol.h)
[ -n "$version" ] || { echo "protocol: no SB_PROTOCOL_VERSION in sb_protocol.h"; exit 1; }
other=$((version - 1))

echo "== building a worker binary that speaks protocol version $other"
rm -rf "$WORK"
mkdir -p "$WORK"
git ls-files -z | xargs -0 tar -cf - | tar -x -C "$WORK"
make -s -C "$WORK" src/worker/pysandbox-worker \
	WORKER_CFLAGS="-std=gnu99 -O1 -D_GNU_SOURCE -fPIE -DSB_PROTOCOL_VERSION=$other" >"$WORK/build.log" 2>&1 ||
	{ tail -20 "$WORK/build.log"; echo "protocol: build failed"; exit 1; }

# the tree's own worker goes back however this ends (built first, so it can)
make -s src/worker/pysandbox-worker >/dev/null
restore() { make -s install-worker >/dev/null; }
trap restore EXIT
trap 'exit 1' INT TERM HUP
install -m 755 "$WORK/src/worker/pysandbox-worker" "$PKGLIB/pysandbox-worker"
refused=$(stat -c '%d:%i' "$PKGLIB/pysandbox-worker")

failed=0
got=$(psql -X -At -v VERBOSITY=verbose -c "SELECT sandbox_execute('def main(): return 1')" 2>&1 || true)
want_message="ERROR:  58000: sandbox worker speaks another protocol version"
want_detail="DETAIL:  This session's pysandbox library speaks protocol version $version; the worker binary $PKGLIB/pysandbox-worker answered with version $other: they come from different installations of pysandbox."
want_hint="HINT:  Install one version's library and worker binary together (make install, or the package), then reconnect; with pysandbox in shared_preload_libraries, restart the server."
for want in "$want_message" "$want_detail" "$want_hint"; do
	if printf '%s\n' "$got" | grep -qxF "$want"; then
		echo "ok   $want"
	else
		echo "FAIL expected the line: $want"
		failed=$((failed + 1))
	fi
done
[ "$failed" = 0 ] || printf 'got:\n%s\n' "$got"
# a process still running the refused binary (the file installed above:
# its inode), not the workers of other clusters on this machine: those
# that started one while it was installed descend from their own
# postmaster (a review's cluster did: ci48); an orphan counts as ours
postmaster=$(head -1 "${PYSANDBOX_TEST_DIR:-/tmp/pysandbox-test}/data/postmaster.pid" 2>/dev/null || echo 0)
ppid_of() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2
}
of_another_cluster() {
	p=$(ppid_of "$1")
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = "$postmaster" ] && return 1
		# a postmaster: a postgres process whose parent is not one
		if [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = /usr/lib/postgresql/15/bin/postgres ] &&
			[ "$(readlink "/proc/$(ppid_of "$p")/exe" 2>/dev/null)" != /usr/lib/postgresql/15/bin/postgres ]; then
			return 0
		fi
		p=$(ppid_of "$p")
	done
	return 1
}
refused_running() {
	for exe in /proc/[0-9]*/exe; do
		if [ "$(stat -L -c '%d:%i' "$exe" 2>/dev/null)" = "$refused" ]; then
			pid=${exe#/proc/}
			pid=${pid%/exe}
			of_another_cluster "$pid" || echo "/proc/$pid"
		fi
	done
	return 0
}
if [ -n "$(refused_running)" ]; then
	# it exits once it reads the closed socket, after its start-up: up to
	# 10 s on a loaded machine (ci15 looked after 1 s)
	waited=0
	while [ -n "$(refused_running)" ] && [ "$waited" -lt 20 ]; do
		sleep 0.5
		waited=$((waited + 1))
	done
	left=$(refused_running)
	if [ -n "$left" ]; then
		echo "FAIL a worker of the refused version was left running: $left"
		failed=$((failed + 1))
	fi
fi

restore
trap - EXIT
got=$(psql -X -At -c "SELECT sandbox_execute('def main(): return 1')" 2>&1 || true)
if [ "$got" = '{"main": 1}' ]; then
	echo "ok   the matching worker binary back: calls work again"
else
	echo "FAIL after restoring the worker binary: $got"
	failed=$((failed + 1))
fi
echo "protocol: $failed failed"
[ "$failed" = 0 ]
