#!/usr/bin/env bash
# Whole-process benchmark of `gpuroof analyze` on large nsys SQLite exports.
#
# What it measures, for each trace size (default 1 M and 10 M activities), side by side and
# interleaved (A B C, A B C, ...), REPS times each (default 3), reporting the median wall time,
# the median CPU time (user + system: steadier than wall time on a shared machine) and the
# largest peak RSS (GNU time's %e, %U + %S and %M, whole process):
#   gpuroof  `gpuroof analyze FILE --units N --format csv > /dev/null`
#   sqlite3  the sqlite3 command-line tool summing, so nothing is printed, the start, end,
#            deviceId, streamId and name/copy-kind columns of every activity table: the floor any
#            SQLite reader pays to visit the rows. (total() rather than sum(): same scan, but
#            it cannot stop on integer overflow with large timestamps.)
#   python   bench/python_union.py: Python's sqlite3 + sort + union, the ad-hoc script users
#            write today (standard library only; used for this comparison and nothing else).
# Goals, from the issue, judged on the largest size (smaller sizes show how cost grows):
#   time    gpuroof median wall time <= sqlite3 median wall time
#   memory  gpuroof peak RSS <= 40 bytes per activity
# Exits 0 when both goals pass, 1 when one fails, 2 on a usage or tool error.
#
# Builds nothing itself. Build first (Release, benchmarks on):
#   cmake --preset release && cmake --build build/release
#   bench/analyze_vs_sqlite.sh [GPUROOF [MAKE_BENCH_TRACE]]
# Environment (all optional):
#   GPUROOF           gpuroof binary          (default build/release/src/gpuroof)
#   MAKE_BENCH_TRACE  trace writer            (default build/release/bench/gpuroof-make-bench-trace)
#   BENCH_DIR         where traces are kept   (default ${TMPDIR:-/tmp}/gpuroof-bench; reused)
#   SIZES             activity counts         (default "1000000 10000000")
#   REPS              repetitions per tool    (default 3)
#   PYTHON            Python interpreter      (default python3)
#   GPUROOF_ARGS      extra analyze options, e.g. "--threads 1"
#   CANDIDATE         a second gpuroof binary (e.g. a build with a proposed fix), measured in the
#                     same interleaved runs as tool "candidate"; informational, goals use GPUROOF
set -euo pipefail

bench_name=analyze_vs_sqlite.sh
# shellcheck source=bench/bench_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
bench_setup "$@"
sizes=${SIZES:-"1000000 10000000"}
python=${PYTHON:-python3}
gpuroof_args=${GPUROOF_ARGS:-}
candidate=${CANDIDATE:-}
max_bytes_per_activity=40

[[ -z $candidate || -x $candidate ]] || die "no candidate binary at '$candidate'"
command -v sqlite3 >/dev/null || die "the sqlite3 command-line tool is needed"
command -v "$python" >/dev/null || die "no Python interpreter '$python'"

# The machine, so figures can be compared with others.
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr)"
echo "tools:   $("$gpuroof" --version 2>&1 | head -n 1); sqlite3 $(sqlite3 --version | cut -d' ' -f1); $("$python" --version 2>&1)"
echo "traces:  $bench_dir (reused when present); $reps runs per tool, interleaved; median time, max RSS"
# Other work on the machine skews the comparison (gpuroof uses every core, sqlite3 one), so say
# how busy the CPUs were over one second just before the runs.
busy_percent() {
  local a b
  read -r -a a < <(head -n 1 /proc/stat)
  sleep 1
  read -r -a b < <(head -n 1 /proc/stat)
  awk -v u=$((b[1] + b[2] + b[3] - a[1] - a[2] - a[3])) -v i=$((b[4] + b[5] - a[4] - a[5])) \
    'BEGIN { printf "%.0f", ((u + i) > 0 ? 100 * u / (u + i) : 0) }'
}
busy=$(busy_percent)
echo "busy:    ${busy}% of the CPUs in use by others just before the runs"
if ((busy > 10)); then
  echo "warning: the machine is busy; figures will be noisy (run again when it is idle)" >&2
fi
echo

