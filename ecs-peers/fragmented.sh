#!/usr/bin/env bash
# fragmented_iter is sensitive to where the allocator happens to place each
# crate's columns, so one process says little. This runs the row in separate
# processes (10 by default) and prints ecs-core's time against shipyard's in
# each, then how many processes ecs-core won.
#
#   ecs-peers/fragmented.sh [PROCESSES] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-10}
rounds=${2:-11}
cargo build --release -p ecs-peers --quiet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { # crate, json file: that crate's fragmented_iter median in ns
    grep "\"workload\": \"fragmented_iter\", \"crate\": \"$1\"" "$2" | sed -E 's/.*"median_ns": ([0-9]+).*/\1/'
}
wins=0
for i in $(seq 1 "$processes"); do
    ./target/release/ecs-peers --rounds "$rounds" --out "$out/$i" --only fragmented_iter >/dev/null 2>&1
    ecs=$(median ecs "$out/$i/peers.json")
    shipyard=$(median shipyard "$out/$i/peers.json")
    ratio=$(awk -v a="$ecs" -v b="$shipyard" 'BEGIN { printf "%.2f", a / b }')
    if [ "$ecs" -lt "$shipyard" ]; then wins=$((wins + 1)); fi
    echo "process $i: ecs ${ecs} ns, shipyard ${shipyard} ns, ecs/shipyard ${ratio}x"
done
echo "ecs-core ahead of shipyard in $wins of $processes processes"
