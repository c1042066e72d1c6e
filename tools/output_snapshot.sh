#!/usr/bin/env bash
# Every shipped scenario's outputs through every command, written to one folder, so that a change
# meant to keep behaviour (a refactor) can be checked byte for byte against the commit before it:
#
#   tools/output_snapshot.sh old/bin/railsim /tmp/before
#   tools/output_snapshot.sh build/bin/railsim /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Each file holds one command's stdout, then its stderr and exit status, with the temporary
# folder's path written SCRATCH; the commands are listed in OUTDIR/commands.txt. Run from the repository root; takes a few minutes on two cores.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 RAILSIM OUTDIR" >&2
  exit 2
fi
railsim=$(realpath "$1")
out=$2
rm -rf "$out"
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# snap NAME ARGS...: runs `railsim ARGS...` into OUTDIR/NAME.
snap() {
  local name=$1
  shift
  echo "$name: railsim $*" | sed "s|$scratch|SCRATCH|g" >>"$out/commands.txt"
  "$railsim" "$@" >"$scratch/stdout" 2>"$scratch/stderr"
  local status=$?
  { cat "$scratch/stdout"; echo "--- stderr"; cat "$scratch/stderr"; echo "--- exit status $status"; } |
    sed "s|$scratch|SCRATCH|g" >"$out/$name"
}

for scenario in scenarios/*.json; do
  stem=$(basename "$scenario" .json)
  snap "topo.$stem.txt" topo --system "$scenario"
  snap "topo-links.$stem.json" topo --system "$scenario" --links --format json
  if grep -q '"workload"' "$scenario"; then
    snap "run.$stem.txt" run "$scenario"
    snap "run.$stem.json" run "$scenario" --format json
  fi
  if grep -q '"step"' "$scenario"; then
    snap "step.$stem.json" step "$scenario" --format json
  fi
done
snap run-trace.txt run tests/scenarios/run/two-nodes-1g-background.json --trace "$scratch/trace.json"
cp "$scratch/trace.json" "$out/run-trace.trace.json"
snap compare.txt compare scenarios/dgx-h100-16n-oversub2.json \
  scenarios/dgx-h100-16n-misaligned-oversub2.json

for step in tests/scenarios/step/two-nodes-one-gpu.json tests/scenarios/step/two-nodes-eight-gpus.json \
  tests/scenarios/step/pipeline-4n.json scenarios/what-if/two-jobs-shared-uplink.json; do
  snap "step.$(basename "$step" .json).txt" step "$step"
done
snap step-fault.txt step tests/scenarios/step/two-nodes-one-gpu.json \
  --faults tests/scenarios/step/half-rate-nic.json
snap step-slot.txt step tests/scenarios/step/two-nodes-eight-gpus.json \
  --faults tests/scenarios/step/nic-other-socket.json
snap step-rank-links.txt step tests/scenarios/step/two-nodes-one-gpu.json --rank-links 0.5

for sweep in scenarios/sweeps/rail-design.json scenarios/what-if/slow-link.json; do
  stem=$(basename "$sweep" .json)
  snap "sweep.$stem.txt" sweep "$sweep" --out "$scratch/$stem"
  cp "$scratch/$stem/results.csv" "$out/sweep.$stem.results.csv"
  cp "$scratch/$stem/results.json" "$out/sweep.$stem.results.json"
done

check=tests/scenarios/check
for format in text json; do
  snap "check.cluster00.$format" check $check/cluster00/manifest.json --system dgx-h100 --format $format
  snap "check.issue232.$format" check $check/issue232/manifest.json \
    --system $check/issue232/system.json --format $format
  snap "check.rdma-4n.$format" check $check/rdma-4n --system dgx-h100 --format $format
  snap "diagnose.rdma-4n.$format" diagnose $check/rdma-4n --system dgx-h100 --format $format
done

for algo in ring tree nvls auto; do
  for exec in chunk pipelined; do
    snap "collective.$algo.$exec.json" collective --system dgx-h100 --nodes 4 --op all_reduce \
      -b 8 -e 1G -f 8 --algo $algo --exec $exec --format json
  done
done
snap collective.nvls-1node.txt collective --system dgx-h100 --nodes 1 --op all_reduce -b 8 -e 8G \
  -f 64 --algo nvls
for op in all_gather reduce_scatter broadcast alltoall sendrecv gather scatter; do
  snap "collective.$op.txt" collective --system dgx-h100 --nodes 8 --op $op -b 1K -e 4G -f 16
done
snap collective-misaligned.txt collective --system dgx-h100 --nodes 16 --rail misaligned \
  --oversub 2 --op all_reduce -b 1M -e 8G -f 8
snap collective-superpod.txt collective --system scenarios/superpod-h100-127n.json --op all_reduce \
  -b 64M -e 8G -f 8

snap p2p-bw.txt p2p --system dgx-h100 -a
snap p2p-lat.txt p2p --system dgx-h100 --test write_lat -a
for data in tests/data/*.txt; do
  snap "parse.$(basename "$data" .txt).json" parse "$data" --format json
done

data=tests/data
snap calibrate.txt calibrate --system dgx-h100 \
  --nccl-tests $data/nccl-tests_5ops_h100_10node-1gpn_xxrjun-cluster01.txt \
  --nccl-tests $data/nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01.txt \
  -o "$scratch/profile.json"
cp "$scratch/profile.json" "$out/calibrate.profile.json"
snap collective-profile.txt collective --system dgx-h100 --nodes 10 --gpus-per-node 1 \
  --op all_gather -b 1M -e 1G -f 4 --profile "$scratch/profile.json"
