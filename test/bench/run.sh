#!/bin/sh
# test/bench/run.sh - the benchmark (doc/performance.md) in one command (Debian 12, as root).
#
# Installs PL/Python and psycopg2 if missing, builds the floor program
# (make floor), starts a throwaway cluster in /tmp/pysandbox-bench on port
# 54340 (never the test cluster's) with pysandbox in shared_preload_libraries
# (the cluster-wide fork server; PYSANDBOX_PRELOAD=0 measures the per-session
# worker instead), runs test/bench/bench.py with Debian's /usr/bin/python3,
# and stops the cluster.
# Arguments are passed to bench.py (e.g. --reps 3, --workloads 1,2).
#
# It assumes pysandbox is already built and installed (make && make install,
# or sh test/setup.sh).  Takes about 3-5 minutes on 2 cores.
set -u
cd "$(dirname "$0")/../.."

if [ "$(id -u)" != 0 ]; then
	echo "test/bench/run.sh: run as root (it installs packages and reads /proc of the postgres user)" >&2
	exit 1
fi

PKGS="postgresql-plpython3-15 python3-psycopg2 python3-pandas python3-numpy"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "== installing:$missing"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null 2>&1; then
		apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null ||
			{ echo "test/bench/run.sh: could not install$missing" >&2; exit 1; }
	fi
fi

make -s floor || { echo "test/bench/run.sh: could not build test/bench/sb-floor" >&2; exit 1; }

export PYSANDBOX_PRELOAD=${PYSANDBOX_PRELOAD:-1}
export PYSANDBOX_TEST_DIR=/tmp/pysandbox-bench PGPORT=54340
export PYSANDBOX_BENCH_THROWAWAY=1	# workload 7 may restart this cluster
export PGHOST=$PYSANDBOX_TEST_DIR PGUSER=postgres PGDATABASE=postgres

sh test/cluster.sh start || { echo "test/bench/run.sh: could not start the bench cluster" >&2; exit 1; }
trap 'sh test/cluster.sh stop' EXIT
trap 'exit 130' INT TERM

if ! out=$(psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION IF NOT EXISTS pysandbox' 2>&1); then
	echo "$out" >&2
	echo "test/bench/run.sh: CREATE EXTENSION pysandbox failed; build and install the extension first (make && make install as root, or sh test/setup.sh)" >&2
	exit 1
fi

echo "== pysandbox in shared_preload_libraries: $PYSANDBOX_PRELOAD"
/usr/bin/python3 test/bench/bench.py "$@"
