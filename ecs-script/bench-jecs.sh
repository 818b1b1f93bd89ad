#!/usr/bin/env bash
# Fetches jecs 0.11.0's Luau source (npm package @rbxts/jecs, src/jecs.luau)
# into target/jecs (never committed) and runs the side-by-side comparison:
#   ecs-script/bench-jecs.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/jecs
if [ ! -f "$dir/package/src/jecs.luau" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent @rbxts/jecs@0.11.0 >/dev/null && tar xzf rbxts-jecs-0.11.0.tgz)
fi
cargo run --release -q -p ecs-script --example jecs_compare -- "$dir/package/src/jecs.luau" "${1:-11}"
