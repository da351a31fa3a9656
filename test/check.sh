#!/bin/sh
# test/check.sh - set up everything on a fresh Debian 12 machine (as root),
# start a throwaway cluster, and run every test:
#   1. Python-layer unit tests (validator, guard, request handling)
#   2. pg_regress (sql/, expected/)
#   3. the hostile-payload suite, with and without the Python layer (also
#      as LANGUAGE pysandbox functions), and the syscall probe (the seccomp
#      filter against its policy table)
#   4. the lifecycle suite (cancel, terminate, leaks)
#   5. the agent repair-loop example of the README, a chart against its
#      reference image (test/charts.py), every SQL example of
#      the README run verbatim (test/readme.py), the upgrade from 0.1
#      (test/upgrade.py), and pg_dump and restore of functions in the
#      language (test/dump.py)
#   6. a bounded libFuzzer run over the frame and column checks
#   7. a real streaming replica: sandbox calls on a hot standby
#   8. the soak (10,000 mixed calls) and pgbench (8 x 250 calls here, 8 x
#      1,000 with the fork server in 9); set PYSANDBOX_SOAK_CALLS /
#      PYSANDBOX_PGBENCH_CALLS lower for a quick run
#   9. again with pysandbox in shared_preload_libraries (the cluster-wide
#      fork server): pg_regress, the hostile suite (Python layer on and
#      off), the syscall probe, the statistics and audit lines (test/stat.py;
#      its audit part also runs in step 5), the agent example, the pandas corpus (real
#      pandas code, as in plain Python), the fork-server suite (its
#      lifecycle: restart, peer credentials, max_concurrent), per-group
#      runs over partitions (test/load/groups_partitioned.py), pgbench, and
#      the fan-out over a coordinator and three PL/Proxy shards
#      (test/plproxy/fanout.py runs doc/scale-out.md's SQL verbatim)
#  10. once more with scipy, sklearn and statsmodels preloaded and allowed:
#      their code as in plain Python (test/corpus/libraries.py), the README's
#      example of them, the hostile suite and every third snippet of the
#      pandas corpus
#  11. the libraries' mappings left unsealed (PYSANDBOX_TEST_NO_SEAL, as on
#      a kernel without mseal): the payloads that trade their address space
#  12. the Debian package: built with pg_buildext, installed with dpkg,
#      pg_regress against it with the fork server (test/deb.sh)
# Exits non-zero if anything failed; the last line sums it up.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)

export PYSANDBOX_TEST_DIR=${PYSANDBOX_TEST_DIR:-/tmp/pysandbox-test}
export PGHOST=$PYSANDBOX_TEST_DIR PGPORT=${PGPORT:-54329} PGUSER=postgres PGDATABASE=postgres

check_started=$(date +%s)
sh test/setup.sh || { echo "check: setup failed"; exit 1; }
sh test/cluster.sh start || { echo "check: could not start the test cluster"; exit 1; }
trap 'sh "$ROOT/test/cluster.sh" stop; rm -f "${step_log:-}" "${failure_lines:-}"' EXIT

passed=0
failed=0
failed_names=""
# each step's output is kept (step_log) so that a failed step's own failure
# lines can be shown again at the end: a CI that keeps only the head and the
# tail of a 9,000-line log shows which payload or test failed, not only which
# step (the lines a step prints on failure: FAIL, "!" details, FAILED,
# tracebacks' last lines, pg_regress' "failed")
step_log=$(mktemp /tmp/pysandbox-check-step.XXXXXX)
failure_lines=$(mktemp /tmp/pysandbox-check-failures.XXXXXX)
run() {
	name=$1
	shift
	echo "== $name"
	started=$(date +%s)
	# shown as it comes (tail ends with the step, not with a process the
	# step left holding a pipe, as a pipe through tee would wait for)
	"$@" > "$step_log" 2>&1 &
	step_pid=$!
	tail -n +1 -s 0.2 -f --pid="$step_pid" "$step_log"
	if wait "$step_pid"; then
		passed=$((passed + 1))
		echo "== $name: ok in $(($(date +%s) - started)) s"
	else
		failed=$((failed + 1))
		failed_names="$failed_names
  - $name"
		echo "== $name FAILED after $(($(date +%s) - started)) s"
		{
			echo "-- $name:"
			grep -E '^FAIL|^ +! |FAILED|^(ERROR|FAIL):|^not ok| failed( |,|$)' "$step_log" |
				head -40
			echo "   (its last lines:)"
			tail -5 "$step_log" | sed 's/^/   /'
		} >> "$failure_lines"
	fi
}

