#!/bin/sh
# test/fuzz/build.sh [SECONDS] - build the libFuzzer target over the child's
# frames and run it for SECONDS (default 60) over the corpus in corpus/.
# Needs clang-14 and libclang-rt-14-dev (test/setup.sh installs them).
# A crash, a sanitizer report, a timeout or running out of memory fails it;
# the reproducer is left in test/fuzz/ (crash-*, timeout-*, oom-*).
set -u
cd "$(dirname "$0")"
mkdir -p build work
clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-o build/fuzz_decoder fuzz_decoder.c ../../src/protocol/sb_decode.c ../../src/protocol/sb_frame.c ||
	{ echo "fuzz_decoder: could not build"; echo "fuzz_decoder: 0 passed, 1 failed"; exit 1; }
# new inputs go to a scratch directory; corpus/ is the seed set kept in git
build/fuzz_decoder -max_total_time="${1:-60}" -max_len=4096 -timeout=5 -rss_limit_mb=512 \
	-print_final_stats=1 work corpus > build/fuzz.log 2>&1
rc=$?
tail -6 build/fuzz.log
if [ $rc -ne 0 ]; then
	grep -E "ERROR|SUMMARY|Test unit written" build/fuzz.log | head -5
	echo "fuzz_decoder: 0 passed, 1 failed"
	exit 1
fi
echo "fuzz_decoder: 1 passed, 0 failed"
