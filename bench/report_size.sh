#!/usr/bin/env bash
# Whole-process benchmark of `gpuroof report` on a large nsys SQLite export: the page must stay
# small and quick to make however many ops the trace has (issue 8), because the timeline is
# drawn from a time-binned summary, never op by op.
#
# For each size (default 10 M activities), REPS runs (default 3) of
#   gpuroof report FILE --units N -o PAGE        (N = the kernel count)
# reporting the median wall time, the largest peak RSS (GNU time) and the page size.
# Goals, judged on every size: page < 2 MB (2,000,000 bytes) and median wall time < 3 s.
# Exits 0 when both hold, 1 when one fails, 2 on a usage or tool error.
#
# Builds nothing itself. Build first (Release, benchmarks on):
#   cmake --preset release && cmake --build build/release --target gpuroof gpuroof-make-bench-trace
#   bench/report_size.sh [GPUROOF [MAKE_BENCH_TRACE]]
# Environment (all optional): GPUROOF, MAKE_BENCH_TRACE, BENCH_DIR (traces, shared with
# analyze_vs_sqlite.sh and reused), SIZES, REPS, KEEP_PAGE (copy the last page there).
set -euo pipefail

bench_name=report_size.sh
# shellcheck source=bench/bench_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
bench_setup "$@"
sizes=${SIZES:-"10000000"}
max_page_bytes=2000000
max_wall_s=3

status=0
printf '%-12s %10s %12s %12s %8s\n' activities "wall s" "peak RSS MB" "page bytes" result
for n in $sizes; do
  trace=$bench_dir/bench_$n.sqlite
  [[ -s $trace ]] || "$make_trace" "$n" "$trace" >/dev/null || die "cannot write $trace"
  kernels=$(sqlite3 "$trace" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
  cat "$trace" >/dev/null  # warm the page cache, as a re-run would find it
  walls=()
  rss_max=0
  for ((rep = 0; rep < reps; rep++)); do
    /usr/bin/time -f '%e %M' -o "$work/time" \
      "$gpuroof" report "$trace" --units "$kernels" -q -o "$work/page.html"
    read -r wall rss <"$work/time"
    walls+=("$wall")
    ((rss > rss_max)) && rss_max=$rss
  done
  wall=$(printf '%s\n' "${walls[@]}" | median)
  bytes=$(stat -c %s "$work/page.html")
  result=PASS
  if ((bytes >= max_page_bytes)) || awk -v w="$wall" -v m="$max_wall_s" 'BEGIN {exit !(w >= m)}'; then
    result=FAIL
    status=1
  fi
  printf '%-12s %10s %12.1f %12s %8s\n' "$n" "$wall" "$(awk -v k="$rss_max" 'BEGIN {print k / 1024}')" "$bytes" "$result"
  [[ -n ${KEEP_PAGE:-} ]] && cp "$work/page.html" "$KEEP_PAGE"
done
echo "goals: page < $max_page_bytes bytes, median wall < $max_wall_s s (CPUs: $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
