#!/usr/bin/env bash
# What `gpuroof record` costs a CUDA program, measured on a machine with an NVIDIA GPU.
#
# Runs the bundled frame pipeline (examples/cuda/pipeline.cu) in three configurations, each one
# binding a different engine (H2D, kernel, D2H), and per configuration in three modes,
# interleaved (a b c, a b c, ...) REPS times after one untimed warm-up run:
#   a  bare:                  gpuroof_pipeline ARGS
#   b  recorded:              gpuroof record -o TRACE -- gpuroof_pipeline ARGS
#   c  recorded with NVTX:    gpuroof record --nvtx -o TRACE -- gpuroof_pipeline ARGS --nvtx 1
#      (the pipeline then wraps each frame in an NVTX push/pop range, so (c) exercises the
#      recorder's NVTX path; (a) and (b) make no NVTX calls)
# Frames/s is the pipeline's own wall-clock figure ("wall ... -> N frames/s": the timed frames
# only, after its warm-up frames, before the recorder's flush at exit), median over the reps.
# Overhead % = (1 - median(b or c) / median(a)) x 100: the throughput the recorder took.
# Engine check: each (b) trace is analysed with
#   gpuroof analyze TRACE --units FRAMES+STREAMS --window all --format csv
# (the pipeline also runs one untimed frame per stream, which the trace holds too), and the
# binding engine's busy time per frame is compared with the pipeline's own CUDA-event time per
# timed frame ("events S s": start to stop event around the timed frames). When one engine binds,
# it is busy for the whole event interval, so the two agree up to the pipeline's ramp-up/drain.
#
# Goals (from issue 7), each printed PASS or FAIL:
#   1. overhead of (b) <= 3 % in every configuration
#   2. zero records lost in every recorded run (b and c): none dropped by CUPTI, none left out for
#      want of a timestamp (gpuroof record's "N records ... had no timestamps" warning)
#   3. binding-engine busy per frame within 1 % of the pipeline's event time per frame (median
#      over the (b) runs of each configuration), and the binding engine is the one intended
#   4. every recorded run holds exactly the pipeline's work (examples/cuda/pipeline.cu: one
#      untimed frame per stream plus FRAMES frames, each a kernel, an H2D and a D2H copy):
#      (b) 3 x (FRAMES + STREAMS) records = kernels (FRAMES + STREAMS) + copies
#      2 x (FRAMES + STREAMS); (c) that plus one NVTX range per frame, 4 x (FRAMES + STREAMS)
# Exits 0 when every goal passes, 1 when one fails, 2 on a usage or tool error (no GPU, no
# driver, a build or run that failed, output that could not be parsed).
#
# Usage: bench/device/record_overhead.sh [BUILD_DIR]
#   BUILD_DIR  a build tree holding src/gpuroof, recorder/libgpuroof_recorder.so and
#              examples/cuda/gpuroof_pipeline (prebuilt: used as is). Without it, or when it lacks
#              them, the script configures (Release, tests off) and builds those three targets
#              there (default build/record-overhead); CMake must find nvcc and CUPTI.
# Environment (all optional):
#   BUILD_DIR   as the argument             REPS     runs per mode (default 5)
#   GPUROOF     gpuroof binary, PIPELINE the pipeline binary, instead of BUILD_DIR's (both given:
#               nothing is built)
#   WORK_DIR    logs, traces, runs.csv, summary.csv (default ${TMPDIR:-/tmp}/gpuroof-record-overhead;
#               emptied first)
#   STREAMS     pipeline streams (default 4)  NVIDIA_SMI  nvidia-smi to ask for GPUs
#   GOAL_OVERHEAD_PCT (3), GOAL_ENGINE_PCT (1)
set -euo pipefail

die() {
  echo "record_overhead.sh: error: $*" >&2
  exit 2
}

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}

case "${1:-}" in
  -h | --help)
    usage
    exit 0
    ;;
  -*) die "unknown option $1 (usage: bench/device/record_overhead.sh [BUILD_DIR])" ;;