# The sqlite3 scan: every activity table present, the columns any reader must visit.
scan_sql() {
  local file=$1 tables sql=""
  tables=$(sqlite3 "$file" "SELECT name FROM sqlite_master WHERE type = 'table'")
  local table kind
  for table in CUPTI_ACTIVITY_KIND_KERNEL:shortName CUPTI_ACTIVITY_KIND_MEMCPY:copyKind \
               CUPTI_ACTIVITY_KIND_MEMSET:memKind; do
    kind=${table#*:}
    table=${table%%:*}
    grep -qx "$table" <<<"$tables" || continue
    sql+="SELECT total(start), total(\"end\"), total(deviceId), total(streamId), total($kind) FROM $table; "
  done
  [[ -n $sql ]] || die "$file has no activity table"
  printf '%s' "$sql"
}

# count_activities FILE: rows of every activity table present.
count_activities() {
  local file=$1 table total=0 n
  for table in CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET; do
    n=$(sqlite3 "$file" "SELECT count(*) FROM $table" 2>/dev/null) || n=0
    total=$((total + n))
  done
  echo "$total"
}

# measure NAME LOGFILE CMD...: runs CMD with stdout to /dev/null, appends "seconds kb user sys".
measure() {
  local name=$1 log=$2
  shift 2
  if ! /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/stderr"; then
    cat "$work/stderr" >&2
    die "$name failed: $*"
  fi
  tail -n 1 "$work/time" >>"$log"
}

median_seconds() { cut -d' ' -f1 "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
max_kb() { cut -d' ' -f2 "$1" | sort -g | tail -n 1; }
median_cpu() { awk '{ print $3 + $4 }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

rows=()
time_goal=FAIL
memory_goal=FAIL
for size in $sizes; do
  [[ $size =~ ^[1-9][0-9]*$ ]] || die "SIZES must be whole numbers, got '$size'"
  file=$bench_dir/frames_$size.sqlite
  if [[ ! -s $file ]]; then
    echo "writing $file ..."
    "$make_trace" "$size" "$file" || die "could not write $file"
  fi
  activities=$(count_activities "$file")
  units=$(sqlite3 "$file" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
  sql=$(scan_sql "$file")
  cat "$file" >/dev/null  # every tool starts from a warm page cache
  : >"$work/gpuroof.log"
  : >"$work/sqlite3.log"
  : >"$work/python.log"
  : >"$work/candidate.log"
  for ((rep = 1; rep <= reps; rep++)); do
    echo "size $size: run $rep of $reps"
    # shellcheck disable=SC2086  # GPUROOF_ARGS is a list of options
    measure gpuroof "$work/gpuroof.log" "$gpuroof" analyze "$file" --units "$units" --format csv $gpuroof_args
    measure sqlite3 "$work/sqlite3.log" sqlite3 "$file" "$sql"
    measure python "$work/python.log" "$python" "$script_dir/python_union.py" "$file"
    if [[ -n $candidate ]]; then
      # shellcheck disable=SC2086
      measure candidate "$work/candidate.log" "$candidate" analyze "$file" --units "$units" --format csv $gpuroof_args
    fi
  done
  gpuroof_s=$(median_seconds "$work/gpuroof.log")
  sqlite_s=$(median_seconds "$work/sqlite3.log")
  tools=(gpuroof sqlite3 python)
  [[ -z $candidate ]] || tools+=(candidate)
  for tool in "${tools[@]}"; do
    seconds=$(median_seconds "$work/$tool.log")
    kb=$(max_kb "$work/$tool.log")
    cpu=$(median_cpu "$work/$tool.log")
    mb=$(awk -v kb="$kb" 'BEGIN { printf "%.1f", kb / 1024 }')
    per=$(awk -v kb="$kb" -v n="$activities" 'BEGIN { printf "%.1f", kb * 1024 / n }')
    vs=$(awk -v s="$seconds" -v g="$gpuroof_s" 'BEGIN { if (g > 0) printf "%.2fx", s / g; else print "-" }')
    goals="-"
    if [[ $tool == gpuroof || $tool == candidate ]]; then
      t=$(awk -v g="$seconds" -v s="$sqlite_s" 'BEGIN { print (g <= s) ? "PASS" : "FAIL" }')
      m=$(awk -v kb="$kb" -v n="$activities" -v max="$max_bytes_per_activity" \
            'BEGIN { print (kb * 1024 <= max * n) ? "PASS" : "FAIL" }')
      goals="time $t, memory $m"
      if [[ $tool == gpuroof ]]; then
        time_goal=$t  # the last (largest) size decides
        memory_goal=$m
      fi
    fi
    rows+=("$activities|$tool|$seconds|$cpu|$mb|$per|$vs|$goals")
  done
done

echo
printf '%-11s  %-9s  %9s  %9s  %9s  %7s  %10s  %s\n' activities tool "median s" "cpu s" "peak MiB" "B/act" "vs gpuroof" goals
printf '%-11s  %-9s  %9s  %9s  %9s  %7s  %10s  %s\n' ----------- --------- --------- --------- --------- ------- ---------- -----
for row in "${rows[@]}"; do
  IFS='|' read -r activities tool seconds cpu mb per vs goals <<<"$row"
  printf '%-11s  %-9s  %9s  %9s  %9s  %7s  %10s  %s\n' "$activities" "$tool" "$seconds" "$cpu" "$mb" "$per" "$vs" "$goals"
done
echo
echo "busy after the runs: $(busy_percent)% of the CPUs"
echo "goals (largest size): gpuroof time <= sqlite3 scan: $time_goal; peak RSS <= $max_bytes_per_activity B/activity: $memory_goal"
[[ $time_goal == PASS && $memory_goal == PASS ]] || exit 1
