# shellcheck shell=bash disable=SC2154  # bench_name is set by the sourcing script
# Shared by the whole-process benchmarks (sourced, not run): the default binaries and trace folder,
# the checks every one of them makes before measuring, and small helpers.
#
# The sourcing script sets `bench_name` first, and calls bench_setup "$@" after its own defaults.
# Afterwards: script_dir, repo_dir, gpuroof, make_trace, bench_dir, reps and work (a scratch folder
# removed on exit) are set; die MESSAGE exits 2; median reads numbers on stdin.

script_dir=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
repo_dir=$(dirname "$script_dir")

die() {
  echo "$bench_name: $*" >&2
  exit 2
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# bench_setup [GPUROOF [MAKE_BENCH_TRACE]]
bench_setup() {
  gpuroof=${1:-${GPUROOF:-$repo_dir/build/release/src/gpuroof}}
  make_trace=${2:-${MAKE_BENCH_TRACE:-$repo_dir/build/release/bench/gpuroof-make-bench-trace}}
  bench_dir=${BENCH_DIR:-${TMPDIR:-/tmp}/gpuroof-bench}
  reps=${REPS:-3}
  [[ -x $gpuroof ]] ||
    die "no gpuroof binary at '$gpuroof' (build: cmake --preset release && cmake --build build/release)"
  [[ -x $make_trace ]] || die "no trace writer at '$make_trace' (build with GPUROOF_BUILD_BENCHMARKS=ON)"
  [[ -x /usr/bin/time ]] || die "GNU time (/usr/bin/time) is needed for wall time and peak RSS"
  [[ $reps =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive number, got '$reps'"
  mkdir -p "$bench_dir"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
