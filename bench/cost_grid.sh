#!/bin/bash
# The cost of one collective call across a grid (issue 27; docs/performance.md, "Cost across a
# grid"): AllReduce, ring and tree, under auto, Simple, LL128 and LL, over 128 to 8,192 ranks with
# one and eight GPUs per dgx-h100 node on scenarios/superpod-h100-127n.json grown by --nodes, at
# 16 MiB, 1 GiB and 8 GiB. One process per cell, pinned to one core; prints per cell the ranks,
# GPUs per node, size, algorithm, protocol, CPU seconds (user + system), peak RSS in MiB and the
# simulated busbw.
# Usage: bench/cost_grid.sh [RAILSIM] (default build/bin/railsim), from the repository root.
set -euo pipefail
railsim=${1:-build/bin/railsim}
for gpus in 1 8; do
  for ranks in 128 256 512 1024 2048 4096 8192; do
    for size in 16M 1G 8G; do
      for algo in ring tree; do
        for proto in auto simple ll128 ll; do
          out=$({ /usr/bin/time -f "TIME %U %S %M" taskset -c 0 "$railsim" collective \
                    --system scenarios/superpod-h100-127n.json --nodes $((ranks / gpus)) \
                    --gpus-per-node "$gpus" --op all_reduce -b "$size" -e "$size" --algo "$algo" \
                    --proto "$proto" --format csv --quiet; } 2>&1)
          cpu_rss=$(awk '/^TIME/ {printf "%.2f %d", $2 + $3, $4 / 1024}' <<< "$out")
          busbw=$(grep -v '^TIME' <<< "$out" | tail -1 | awk -F, '{print $NF}')
          echo "$ranks $gpus $size $algo $proto $cpu_rss $busbw"
        done
      done
    done
  done
done