esac
[[ $# -le 1 ]] || die "too many arguments (usage: bench/device/record_overhead.sh [BUILD_DIR])"

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/../.." && pwd)
build_dir=${1:-${BUILD_DIR:-$repo_dir/build/record-overhead}}
reps=${REPS:-5}
streams=${STREAMS:-4}
work_dir=${WORK_DIR:-${TMPDIR:-/tmp}/gpuroof-record-overhead}
nvidia_smi=${NVIDIA_SMI:-nvidia-smi}
goal_overhead_pct=${GOAL_OVERHEAD_PCT:-3}
goal_engine_pct=${GOAL_ENGINE_PCT:-1}
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "REPS=$reps is not a positive whole number"
[[ $streams =~ ^[1-9][0-9]*$ ]] || die "STREAMS=$streams is not a positive whole number"

# Configurations: name, the engine meant to bind, frames, --frame-bytes, --result-bytes,
# --kernel-us. Sized for PCIe 5 (~50 GB/s each way) and about a second of timed frames each. The
# kernel runs on one block, so kernels of different streams run side by side: kernel-bound needs
# kernel-us / STREAMS well above the copies. The D2H-bound kernel writes its 16 MiB result from
# one SM, which may take longer than the copy itself (0.3 ms); each stream runs kernel then copy,
# so D2H binds only while (STREAMS - 1) copies outlast one kernel: hence 4 streams by default.
configs=(
  "h2d-bound H2D 1500 33554432 65536 100"
  "kernel-bound kernel 4000 1048576 65536 1000"
  "d2h-bound D2H 3000 65536 16777216 100"
)

# --- a GPU and a driver, before anything is built -------------------------------------------
command -v "$nvidia_smi" > /dev/null 2>&1 ||
  die "no GPU here: $nvidia_smi not found (this benchmark needs an NVIDIA GPU and driver)"
gpu_list=$("$nvidia_smi" -L 2>&1) || die "no GPU here: $nvidia_smi -L failed: ${gpu_list//$'\n'/ }"
grep -q '^GPU [0-9]' <<< "$gpu_list" || die "no GPU here: $nvidia_smi -L lists none"

# --- the binaries ------------------------------------------------------------------------------
gpuroof=${GPUROOF:-$build_dir/src/gpuroof}
pipeline=${PIPELINE:-$build_dir/examples/cuda/gpuroof_pipeline}
needs_build=0
if [[ -z ${GPUROOF:-} && (! -x $gpuroof || ! -f $build_dir/recorder/libgpuroof_recorder.so) ]]; then
  needs_build=1
fi
if [[ -z ${PIPELINE:-} && ! -x $pipeline ]]; then needs_build=1; fi
if ((needs_build)); then
  echo "building gpuroof, libgpuroof_recorder.so and gpuroof_pipeline in $build_dir" >&2
  mkdir -p "$build_dir"
  if [[ ! -f $build_dir/CMakeCache.txt ]]; then
    cmake -S "$repo_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DGPUROOF_BUILD_TESTS=OFF \
      > "$build_dir/record-overhead-configure.log" 2>&1 ||
      die "cmake configure failed; see $build_dir/record-overhead-configure.log"
  fi
  cmake --build "$build_dir" -j "$(nproc)" --target gpuroof gpuroof_recorder gpuroof_pipeline \
    > "$build_dir/record-overhead-build.log" 2>&1 ||
    die "build failed (CMake needs nvcc and CUPTI for the recorder and the pipeline); see" \
      "$build_dir/record-overhead-build.log"
fi
[[ -x $gpuroof ]] || die "$gpuroof: no gpuroof binary there"
[[ -x $pipeline ]] || die "$pipeline: no pipeline binary there (was nvcc found?)"

rm -rf "$work_dir"
mkdir -p "$work_dir"

# --- can this machine record? (gpuroof record checks the library and the driver first) --------
if ! "$gpuroof" record -o "$work_dir/preflight.sqlite" -- \
  "$pipeline" --frames 4 --streams 1 > "$work_dir/preflight.out" 2> "$work_dir/preflight.err"; then
  reason=$(grep -m1 'gpuroof: error:' "$work_dir/preflight.err" || tail -n 1 "$work_dir/preflight.err")
  if grep -Eq 'no NVIDIA driver|cuInit failed|sees no GPU|built without the CUDA recorder' \
    "$work_dir/preflight.err"; then
    die "gpuroof record cannot record here: $reason"
  fi
  die "a first recorded run of the pipeline failed: $reason (see $work_dir/preflight.err)"
fi

# "events S s -> F frames/s; wall W s -> F frames/s" from the pipeline's stdout: prints "S W F".
pipeline_figures() {
  awk '$1 == "pipeline:" && $2 == "events" { print $3, $9, $12; found = 1; exit }
       END { if (!found) exit 1 }' "$1"
}

# The first "N records written to FILE (D dropped)" line of gpuroof record (the output, the
# trace with the most records): prints "N D".
record_counts() {
  sed -n 's/^gpuroof record: \([0-9][0-9]*\) records written to .* (\([0-9][0-9]*\) dropped)$/\1 \2/p' \
    "$1" | head -n 1
}

# Records left out for want of a timestamp, summed over gpuroof record's warnings
# ("warning: N records in process P had no timestamps ..."): prints the sum (0 without any).
zero_timestamp_count() {
  sed -n 's/^gpuroof record: warning: \([0-9][0-9]*\) records in process [0-9]* had no timestamps.*/\1/p' \
    "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# From `analyze --format csv`, device 0's bottleneck and its busy per frame: prints "ENGINE US".
trace_binding() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
           NR == 2 { e = col["bottleneck"]; u = col["roofline_us_per_frame"]
                     if (e && u && $e != "" && $u != "") { print $e, $u; found = 1 }; exit }
           END { if (!found) exit 1 }' "$1"
}

# --- the runs ----------------------------------------------------------------------------------
runs_csv=$work_dir/runs.csv
echo "config,intended,frames,mode,rep,events_s,wall_s,wall_fps,records,expected_records,dropped,zero_timestamps,bottleneck,trace_us_per_frame" \
  > "$runs_csv"

run_one() { # config intended-engine frames mode rep pipeline-args...
  local config=$1 intended=$2 frames=$3 mode=$4 rep=$5
  shift 5
  local stem=$work_dir/$config.$mode.$rep
  local -a command=("$pipeline" "$@")
  case $mode in
    b) command=("$gpuroof" record -o "$stem.sqlite" -- "${command[@]}") ;;
    c) command=("$gpuroof" record --nvtx -o "$stem.sqlite" -- "${command[@]}" --nvtx 1) ;;
  esac
  "${command[@]}" > "$stem.out" 2> "$stem.err" ||
    die "$config, mode $mode, run $rep: exited with status $?: $(head -n 1 "$stem.err") (see $stem.err)"
  local figures
  figures=$(pipeline_figures "$stem.out") ||
    die "$stem.out: no 'pipeline: events ... wall ...' line in the pipeline's output"
  read -r events_s wall_s wall_fps <<< "$figures"
  local records=- expected=- dropped=- zero_ts=- bottleneck=- trace_us=-
  if [[ $mode != a ]]; then
    local counts
    counts=$(record_counts "$stem.err")
    [[ -n $counts ]] || die "$stem.err: gpuroof record printed no 'N records written' line"
    read -r records dropped <<< "$counts"
    zero_ts=$(zero_timestamp_count "$stem.err")
    # Kernels (frames + streams) and copies 2 x (frames + streams); with NVTX one range per frame.
    expected=$((3 * (frames + streams)))
    [[ $mode == c ]] && expected=$((4 * (frames + streams)))
  fi
  if [[ $mode == b ]]; then
    "$gpuroof" analyze "$stem.sqlite" --units $((frames + streams)) --window all --format csv \
      > "$stem.csv" 2> "$stem.analyze.err" ||
      die "$stem.sqlite: gpuroof analyze failed: $(tail -n 1 "$stem.analyze.err")"
    local binding
    binding=$(trace_binding "$stem.csv") ||
      die "$stem.csv: no bottleneck in the analyze output"
    read -r bottleneck trace_us <<< "$binding"
  fi
  echo "$config,$intended,$frames,$mode,$rep,$events_s,$wall_s,$wall_fps,$records,$expected,$dropped,$zero_ts,$bottleneck,$trace_us" \
    >> "$runs_csv"
}

