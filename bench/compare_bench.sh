#!/usr/bin/env bash
# Whole-process benchmark of `gpuroof compare` on two profiles of 1 million kernel launches each
# (issue 5's goal: under 2 s). The profiles are gpuroof-make-bench-trace's frame pipeline (one
# kernel, one H2D and one D2H copy per frame; 3 M activities per profile), the current one with
# every kernel 10 % slower and another jitter seed, so the gate has real work and a known answer:
# REGRESSED, exit 1. Two modes are timed:
#   launches   compare --baseline A --current B                  (per-launch samples)
#   iterations compare ... --iteration-range frame_batch         (10,000 iterations of 100 frames,
#                                                                  attributed through 3 M runtime
#                                                                  calls per profile)
# For each, REPS runs (default 3): the median wall time and the largest peak RSS (GNU time).
# Exits 0 when the launches mode meets the goal and both modes find the regression, 1 when not,
# 2 on a usage or tool error. The iterations mode's time is reported, not judged.
#
# Builds nothing itself. Build first (Release, benchmarks on):
#   cmake --preset release && cmake --build build/release --target gpuroof gpuroof-make-bench-trace
#   bench/compare_bench.sh [GPUROOF [MAKE_BENCH_TRACE]]
# Environment (all optional): GPUROOF, MAKE_BENCH_TRACE, BENCH_DIR (traces, reused), FRAMES
# (default 1000000), REPS, MAX_WALL_S (default 2).
set -euo pipefail

bench_name=compare_bench.sh
# shellcheck source=bench/bench_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
bench_setup "$@"
frames=${FRAMES:-1000000}
max_wall_s=${MAX_WALL_S:-2}
[[ $frames =~ ^[1-9][0-9]*$ ]] || die "FRAMES must be a positive number, got '$frames'"

activities=$((3 * frames))
base=$bench_dir/compare_base_$frames.sqlite
current=$bench_dir/compare_current_$frames.sqlite
[[ -s $base ]] || "$make_trace" "$activities" "$base" --iteration-frames 100 >/dev/null ||
  die "cannot write $base"
[[ -s $current ]] || "$make_trace" "$activities" "$current" --iteration-frames 100 --seed 1 \
  --kernel-scale 1.10 >/dev/null || die "cannot write $current"
cat "$base" "$current" >/dev/null  # warm the page cache, as a re-run would find it

status=0
printf '%-11s %10s %12s %8s %8s\n' mode "wall s" "peak RSS MB" exit result
for mode in launches iterations; do
  args=(compare --baseline "$base" --current "$current" -q)
  [[ $mode == iterations ]] && args+=(--iteration-range frame_batch)
  walls=()
  rss_max=0
  code=0
  for ((rep = 0; rep < reps; rep++)); do
    code=0
    /usr/bin/time -f '%e %M' -o "$work/time" "$gpuroof" "${args[@]}" >"$work/out" 2>"$work/err" ||
      code=$?
    # GNU time puts "Command exited with non-zero status N" first when the gate fails (exit 1).
    read -r wall rss < <(tail -n 1 "$work/time")
    walls+=("$wall")
    ((rss > rss_max)) && rss_max=$rss
  done
  ((code == 2)) && die "$mode: gpuroof compare failed: $(tail -n 1 "$work/err")"
  wall=$(printf '%s\n' "${walls[@]}" | median)
  result=PASS
  # The kernels are 10 % slower: anything but a regression means the gate did not do its job.
  # The time goal is the issue's, for launches; iterations also read 3 M runtime calls per
  # profile (SQLite alone takes ~0.9 s per profile to scan them), so their time is reported only.
  if ((code != 1)) || ! grep -q REGRESSED "$work/out"; then
    result=FAIL
    status=1
  elif [[ $mode == iterations ]]; then
    result=info
  elif awk -v w="$wall" -v m="$max_wall_s" 'BEGIN {exit !(w >= m)}'; then
    result=FAIL
    status=1
  fi
  printf '%-11s %10s %12.1f %8s %8s\n' "$mode" "$wall" "$(awk -v k="$rss_max" 'BEGIN {print k / 1024}')" \
    "$code" "$result"
done
echo "profiles: $frames kernel launches each ($activities activities); goal (launches): median wall < $max_wall_s s"
echo "CPUs: $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
