#!/bin/sh
# test/cluster.sh start|stop|status - a throwaway PostgreSQL 15 cluster for
# tests, run as the unprivileged "postgres" user (initdb refuses root) on a
# private port and socket directory, so no system cluster is touched.
#
#   PYSANDBOX_TEST_DIR  where the cluster lives (default /tmp/pysandbox-test)
#   PGPORT              its port (default 54329)
#   PYSANDBOX_PRELOAD   1: pysandbox in shared_preload_libraries, so calls
#                       go to the cluster-wide fork server
#   PYSANDBOX_EXTRA_CONF  a line appended to postgresql.conf (the benchmark
#                       compares pysandbox.preload_modules settings with it)
set -eu
DIR=${PYSANDBOX_TEST_DIR:-/tmp/pysandbox-test}
PORT=${PGPORT:-54329}
BIN=/usr/lib/postgresql/15/bin
RUNAS=postgres

as_pg() { su "$RUNAS" -s /bin/sh -c "$*"; }

case "${1:-}" in
start)
	if [ -f "$DIR/data/postmaster.pid" ] && as_pg "$BIN/pg_ctl -D $DIR/data status" >/dev/null 2>&1; then
		as_pg "$BIN/pg_ctl -D $DIR/data -m immediate stop" >/dev/null
	fi
	rm -rf "$DIR"
	mkdir -p "$DIR"
	chown "$RUNAS" "$DIR"
	as_pg "$BIN/initdb -D $DIR/data -A trust -U postgres --no-sync" >/dev/null
	cat >>"$DIR/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$DIR'
port = $PORT
fsync = off
log_line_prefix = '%m [%p] '
CONF
	if [ "${PYSANDBOX_PRELOAD:-0}" = 1 ]; then
		echo "shared_preload_libraries = 'pysandbox'" >>"$DIR/data/postgresql.conf"
	fi
	if [ -n "${PYSANDBOX_EXTRA_CONF:-}" ]; then
		echo "$PYSANDBOX_EXTRA_CONF" >>"$DIR/data/postgresql.conf"
	fi
	as_pg "$BIN/pg_ctl -D $DIR/data -l $DIR/log -w start" >/dev/null
	echo "cluster running: PGHOST=$DIR PGPORT=$PORT PGUSER=postgres (preload ${PYSANDBOX_PRELOAD:-0})"
	;;
restart)
	# keeps the data (postgresql.auto.conf included): workload 7 of the benchmark
	as_pg "$BIN/pg_ctl -D $DIR/data -l $DIR/log -m fast -w restart" >/dev/null
	;;
stop)
	if [ -d "$DIR/data" ]; then
		as_pg "$BIN/pg_ctl -D $DIR/data -m fast -w stop" >/dev/null 2>&1 || true
	fi
	;;
status)
	as_pg "$BIN/pg_ctl -D $DIR/data status"
	;;
*)
	echo "usage: test/cluster.sh start|restart|stop|status" >&2
	exit 2
	;;
esac
