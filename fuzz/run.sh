#!/usr/bin/env bash
# Runs fuzz targets one after another (the machine has 2 cores shared with other work), each
# for SECONDS, without a sanitizer (the code fuzzed has no unsafe) but with debug assertions
# and overflow checks. New inputs go to work/<target>/ (ignored by git); the committed seeds in
# corpus/<target>/ are only read. Logs: logs/<target>.log, ending with libFuzzer's final stats.
# Usage (from fuzz/): ./run.sh SECONDS TARGET...
set -uo pipefail
cd "$(dirname "$0")"
seconds=$1
shift
mkdir -p logs
for t in "$@"; do
    mkdir -p "work/$t"
    nice -n 19 cargo +nightly fuzz run -s none -a "$t" "work/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=60 \
        >"logs/$t.log" 2>&1
    echo "$t exit $? at $(date +%T)" >>logs/summary.txt
done
