#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (the `fuzz` preset: clang, ASan, UBSan, asserts) and
# runs each on its seeds (tests/fuzz/seeds.txt), one reader after another, or --parallel at once.
#
#   tools/fuzz.sh MINUTES [FUZZER...]              MINUTES of fuzzing in all, split evenly
#   tools/fuzz.sh --seconds-each S [FUZZER...]     S seconds each (CI)
#   options: --parallel N (fuzzers run at once, default 1), --no-build,
#            --preset P (fuzz, the default, or fuzz-ci: unoptimised, built in half the time)
#
# The working corpus grows in build-fuzz/corpus/NAME (kept between runs, never committed); a
# crash, leak, timeout or out-of-memory input is saved as build-fuzz/findings/NAME-*. Prints one
# line per fuzzer (executions, coverage, corpus, findings) and writes them to
# build-fuzz/fuzz-summary.txt; exits 1 when any fuzzer found something. (build-fuzz-ci/ for the
# fuzz-ci preset.) Needs clang and libclang-rt-14-dev (Debian: apt-get install clang
# libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '5,8p' "$0" >&2; exit 2; }

seconds_each=""
minutes=""
parallel=1
build=1
preset=fuzz
fuzzers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds-each) seconds_each="${2:?}"; shift 2 ;;
    --parallel) parallel="${2:?}"; shift 2 ;;
    --no-build) build=0; shift ;;
    --preset) preset="${2:?}"; shift 2 ;;
    -h|--help) usage ;;
    -*) usage ;;
    *)
      if [ -z "$minutes" ] && [ -z "$seconds_each" ] && [[ "$1" =~ ^[0-9]+$ ]]; then
        minutes="$1"
      else
        fuzzers+=("$1")
      fi
      shift ;;
  esac
done
[ -n "$minutes" ] || [ -n "$seconds_each" ] || usage

all=(nccl_tests perftest nvidia_smi_topo ibstat ibdev2netdev lspci scenario system step sweep fault
     check_manifest profile)
[ ${#fuzzers[@]} -gt 0 ] || fuzzers=("${all[@]}")
if [ -z "$seconds_each" ]; then
  seconds_each=$(( minutes * 60 / ${#fuzzers[@]} ))
  [ "$seconds_each" -ge 1 ] || seconds_each=1
fi

out="build-$preset"
if [ "$build" -eq 1 ]; then
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target fuzzers
fi
mkdir -p "$out/findings" "$out/logs"

# Copies the seeds of $1 into its working corpus (once per seed file name).
seed() {
  local name="$1" corpus="$out/corpus/$1"
  mkdir -p "$corpus"
  while read -r fuzzer pattern; do
    [ "$fuzzer" = "$name" ] || continue
    for file in $pattern; do
      [ -f "$file" ] && cp -n "$file" "$corpus/seed-$(basename "$file")"
    done
  done < <(grep -v '^#' tests/fuzz/seeds.txt)
}

# Runs fuzzer $1 for seconds_each seconds; its log is $out/logs/$1.log.
run_one() {
  local name="$1"
  seed "$name"
  local status=0
  "$out/bin/${name}_fuzzer" "$out/corpus/$name" -max_total_time="$seconds_each" -timeout=20 \
    -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 -close_fd_mask=3 \
    -artifact_prefix="$out/findings/$name-" >"$out/logs/$name.log" 2>&1 || status=$?
  echo "$status" >"$out/logs/$name.status"
}

running=0
for name in "${fuzzers[@]}"; do
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

found=0
summary="$out/fuzz-summary.txt"
printf '%-16s %12s %8s %8s %8s %9s  %s\n' fuzzer executions exec/s cov ft corpus findings | tee "$summary"
for name in "${fuzzers[@]}"; do
  log="$out/logs/$name.log"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  last=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1 || true)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "$out/corpus/$name" -type f | wc -l)
  status=$(cat "$out/logs/$name.status")
  findings="none"
  if [ "$status" -ne 0 ]; then
    findings="exit $status: $(grep -m1 -E 'ERROR|deadly signal|Timeout|out-of-memory' "$log" || echo 'see log')"
    found=1
  fi
  printf '%-16s %12s %8s %8s %8s %9s  %s\n' "$name" "$runs" "$speed" "${cov:-?}" "${ft:-?}" \
    "$corpus" "$findings" | tee -a "$summary"
done
[ "$found" -eq 0 ] || { echo "fuzz: findings in $out/findings (logs in $out/logs)" >&2; exit 1; }