# every test/python/test_*.py, each in a process of its own (each hardens
# the libraries as a worker does, once): the validator and guards, the
# codec, the request handling, matplotlib's guards and the reviews' cases
for t in test/python/test_*.py; do
	run "unit tests: $t" sh -c "cd test/python && /usr/bin/python3 -m unittest -q $(basename "$t" .py)"
done
run "pg_regress" sh -c 'make -s installcheck || { cat regression.diffs 2>/dev/null | head -200; exit 1; }'
run "fuzz: the backend's checks on the child's frames (60 s)" sh test/fuzz/build.sh 60
run "hot standby" sh test/standby/standby.sh
run "the README's SQL examples, verbatim" /usr/bin/python3 test/readme.py
run "charts: a PNG shows what matplotlib draws, against a reference image" /usr/bin/python3 test/charts.py
run "upgrade from 0.1: uses of it keep working, same objects as a fresh install" /usr/bin/python3 test/upgrade.py
run "pg_dump and restore of functions in the language" /usr/bin/python3 test/dump.py
run "audit lines (pysandbox.log_calls); the views without preloading" /usr/bin/python3 test/stat.py
run "a worker binary of another protocol version is refused" sh test/protocol.sh
for t in test/security/hostile.py test/security/syscall_probe.py test/agent_example.py; do
	[ -f "$t" ] && run "$t" /usr/bin/python3 "$t"
done
run "hostile payloads as LANGUAGE pysandbox functions (Python layer on and off)" \
	/usr/bin/python3 test/security/hostile.py --modes on,off --via language
run "hostile payloads in workspaces (Python layer on and off)" \
	/usr/bin/python3 test/security/hostile.py --modes on,off --via workspace
# the soak: 10,000 consecutive calls mixing successes, exceptions, timeouts,
# cancels, memory bombs and crashes, after the lifecycle checks
run "lifecycle and soak (10,000 calls)" /usr/bin/python3 test/lifecycle/lifecycle.py --calls "${PYSANDBOX_SOAK_CALLS:-10000}"
# 8 x 1,000 (the bar) with the fork server below; here, a worker per
# session, 8 x 250
run "pgbench: 8 clients x 250 calls" sh test/load/pgbench.sh 8 "${PYSANDBOX_PGBENCH_CALLS:-250}"
run "a table input over 1 GB, and the input limit" /usr/bin/python3 test/load/big_input.py

crashed() {
	if grep -E "terminated by signal|server process .* was terminated|database system was interrupted" "$PYSANDBOX_TEST_DIR/log" >/dev/null 2>&1; then
		echo "== the server log shows a crashed backend:"
		grep -E "terminated by signal|was terminated" "$PYSANDBOX_TEST_DIR/log" | head
		failed=$((failed + 1))
		failed_names="$failed_names
  - a crashed backend in the server log"
	fi
}
crashed