for spec in "${configs[@]}"; do
  read -r name engine frames frame_bytes result_bytes kernel_us <<< "$spec"
  args=(--frames "$frames" --streams "$streams" --frame-bytes "$frame_bytes"
    --result-bytes "$result_bytes" --kernel-us "$kernel_us")
  echo "$name: ${args[*]}" >&2
  # Untimed: the first run after a pause pays for clocks ramping up and caches filling.
  "$pipeline" "${args[@]}" > "$work_dir/$name.warmup.out" 2>&1 ||
    die "$name: the warm-up run failed: $(tail -n 1 "$work_dir/$name.warmup.out")"
  for ((rep = 1; rep <= reps; ++rep)); do
    for mode in a b c; do
      run_one "$name" "$engine" "$frames" "$mode" "$rep" "${args[@]}"
    done
  done
done

# --- the table and the goals --------------------------------------------------------------------
# Per configuration: medians over the reps, records dropped in all recorded runs, the distinct
# bottlenecks of the (b) runs (one name when the configuration binds clearly), and the (b) runs'
# binding-engine busy per frame against the pipeline's event time per timed frame.
summary_csv=$work_dir/summary.csv
awk -F, -v OFS=, '
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    if (n == 0) return "nan"
    for (i = 2; i <= n; ++i)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  {
    c = $col["config"]; m = $col["mode"]
    if (!(c in intended)) {
      order[++n] = c; intended[c] = $col["intended"]; dropped[c] = 0; zero[c] = 0; off[c] = 0
    }
    fps[c, m] = fps[c, m] " " $col["wall_fps"]
    if (m != "a") {
      records[c, m] = records[c, m] " " $col["records"]; dropped[c] += $col["dropped"]
      zero[c] += $col["zero_timestamps"]
      if ($col["records"] != $col["expected_records"]) off[c] += 1
    }
    if (m == "b") {
      e = $col["bottleneck"]
      if (index(";" bound[c] ";", ";" e ";") == 0) bound[c] = bound[c] (bound[c] == "" ? "" : ";") e
      pipe = $col["events_s"] * 1e6 / $col["frames"]
      trace[c] = trace[c] " " $col["trace_us_per_frame"]
      piped[c] = piped[c] " " pipe
      diff[c] = diff[c] " " ($col["trace_us_per_frame"] / pipe - 1) * 100
    }
  }
  END {
    print "config", "intended", "bound", "a_fps", "b_fps", "c_fps", "b_overhead_pct",
      "c_overhead_pct", "b_records", "c_records", "dropped", "trace_us_per_frame",
      "pipeline_us_per_frame", "engine_diff_pct", "zero_timestamps", "runs_with_wrong_count"
    for (i = 1; i <= n; ++i) {
      c = order[i]; a = median(fps[c, "a"]); b = median(fps[c, "b"]); cc = median(fps[c, "c"])
      print c, intended[c], bound[c], a, b, cc, (1 - b / a) * 100, (1 - cc / a) * 100,
        median(records[c, "b"]), median(records[c, "c"]), dropped[c], median(trace[c]),
        median(piped[c]), median(diff[c]), zero[c], off[c]
    }
  }' "$runs_csv" > "$summary_csv"

