#!/usr/bin/env bash
# Compile time against hecs and bevy_ecs, release profile, on this machine.
#
# For each crate (ecs-core from this checkout, hecs, bevy_ecs, each with its
# default features, as a user adds it):
#   clean  - a crate with an empty lib.rs that depends on it, built from an
#            empty target directory: the crate and all its dependencies;
#   user   - the same dependency under a generated user crate of 100 derived
#            components, a spawn of each, and 20 query loops: the time to
#            rebuild that crate alone once its dependencies are built.
# Each is the median of ROUNDS builds (3 by default). Name crates to build only
# those.
#
# `ecs-describe` is ecs-core with `#[component(describe)]` on every component
# (the schema each derive then generates: what opting in costs).
#
#   ecs-peers/compile-time.sh [ROUNDS] [ecs|ecs-describe|hecs|bevy]...
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${1:-3}
shift || true
crates=("$@")
if [ ${#crates[@]} -eq 0 ]; then crates=(ecs hecs bevy); fi
work="$root/target/compile-time"
rm -rf "$work"
mkdir -p "$work"

hecs_version=$(sed -nE 's/^hecs = \{ version = "([^"]+)".*/\1/p' ecs-peers/Cargo.toml)
bevy_version=$(sed -nE 's/^bevy_ecs = \{ version = "([^"]+)".*/\1/p' ecs-peers/Cargo.toml)

dependency() { # crate -> the [dependencies] line
    case $1 in
        ecs | ecs-describe) echo "ecs-core = { path = \"$root/ecs-core\" }" ;;
        hecs) echo "hecs = { version = \"$hecs_version\", features = [\"macros\"] }" ;;
        bevy) echo "bevy_ecs = \"$bevy_version\"" ;;
    esac
}

# The user crate's source for one ECS: components C0..C99 (a derive each where
# the crate has one), a function spawning each once (in bundles of four) and 20
# loops, each over a different pair of components.
user_source() {
    local crate=$1 i
    case $crate in
        ecs | ecs-describe) echo "use ecs_core::prelude::*;" ;;
        hecs) echo "use hecs::World;" ;;
        bevy) echo "use bevy_ecs::prelude::*;" ;;
    esac
    for i in $(seq 0 99); do
        case $crate in
            hecs) echo "#[derive(Clone, Copy, Debug, Default)] pub struct C$i(pub f32);" ;;
            ecs-describe) echo "#[derive(Component, Clone, Copy, Debug, Default)] #[component(describe)] pub struct C$i(pub f32);" ;;
            *) echo "#[derive(Component, Clone, Copy, Debug, Default)] pub struct C$i(pub f32);" ;;
        esac
    done
    echo "pub fn spawn_all(world: &mut World) {"
    for i in $(seq 0 4 99); do
        echo "    world.spawn((C$i(1.0), C$((i + 1))(1.0), C$((i + 2))(1.0), C$((i + 3))(1.0)));"
    done
    echo "}"
    for i in $(seq 0 19); do
        local a=$((i * 5)) b=$((i * 5 + 1)) c=$((i * 5 + 2))
        echo "pub fn loop_$i(world: &mut World) -> f32 {"
        case $crate in
            ecs | ecs-describe)
                echo "    for (a, b) in world.query_mut::<(&mut C$a, &C$b)>() { a.0 += b.0; }"
                echo "    world.query_mut::<(&C$a, &C$c)>().into_iter().map(|(a, c)| a.0 * c.0).sum()"
                ;;
            hecs)
                echo "    for (_, (a, b)) in world.query_mut::<(&mut C$a, &C$b)>() { a.0 += b.0; }"
                echo "    world.query_mut::<(&C$a, &C$c)>().into_iter().map(|(_, (a, c))| a.0 * c.0).sum()"
                ;;
            bevy)
                echo "    let mut q = world.query::<(&mut C$a, &C$b)>();"
                echo "    for (mut a, b) in q.iter_mut(world) { a.0 += b.0; }"
                echo "    let mut r = world.query::<(&C$a, &C$c)>();"
                echo "    r.iter(world).map(|(a, c)| a.0 * c.0).sum()"
                ;;
        esac
        echo "}"
    done
}

make_crate() { # dir, crate, lib.rs source
    mkdir -p "$1/src"
    cat > "$1/Cargo.toml" <<EOF
[package]
name = "compile-time-$2"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$(dependency "$2")

[workspace]
EOF
    printf '%s\n' "$3" > "$1/src/lib.rs"
}

took=
timed() { # dir, command...: runs it there; wall-clock seconds in $took
    local dir=$1 start end
    shift
    start=$(date +%s.%N)
    if ! (cd "$dir" && "$@") >/dev/null 2>"$work/last.err"; then
        tail -n 30 "$work/last.err" >&2
        exit 1
    fi
    end=$(date +%s.%N)
    took=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-10s %10s %10s\n' crate "clean (s)" "user (s)"
for crate in "${crates[@]}"; do
    make_crate "$work/$crate-empty" "$crate" ""
    make_crate "$work/$crate-user" "$crate" "$(user_source "$crate")"
    # Fetch once so that the timings hold no download.
    (cd "$work/$crate-empty" && cargo fetch --quiet)
    clean=()
    for _ in $(seq 1 "$rounds"); do
        rm -rf "$work/$crate-empty/target"
        timed "$work/$crate-empty" cargo build --release
        clean+=("$took")
    done
    (cd "$work/$crate-user" && cargo build --release --quiet)
    user=()
    for _ in $(seq 1 "$rounds"); do
        touch "$work/$crate-user/src/lib.rs"
        timed "$work/$crate-user" cargo build --release
        user+=("$took")
    done
    printf '%-10s %10s %10s\n' "$crate" "$(median "${clean[@]}")" "$(median "${user[@]}")"
done
