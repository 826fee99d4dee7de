#!/usr/bin/env bash
# bench/device/record_overhead.sh against fakes (fake_gpuroof, fake_pipeline, fake_nvidia_smi),
# so its run order, parsing, table, goals and exit codes are checked without a GPU. The figures
# expected below were worked out by hand from fake_pipeline's model (see its header).
# Usage: record_overhead_test.sh PATH/TO/record_overhead.sh
set -euo pipefail

script=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUROOF=$here/fake_gpuroof PIPELINE=$here/fake_pipeline NVIDIA_SMI=$here/fake_nvidia_smi
export WORK_DIR=$tmp/work FAKE_LOG=$tmp/modes

failures=0
check() { # description, then a command that must succeed
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what" >&2
    failures=$((failures + 1))
  fi
}

# Runs the script with extra VAR=value settings; leaves stdout, stderr and the exit code.
run() {
  rm -f "$FAKE_LOG"
  status=0
  env "$@" bash "$script" > "$tmp/out" 2> "$tmp/err" || status=$?
}
out_has() { grep -qF -- "$1" "$tmp/out"; }
err_has() { grep -qF -- "$1" "$tmp/err"; }
row_has() { grep -E "^$1 " "$tmp/out" | grep -qF -- "$2"; }

# Every goal met: 1 % slower when recorded, nothing dropped, the trace agrees with the pipeline.
run REPS=2 FAKE_RECORD_SLOWDOWN_PCT=1
check "pass: exit 0 (got $status; $(tail -n 1 "$tmp/err"))" test "$status" -eq 0
# One recorded preflight run, then per configuration a bare warm-up and a b c, a b c.
check "pass: run order" test "$(tr -d '\n' < "$FAKE_LOG")" = "baabcabcaabcabcaabcabc"
# Frames/s as the fake prints them: 1500 frames of 671.08864 us (+1 % recorded) x 1.0005 wall:
# 1489.4 and 1474.6 frames/s, 1 - 1474.6 / 1489.4 = 0.99 %.
check "pass: h2d-bound row" row_has h2d-bound "H2D            1489.4     1474.6     1474.6    0.99    0.99"
check "pass: kernel-bound row" row_has kernel-bound "kernel         3998.0     3958.4     3958.4    0.99    0.99"
check "pass: d2h-bound row" row_has d2h-bound "D2H            2978.7     2949.3     2949.3    0.99    0.99"
# Records: 3 x (1500 frames + 4 streams) = 4512 in (b); (c) passes --nvtx 1, one range per frame
# more: 4 x 1504 = 6016; then 0 dropped, 0 without timestamps.
check "pass: records and dropped" row_has h2d-bound "     4512      6016       0       0"
# 1000 us / 4 streams x 1.01 = 252.50 us per frame, in the trace and in the event time.
check "pass: engine figures" row_has kernel-bound "252.50    252.50"
check "pass: goal 1" out_has "goal 1, overhead of gpuroof record <= 3 % everywhere: PASS (worst 0.99 %"
check "pass: goal 2" out_has "goal 2, no records lost: PASS (0 dropped, 0 without timestamps)"
check "pass: goal 3" out_has "binding engine busy within 1 % of the pipeline's timing: PASS"
check "pass: goal 4" out_has "goal 4, every recorded run holds the pipeline's work (3 or 4 x (frames + streams) records): PASS (0 runs off)"
check "pass: summary.csv" test -f "$WORK_DIR/summary.csv"

# Every goal missed, exit 1: 5 % slower when recorded (1 - 1418.4 / 1489.4 = 4.77 %), 2 records
# dropped and 1 without timestamps in each of 3 configurations x (b + c) runs, each of those runs
# one record short, and the traces 2 % busier than the pipeline.
run REPS=1 FAKE_RECORD_SLOWDOWN_PCT=5 FAKE_DROPPED=2 FAKE_ENGINE_ERROR_PCT=2 \
  FAKE_ZERO_TIMESTAMPS=1 FAKE_MISSING_RECORDS=1
check "fail: exit 1" test "$status" -eq 1
check "fail: goal 1" out_has "everywhere: FAIL (worst 4.77 % in h2d-bound)"
check "fail: goal 2" out_has "goal 2, no records lost: FAIL (12 dropped, 6 without timestamps)"
check "fail: goal 3" out_has "pipeline's timing: FAIL (worst 2.00 %"
check "fail: goal 3 names them" out_has "  off: h2d-bound kernel-bound d2h-bound"
check "fail: goal 4" out_has "records): FAIL (6 runs off)"

# No GPU, no driver, a failing run, bad usage: exit 2 and one clear line, before any timed run.
run NVIDIA_SMI=/nonexistent/nvidia-smi
check "no nvidia-smi: exit 2" test "$status" -eq 2
check "no nvidia-smi: message" err_has "record_overhead.sh: error: no GPU here: /nonexistent/nvidia-smi not found"
check "no nvidia-smi: nothing ran" test ! -e "$FAKE_LOG"
run FAKE_NO_DRIVER=1
check "no driver: exit 2" test "$status" -eq 2
check "no driver: message" err_has "gpuroof record cannot record here: gpuroof: error: record: no NVIDIA driver"
run REPS=1 FAKE_FAIL_MODE=c
check "failing run: exit 2" test "$status" -eq 2
check "failing run: message" err_has "h2d-bound, mode c, run 1: exited with status 1: pipeline: H2D copy: out of memory"
run REPS=0
check "bad REPS: exit 2" test "$status" -eq 2
status=0
bash "$script" one two > /dev/null 2>&1 || status=$?
check "two arguments: exit 2" test "$status" -eq 2
status=0
bash "$script" --help > "$tmp/out" 2>&1 || status=$?
check "--help: exit 0" test "$status" -eq 0
check "--help: text" out_has "Usage: bench/device/record_overhead.sh [BUILD_DIR]"

if ((failures > 0)); then
  echo "record_overhead.sh: $failures checks failed; last output in $tmp is removed on exit:" >&2
  cat "$tmp/out" "$tmp/err" >&2
  exit 1
fi
echo "record_overhead.sh: all checks passed"
