#!/bin/bash
# Long commands show a progress line with the time left on a terminal (a fit, which has no known
# end, the time it has taken), and none when piped. Each command runs under a pseudo-terminal
# (script -qf) and then piped, killed after at most LIMIT seconds (the line shows after half a
# second, so a run cut short has drawn it).
# Usage: progress_on_terminal.sh RAILSIM SCENARIOS_DIR WORKDIR MANIFEST NCCL_TESTS_LOG
set -uo pipefail
railsim=$1 scenarios=$2 work=$3 manifest=$4 nccl_log=$5
command -v script > /dev/null || { echo "no script(1): skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

failed=0
# Runs "$@" both ways for at most $limit seconds and checks what stderr showed.
check() {
  local name=$1 limit=$2
  shift 2
  local quoted
  quoted=$(printf '%q ' "$@")
  { timeout -s KILL "$limit" script -qfc "$quoted > /dev/null" /dev/null > "$name.tty" 2>&1; } 2> /dev/null
  { timeout -s KILL "$limit" "$@" > /dev/null 2> "$name.pipe"; } 2> /dev/null
  if ! grep -q -E 'ETA| elapsed' "$name.tty"; then
    echo "$name: no progress line on a terminal"; failed=1
  elif grep -q -E 'ETA| elapsed' "$name.pipe"; then
    echo "$name: a progress line when piped"; failed=1
  else
    echo "$name: progress on a terminal, none piped"
  fi
}

# Chunk-accurate runs: the default execution sweeps 16 nodes in well under the half second.
check collective 10 "$railsim" collective --system dgx-h100 --nodes 16 --op all_reduce -b 1M -e 1G \
  --exec chunk
cat > chunk.json << 'EOF'
{"system": {"node": "dgx-h100", "nodes": 16},
 "workload": {"op": "all_reduce", "minbytes": "1M", "maxbytes": "1G", "nccl": {"exec": "chunk"}}}
EOF
check run 10 "$railsim" run chunk.json
check step 20 "$railsim" step "$scenarios/megatron-13b-16n.json"
check diagnose 5 "$railsim" diagnose "$manifest" --system dgx-h100
check calibrate 5 "$railsim" calibrate --nccl-tests "$nccl_log" --system dgx-h100 -o profile.json
# --quiet silences it on a terminal too.
timeout -s KILL 10 script -qfc "$railsim collective --system dgx-h100 --nodes 16 --op all_reduce -b 1M -e 1G --exec chunk --quiet > /dev/null" /dev/null > quiet.tty 2>&1
if grep -q 'ETA' quiet.tty; then
  echo "--quiet: a progress line on a terminal"; failed=1
fi
exit $failed
