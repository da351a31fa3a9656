#!/bin/sh
# test/standby/standby.sh - pysandbox on a hot standby.
#
# Starts a throwaway primary (port 54350) and a real streaming replica of it
# (pg_basebackup -R, port 54351), both as the postgres user under
# /tmp/pysandbox-standby, loads data on the primary, waits for the replica
# to replay it, and runs read-only sandbox calls on the replica: table
# inputs, sandbox_rows, sandbox_run and sandbox_validate must all work there
# (table inputs are read-only by construction), and a table input that
# would write must fail as it does on any read-only transaction.
# Prints one line per check and "standby: N passed, M failed".
set -u
DIR=${PYSANDBOX_STANDBY_DIR:-/tmp/pysandbox-standby}
BIN=/usr/lib/postgresql/15/bin
P1=54350
P2=54351
as_pg() { su postgres -s /bin/sh -c "$*"; }

# A fast (not immediate) stop lets each backend take its sandbox worker
# down cleanly; an immediate stop would leave them to init to reap.
stop_all() {
	for d in "$DIR/standby" "$DIR/primary"; do
		[ -f "$d/postmaster.pid" ] && as_pg "$BIN/pg_ctl -D $d -m fast -w stop" >/dev/null 2>&1
	done
}
stop_all
rm -rf "$DIR"
mkdir -p "$DIR"
chown postgres "$DIR"
trap stop_all EXIT

as_pg "$BIN/initdb -D $DIR/primary -A trust -U postgres --no-sync" >/dev/null || exit 1
cat >>"$DIR/primary/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$DIR'
port = $P1
wal_level = replica
max_wal_senders = 4
fsync = off
CONF
echo "local replication postgres trust" >>"$DIR/primary/pg_hba.conf"
as_pg "$BIN/pg_ctl -D $DIR/primary -l $DIR/primary.log -w start" >/dev/null || exit 1
as_pg "$BIN/pg_basebackup -h $DIR -p $P1 -U postgres -D $DIR/standby -R -X stream" || exit 1
cat >>"$DIR/standby/postgresql.conf" <<CONF
port = $P2
hot_standby = on
CONF
as_pg "$BIN/pg_ctl -D $DIR/standby -l $DIR/standby.log -w start" >/dev/null || exit 1

primary() { psql -X -q -At -h "$DIR" -p $P1 -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
replica() { psql -X -q -At -h "$DIR" -p $P2 -U postgres -d postgres "$@" 2>&1; }

primary -c "CREATE EXTENSION pysandbox" \
	-c "CREATE TABLE sales AS SELECT (ARRAY['north','south'])[1 + i % 2] AS region, i::numeric AS amount FROM generate_series(1, 1000) i" \
	-c "CREATE SEQUENCE s" || exit 1
lsn=$(primary -c "SELECT pg_current_wal_lsn()")
i=0
until [ "$(replica -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = "t" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "the replica did not catch up"; exit 1; }
	sleep 0.1
done

passed=0
failed=0
check() {
	name=$1
	want=$2
	got=$3
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name"
		echo "     want: $want"
		echo "     got:  $got"
	fi
}

check "the replica is in recovery" "t" "$(replica -c "SELECT pg_is_in_recovery()")"
check "sandbox_execute with a table input" '{"main": {"north": 250500, "south": 250000}}' \
	"$(replica -c "SELECT sandbox_execute(\$\$
def main(df):
    return df.groupby('region')['amount'].sum().astype(int)
\$\$, '{\"df\": {\"\$table\": \"sales\"}}')")"
check "sandbox_rows" "north|250500
south|250000" \
	"$(replica -c "SELECT * FROM sandbox_rows(\$\$
def main(df):
    return df.groupby('region', as_index=False)['amount'].sum()
\$\$, '{\"df\": {\"\$query\": \"SELECT * FROM sales\"}}') AS t(region text, amount int) ORDER BY 1")"
check "sandbox_run" "true" \
	"$(replica -c "SELECT sandbox_run('def main(): return 1')->'ok'")"
check "sandbox_validate" "false" \
	"$(replica -c "SELECT sandbox_validate('import os')->'ok'")"
check "sandbox_layers" "8" \
	"$(replica -c "SELECT count(*) FROM sandbox_layers() WHERE active")"
check "a table input that writes fails" "ERROR:  cannot execute nextval() in a read-only transaction" \
	"$(replica -c "SELECT sandbox_execute('def main(df): return 1', '{\"df\": {\"\$query\": \"SELECT nextval(''s'')\"}}')" | head -1)"

echo "standby: $passed passed, $failed failed"
[ "$failed" = 0 ]
