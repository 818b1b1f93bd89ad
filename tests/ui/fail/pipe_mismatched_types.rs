use ecs_core::prelude::*;

fn count() -> usize {
    3
}

fn write_down(In(line): In<String>) {
    let _ = line;
}

fn main() {
    let mut schedule = Schedule::new();
    // `count` returns a `usize`; `write_down` takes a `String`.
    schedule.add_systems(count.pipe(write_down));
}