# the same extension with the cluster-wide fork server
echo "== restarting the cluster with shared_preload_libraries = 'pysandbox'"
PYSANDBOX_PRELOAD=1 sh test/cluster.sh start || { echo "check: could not start the preloaded cluster"; exit 1; }
run "preload: pg_regress" sh -c 'make -s installcheck || { cat regression.diffs 2>/dev/null | head -200; exit 1; }'
run "preload: fork server (restart, peer credentials, max_concurrent)" /usr/bin/python3 test/lifecycle/forkserver.py
run "preload: group_by with parallel over partitions (paths, answers, failures)" /usr/bin/python3 test/load/groups_partitioned.py
run "preload: hostile (Python layer on and off)" /usr/bin/python3 test/security/hostile.py --modes on,off
run "preload: syscall probe" /usr/bin/python3 test/security/syscall_probe.py
run "preload: pysandbox_stat, pysandbox_activity, audit lines (8 clients add up)" /usr/bin/python3 test/stat.py
run "preload: agent example" /usr/bin/python3 test/agent_example.py
run "preload: charts against the reference image" /usr/bin/python3 test/charts.py
run "preload: the pandas corpus (>= 97 % as in plain Python)" /usr/bin/python3 test/corpus/run_corpus.py
run "preload: pgbench 8 clients" sh test/load/pgbench.sh 8 "${PYSANDBOX_PGBENCH_CALLS:-1000}"
run "preload: fan-out over three PL/Proxy shards (doc/scale-out.md verbatim)" \
	env PYSANDBOX_PRELOAD=1 /usr/bin/python3 test/plproxy/fanout.py
crashed

# the analyst's libraries (scipy, sklearn, statsmodels) preloaded and
# allowed: their native code is mapped in the worker, and the OS layers must
# hold all the same
echo "== restarting the cluster with scipy, sklearn and statsmodels preloaded and allowed"
library_conf=$(/usr/bin/python3 test/corpus/libraries.py --conf) && [ -n "$library_conf" ] ||
	{ echo "check: test/corpus/libraries.py --conf failed"; exit 1; }
PYSANDBOX_PRELOAD=1 PYSANDBOX_EXTRA_CONF="$library_conf" \
	sh test/cluster.sh start || { echo "check: could not start the cluster with the libraries"; exit 1; }
run "libraries: scipy, sklearn, statsmodels as in plain Python" /usr/bin/python3 test/corpus/libraries.py --strict
run "libraries: the README's example" /usr/bin/python3 test/readme.py
run "libraries: hostile (Python layer on and off)" /usr/bin/python3 test/security/hostile.py --modes on,off
# (every third snippet: the whole corpus ran with the fork server above)
run "libraries: the pandas corpus (every third snippet)" /usr/bin/python3 test/corpus/run_corpus.py --every 3
crashed

# a kernel without mseal (Debian 12's own 6.1, say), as far as the worker
# can tell: its libraries' mappings left unsealed, the trades of their
# address space for memory must still be stopped (review 95)
unsealed() {
	psql -Xq -c "CREATE EXTENSION IF NOT EXISTS pysandbox" &&
		psql -Xqt -c "SELECT detail FROM sandbox_layers() WHERE layer = 'rlimits'" |
		grep -q "mappings are not sealed" &&
		/usr/bin/python3 test/security/hostile.py --modes off --only inherited
}
echo "== restarting the cluster with the libraries' mappings unsealed (PYSANDBOX_TEST_NO_SEAL)"
PYSANDBOX_PRELOAD=1 PYSANDBOX_TEST_NO_SEAL=1 sh test/cluster.sh start ||
	{ echo "check: could not start the unsealed cluster"; exit 1; }
run "unsealed: sandbox_layers says so; trades of inherited address space stopped" unsealed
crashed

# the Debian package, built from the committed tree, installed and tested
# (it restarts the test cluster itself, and puts this tree's build back)
run "Debian package: build, install, pg_regress against it" sh test/deb.sh

# what failed, again at the end: a CI that keeps only the tail shows it
[ -n "$failed_names" ] && echo "check: failed:$failed_names"
if [ -s "$failure_lines" ]; then
	echo "check: what the failed steps printed of their failures:"
	cat "$failure_lines"
fi
echo "check: $passed passed, $failed failed in $(($(date +%s) - check_started)) s"
[ "$failed" = 0 ]
