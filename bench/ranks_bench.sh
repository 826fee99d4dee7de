#!/usr/bin/env bash
# bench/ranks_bench.sh [BUILD_DIR [RANKS [STEPS [KERNELS_PER_STEP]]]]
#
# The `gpuroof ranks` benchmark of docs/performance.md ("Ranks"): writes RANKS synthetic Kineto
# rank traces (bench/make_rank_traces.py; default 64 ranks of about 29 MB of JSON), then runs
# `gpuroof ranks` with --jobs 1 and --jobs 2 and `gpuroof analyze` on the largest trace (wall
# time and peak RSS from /usr/bin/time), and checks that the planted straggler and late rank
# are found. When the build has GPUROOF_MPI and mpirun is on PATH, also `mpirun -n 2 gpuroof
# ranks --jobs 1` (the same two cores as --jobs 2; its peak RSS is the largest process's) and
# checks that its CSV equals the single process's.
set -euo pipefail
build=${1:-build/release}
ranks=${2:-64}
steps=${3:-40}
kernels=${4:-2000}
gpuroof=$build/src/gpuroof
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/job"
python3 "$here/make_rank_traces.py" "$dir/job" "$ranks" "$steps" "$kernels"
cat "$dir"/job/* > /dev/null  # page cache: every run reads from memory
largest=$(ls -S "$dir"/job/* | head -1)
echo "set: $ranks traces, $(du -sb "$dir/job" | cut -f1) bytes gzipped; CPUs busy: $(uptime | sed 's/.*load average: //')"
run() {  # label, then the command
  local label=$1
  shift
  /usr/bin/time -f '%e %M' -o "$dir/time" "$@" > "$dir/out"
  read -r wall rss_kb < "$dir/time"
  echo "$label: $wall s wall, peak $rss_kb KiB ($((rss_kb / 1024)) MiB)"
}
run "analyze (largest trace)" "$gpuroof" analyze "$largest"
analyze_wall=$wall analyze_kb=$rss_kb
run "ranks --jobs 1" "$gpuroof" ranks "$dir/job" --jobs 1 --format csv
jobs1_wall=$wall
run "ranks --jobs 2" "$gpuroof" ranks "$dir/job" --jobs 2 --format csv
# The issue's goals (docs/performance.md, §13). One analyze run is noisy: repeat the bench.
awk -v a="$analyze_wall" -v akb="$analyze_kb" -v j1="$jobs1_wall" -v j2="$wall" -v kb="$rss_kb" \
  -v n="$ranks" 'function verdict(ok) { return ok ? "pass" : "FAIL" } BEGIN {
  printf "goal --jobs 2 <= 0.6 x --jobs 1: %.2f (%s)\n", j2 / j1, verdict(j2 / j1 <= 0.6)
  printf "goal per-core throughput >= 80 %% of analyze: %.0f %% (%.3f s per trace against %.3f s) (%s)\n",
    100 * a * n / j1, j1 / n, a, verdict(a * n / j1 >= 0.8)
  printf "goal --jobs 2 peak <= 2 x analyze peak: %d KiB against %d KiB (%s)\n", kb, 2 * akb,
    verdict(kb <= 2 * akb) }'
if grep -q '^GPUROOF_MPI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && command -v mpirun > /dev/null; then
  cp "$dir/out" "$dir/out.jobs2"
  if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  run "mpirun -n 2 ranks --jobs 1" mpirun -n 2 --oversubscribe "$gpuroof" ranks "$dir/job" --jobs 1 --format csv
  if cmp -s "$dir/out" "$dir/out.jobs2"; then echo "mpirun: same CSV as one process"; else echo "mpirun: CSV DIFFERS"; fi
fi
straggler=$(awk -F, 'NR > 1 && $0 ~ /compute-bound/ { print $1 }' "$dir/out")
"$gpuroof" ranks "$dir/job" --jobs 2 --format json > "$dir/json"
late=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["collectives"]["instances"][0]["last_rank"])' "$dir/json")
echo "found: straggler rank $straggler (compute-bound), latest at the widest collective: rank $late"
if [ "$straggler" = "$((ranks / 3))" ] && [ "$late" = "$((ranks - 1))" ]; then
  echo "goal the planted straggler ($((ranks / 3))) and late rank ($((ranks - 1))) are found: pass"
else
  echo "goal the planted straggler ($((ranks / 3))) and late rank ($((ranks - 1))) are found: FAIL"
fi
