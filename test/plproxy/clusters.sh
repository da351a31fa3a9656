#!/bin/sh
# test/plproxy/clusters.sh start|stop - a coordinator and three shard
# clusters for the PL/Proxy fan-out test, as the postgres user under
# /tmp/pysandbox-plproxy: the coordinator on port 54360, shards 0-2 on
# 54361-54363, each with its own socket directory's files and log.
#   PYSANDBOX_PRELOAD  1: pysandbox in shared_preload_libraries everywhere
set -u
DIR=${PYSANDBOX_PLPROXY_DIR:-/tmp/pysandbox-plproxy}
BIN=/usr/lib/postgresql/15/bin
NODES="coordinator:54360 shard0:54361 shard1:54362 shard2:54363"
as_pg() { su postgres -s /bin/sh -c "$*"; }

stop_all() {
	for n in $NODES; do
		d=$DIR/${n%%:*}
		[ -f "$d/postmaster.pid" ] && as_pg "$BIN/pg_ctl -D $d -m fast -w stop" >/dev/null 2>&1
	done
	return 0
}

case "${1:-}" in
start)
	stop_all
	rm -rf "$DIR"
	mkdir -p "$DIR"
	chown postgres "$DIR"
	for n in $NODES; do
		name=${n%%:*}
		port=${n##*:}
		as_pg "$BIN/initdb -D $DIR/$name -A trust -U postgres --no-sync" >/dev/null || exit 1
		cat >>"$DIR/$name/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$DIR'
port = $port
fsync = off
cluster_name = '$name'
log_line_prefix = '%m [%p] '
CONF
		if [ "${PYSANDBOX_PRELOAD:-0}" = 1 ]; then
			echo "shared_preload_libraries = 'pysandbox'" >>"$DIR/$name/postgresql.conf"
		fi
		as_pg "$BIN/pg_ctl -D $DIR/$name -l $DIR/$name.log -w start" >/dev/null || exit 1
	done
	;;
stop)
	stop_all
	;;
*)
	echo "usage: test/plproxy/clusters.sh start|stop" >&2
	exit 2
	;;
esac
