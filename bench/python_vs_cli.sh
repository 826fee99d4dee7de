#!/usr/bin/env bash
# bench/python_vs_cli.sh [GPUROOF [MAKE_BENCH_TRACE]]: the Python module against the CLI
# (docs/performance.md, "Python module").
#
# For each nsys-style export of SIZES activities (default 1 M) and, when KINETO_MB is set, a
# synthetic Kineto trace of that many MB, interleaved, REPS times (default 3), median wall time
# and largest peak RSS (GNU time):
#   cli     `gpuroof analyze FILE --format json > /dev/null`
#   python  `python3 -c 'import gpuroof; gpuroof.load(FILE).analyze()'`, the whole process
# then, inside one Python process, bench/python_module.py's split: load, analyze, ops() and the
# memory ops() adds per activity.
# Goals (the issue): python <= 1.1x cli wall time; ops() <= 1 s and <= 48 B/activity.
# Builds nothing: cmake --preset release && cmake --build build/release (GPUROOF_PYTHON on).
# Environment: GPUROOF, MAKE_BENCH_TRACE, BENCH_DIR, SIZES, REPS as bench/analyze_vs_sqlite.sh;
#   PYTHON (default /usr/bin/python3), PYTHONPATH (default <build>/python), KINETO_MB.
set -euo pipefail

bench_name=python_vs_cli.sh
# shellcheck source=bench/bench_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
bench_setup "$@"
sizes=${SIZES:-"1000000"}
python=${PYTHON:-/usr/bin/python3}
build_dir=$(dirname "$(dirname "$gpuroof")")
export PYTHONPATH=${PYTHONPATH:-$build_dir/python}
"$python" -c 'import gpuroof' 2>/dev/null ||
  die "no gpuroof module for $python under PYTHONPATH=$PYTHONPATH (build with GPUROOF_PYTHON=ON)"

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $("$python" --version 2>&1)"
traces=()
for size in $sizes; do
  file=$bench_dir/frames_$size.sqlite  # the same files as bench/analyze_vs_sqlite.sh
  [[ -f $file ]] || "$make_trace" "$size" "$file" >/dev/null || die "could not write $file"
  traces+=("$file")
done
if [[ -n ${KINETO_MB:-} ]]; then
  file=$bench_dir/bench_${KINETO_MB}mb.pt.trace.json
  [[ -f $file ]] || "$build_dir/bench/gpuroof-make-kineto-bench-trace" "$KINETO_MB" "$file" \
    2>/dev/null || die "could not write $file"
  traces+=("$file")
fi

measure() {  # measure NAME COMMAND...: appends "wall rss_kb" to $work/NAME
  /usr/bin/time -f '%e %M' -o "$work/time" "${@:2}" >/dev/null 2>&1 || die "$1 failed"
  cat "$work/time" >> "$work/$1"
}

status=0
for trace in "${traces[@]}"; do
  rm -f "$work/cli" "$work/python"
  cat "$trace" >/dev/null  # page cache: every run reads from memory
  for ((run = 0; run < reps; run++)); do
    measure cli "$gpuroof" analyze "$trace" --format json
    measure python "$python" -c \
      'import sys, warnings, gpuroof; warnings.simplefilter("ignore"); gpuroof.load(sys.argv[1]).analyze()' "$trace"
  done
  cli=$(cut -d' ' -f1 "$work/cli" | median)
  py=$(cut -d' ' -f1 "$work/python" | median)
  cli_rss=$(cut -d' ' -f2 "$work/cli" | sort -n | tail -n 1)
  py_rss=$(cut -d' ' -f2 "$work/python" | sort -n | tail -n 1)
  ratio=$(awk -v p="$py" -v c="$cli" 'BEGIN {printf "%.2f", p / c}')
  echo "$(basename "$trace"): cli ${cli} s (peak $((cli_rss / 1024)) MiB), python ${py} s" \
    "(peak $((py_rss / 1024)) MiB): ${ratio}x"
  awk -v r="$ratio" 'BEGIN {exit !(r <= 1.1)}' || status=1
  "$python" "$script_dir/python_module.py" "$trace" "$reps" | sed 's/^/  /'
done
exit $status
