#!/bin/sh
# test/load/pgbench.sh [CLIENTS] [CALLS] - concurrent sessions: pgbench runs
# CLIENTS clients (default 8) x CALLS sandbox calls each (default 1000)
# against the test cluster; every call must succeed and no sandbox process
# may be left behind.  Prints the throughput and "pgbench: N passed, M failed".
set -u
CLIENTS=${1:-8}
CALLS=${2:-1000}
SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"' EXIT
cat >"$SCRIPT" <<'SQL'
\set x random(1, 1000)
SELECT sandbox_execute('def main(x): return x * 2', jsonb_build_object('x', :x));
SQL
psql -X -q -c "CREATE EXTENSION IF NOT EXISTS pysandbox" >/dev/null 2>&1
out=$(/usr/lib/postgresql/15/bin/pgbench -n -c "$CLIENTS" -j 2 -t "$CALLS" -f "$SCRIPT" 2>&1)
rc=$?
echo "$out" | grep -E "number of (transactions|failed)|tps|latency average"
done=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
sleep 1
left=$(pgrep -c -f pysandbox-worker)
if [ $rc -eq 0 ] && [ "$done" = $((CLIENTS * CALLS)) ]; then
	echo "pgbench: $CLIENTS x $CALLS calls all succeeded; sandbox processes now: $left"
	echo "pgbench: 1 passed, 0 failed"
else
	echo "$out" | tail -5
	echo "pgbench: 0 passed, 1 failed"
	exit 1
fi