echo
echo "gpuroof record overhead: $(head -n 1 <<< "$gpu_list"); $reps runs per mode, $streams streams"
echo "(frames/s: median of the pipeline's wall-clock figure; a bare, b record, c record --nvtx)"
echo
awk -F, -v goal_o="$goal_overhead_pct" -v goal_e="$goal_engine_pct" '
  NR == 1 { next }
  {
    rows[++n] = sprintf("%-13s %-10s %10.1f %10.1f %10.1f %7.2f %7.2f %9d %9d %7d %7d %9.2f %9.2f %7.2f",
      $1, ($3 == $2 ? $3 : $3 "(!" $2 ")"), $4, $5, $6, $7, $8, $9, $10, $11, $15, $12, $13, $14)
    if ($7 > goal_o) { over = 1; over_at = over_at " " $1 }
    if ($7 > worst_o || n == 1) { worst_o = $7; worst_at = $1 }
    drops += $11
    zeros += $15
    if ($16 > 0) { wrong += $16; wrong_at = wrong_at " " $1 }
    d = $14 < 0 ? -$14 : $14
    if (d > goal_e || $3 != $2) { engine = 1; engine_at = engine_at " " $1 }
    if (d > worst_e || n == 1) { worst_e = d; worst_e_at = $1 }
  }
  END {
    printf "%-13s %-10s %10s %10s %10s %7s %7s %9s %9s %7s %7s %9s %9s %7s\n", "config", "binds",
      "a fps", "b fps", "c fps", "b ovh%", "c ovh%", "b records", "c records", "dropped",
      "no ts", "trace us", "pipe us", "diff%"
    for (i = 1; i <= n; ++i) print rows[i]
    print ""
    print "trace us: the binding engine'"'"'s busy per frame in the (b) traces; pipe us: the pipeline'"'"'s"
    print "event time per timed frame; diff%: trace / pipe - 1 (medians over the (b) runs); no ts:"
    print "records left out for want of a timestamp (all recorded runs)"
    print ""
    printf "goal 1, overhead of gpuroof record <= %s %% everywhere: %s (worst %.2f %% in %s)\n",
      goal_o, over ? "FAIL" : "PASS", worst_o, worst_at
    printf "goal 2, no records lost: %s (%d dropped, %d without timestamps)\n",
      drops || zeros ? "FAIL" : "PASS", drops, zeros
    printf "goal 3, binding engine busy within %s %% of the pipeline'"'"'s timing: %s (worst %.2f %% in %s)\n",
      goal_e, engine ? "FAIL" : "PASS", worst_e, worst_e_at
    if (engine) print "  off:" engine_at
    printf "goal 4, every recorded run holds the pipeline'"'"'s work (3 or 4 x (frames + streams) records): %s (%d runs off)\n",
      wrong ? "FAIL" : "PASS", wrong
    if (wrong) print "  off:" wrong_at
    exit (over || drops || zeros || engine || wrong)
  }' "$summary_csv" && status=0 || status=$?
echo
echo "runs: $runs_csv; summary: $summary_csv; logs and traces: $work_dir"
exit "$status"
