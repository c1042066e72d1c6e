#!/bin/bash
# Kills railsim with SIGKILL (no clean-up runs) at points spread over a sweep and over a traced
# collective, each run replacing outputs an earlier run left, and after every kill finds the
# old outputs or the new ones, whole: results.csv and results.json from the same run, never a
# mix, and a trace that is one run's bytes. Usage: kill_outputs.sh RAILSIM SWEEP.json WORKDIR
set -euo pipefail
railsim=$1 sweep=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# Two sweeps that differ in one value, so their results differ.
sed 's/"values": \[2, 3\]/"values": [2, 4]/' "$sweep" > old-sweep.json
cp "$sweep" new-sweep.json
"$railsim" sweep old-sweep.json --out old -j 1 > /dev/null
"$railsim" sweep new-sweep.json --out new -j 1 > /dev/null
cmp -s old/results.csv new/results.csv && { echo "the two sweeps give the same results"; exit 1; }

trace=(collective --system dgx-h100 --nodes 4 --op all_reduce -b 1M)
"$railsim" "${trace[@]}" -e 4M --trace old-trace.json > /dev/null
"$railsim" "${trace[@]}" -e 256M --trace new-trace.json > /dev/null

# Which whole output `dir` holds: "old", "new", or what is wrong with it.
sweep_state() {
  local dir=$1 names
  names=$(cd "$dir" && ls -A | tr '\n' ' ')
  for run in old new; do
    if [[ $names == "results.csv results.json " ]] && cmp -s "$dir/results.csv" $run/results.csv &&
      cmp -s "$dir/results.json" $run/results.json; then
      echo $run
      return
    fi
  done
  echo "a mix or a part: $names"
}

# Runs the rest of the line under a SIGKILL after $1 seconds ("never": no kill); sets status.
run_killed_after() {
  local delay=$1
  shift
  status=0
  if [[ $delay == never ]]; then
    "$@" > /dev/null || status=$?
  else
    { timeout -s KILL "$delay" "$@" > /dev/null; } 2> /dev/null || status=$?
  fi
}

kills=0
# The last run is not killed, so it must leave the new outputs.
for delay in 0.02 0.05 0.08 0.11 0.14 0.17 0.2 0.23 0.26 0.3 0.35 0.4 0.5 0.6 0.8 1.2 never; do
  rm -rf out && cp -r old out
  run_killed_after "$delay" "$railsim" sweep new-sweep.json --out out -j 1
  state=$(sweep_state out)
  echo "sweep killed after ${delay} s (status $status): $state"
  [[ $state == old || $state == new ]] || exit 1
  [[ $status == 137 ]] && kills=$((kills + 1))

  cp old-trace.json trace.json
  run_killed_after "$delay" "$railsim" "${trace[@]}" -e 256M --trace trace.json
  if cmp -s trace.json old-trace.json; then state=old
  elif cmp -s trace.json new-trace.json; then state=new
  else state="neither: $(stat -c %s trace.json) bytes"; fi
  echo "traced collective killed after ${delay} s (status $status): $state"
  [[ $state == old || $state == new ]] || exit 1
done
[[ $(sweep_state out) == new && $state == new ]] || { echo "the run not killed left old outputs"; exit 1; }
# The kills must have landed: runs cut short, not only runs that had finished.
echo "$kills sweeps killed"
[[ $kills -gt 0 ]]
