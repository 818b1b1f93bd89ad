//! Runs the ecs_bench_suite workloads on ecs-core and its peers, side by side.
//!
//! ```text
//! cargo run --release -p ecs-peers -- [--rounds N] [--out DIR] [--only WORKLOAD[,WORKLOAD…]]
//! cargo run --release -p ecs-peers -- --summary-from docs/peers.json
//! ```
//! For each workload, every crate's state is prepared first; then the crates take
//! turns (in a rotating order, so machine drift hits all alike), each running one
//! untimed iteration and then timing one batch of iterations per round. The
//! untimed iteration makes a batch start from the crate's own state rather than
//! the one the crate before it left: a rotation keeps each crate's predecessor
//! the same in every round, and a predecessor whose frees let the allocator hand
//! the heap back to the kernel made every sample of the next crate pay page
//! faults for memory its own previous run had already touched. A cell is the
//! median per-iteration time over the rounds, with the spread (min–max).
//! Results go to a table on stdout, `DIR/peers.md`, `DIR/peers.json` and
//! `DIR/peers.svg`; a full run into `docs` also rewrites the compact table of
//! the README (between its `peers-summary` markers), which `--summary-from`
//! rewrites from a saved `peers.json` without running anything.

#[allow(dead_code, reason = "benchmark payload fields are written, never read")]
mod peers;
mod report;
mod workload;

use std::time::{Duration, Instant};

use peers::Runner;
use workload::Workload;

/// Prepares one crate's runner for a workload (`None`: the crate lacks the feature).
pub type MakeRunner = fn(Workload) -> Option<Runner>;

/// The crates, in column order.
pub const CRATES: [(&str, MakeRunner); 8] = [
    ("ecs", peers::ecs::runner),
    ("flecs", peers::flecs::runner),
    ("hecs", peers::hecs::runner),
    ("bevy_ecs", peers::bevy::runner),
    ("legion", peers::legion::runner),
    ("shipyard", peers::shipyard::runner),
    ("specs", peers::specs::runner),
    ("baseline", peers::baseline::runner),
];

/// One measured cell.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Median time per iteration.
    pub median: Duration,
    /// Fastest and slowest round.
    pub min: Duration,
    /// Slowest round.
    pub max: Duration,
}

struct Options {
    rounds: usize,
    out: String,
    only: Option<String>,
    summary_from: Option<String>,
}

/// The README whose compact table a full run rewrites.
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");

fn options() -> Options {
    let mut options = Options { rounds: 21, out: "docs".into(), only: None, summary_from: None };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => options.rounds = args.next().and_then(|v| v.parse().ok()).expect("--rounds N"),
            "--out" => options.out = args.next().expect("--out DIR"),
            "--only" => options.only = Some(args.next().expect("--only WORKLOAD[,WORKLOAD...]")),
            "--summary-from" => options.summary_from = Some(args.next().expect("--summary-from PEERS_JSON")),
            "--help" | "-h" => {
                println!(
                    "usage: ecs-peers [--rounds N (default 21)] [--out DIR (default docs)] [--only WORKLOAD[,WORKLOAD...]]\n       ecs-peers --summary-from PEERS_JSON   (rewrites the README's compact table from a saved run)"
                );
                let names: Vec<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
                println!("workloads: {}", names.join(", "));
                std::process::exit(0);
            }
            other => panic!("unknown argument {other}; try --help"),
        }
    }
    options
}

thread_local! {
    /// Time spent in [`untimed`] since the last [`take_untimed`].
    static UNTIMED: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// Runs a runner's per-iteration set-up (building the tree `despawn_subtree`
/// despawns) outside the measurement: its time is subtracted from the batch.
pub fn untimed<R>(setup: impl FnOnce() -> R) -> R {
    let start = Instant::now();
    let result = setup();
    let spent = start.elapsed();
    UNTIMED.with(|u| u.set(u.get() + spent));
    result
}

/// The time spent in [`untimed`] since the last call.
fn take_untimed() -> Duration {
    UNTIMED.with(|u| u.replace(Duration::ZERO))
}

/// Iterations per batch so that a batch takes about `target`.
fn calibrate(runner: &mut Runner, target: Duration) -> usize {
    runner(); // warm up (first-run setup, caches)
    take_untimed();
    let start = Instant::now();
    runner();
    let once = start.elapsed().saturating_sub(take_untimed()).max(Duration::from_nanos(20));
    (target.as_nanos() / once.as_nanos()).clamp(1, 100_000) as usize
}

fn progress(done: usize, total: usize, label: &str) {
    let width = 30;
    let filled = done * width / total.max(1);
    eprint!("\r[{}{}] {:>3}% {:<32}", "#".repeat(filled), " ".repeat(width - filled), done * 100 / total.max(1), label);
    if done == total {
        eprintln!();
    }
}

fn main() {
    let options = options();
    if let Some(path) = &options.summary_from {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let (results, meta) = report::read_json(&text);
        assert!(!results.is_empty(), "{path} holds no results");
        report::write_summary(README, &report::summary(&results, &meta)).expect("rewrite the README's table");
        eprintln!("rewrote the compact table of {README} from {path}");
        return;
    }
    let workloads: Vec<Workload> = Workload::ALL
        .into_iter()
        .filter(|w| options.only.as_deref().is_none_or(|o| o.split(',').any(|o| o == w.name())))
        .collect();
    if let Some(only) = &options.only {
        for name in only.split(',') {
            assert!(Workload::ALL.iter().any(|w| w.name() == name), "unknown workload {name}; try --help");
        }
    }
    let total = workloads.len() * options.rounds;
    let mut done = 0;
    let mut results: Vec<(Workload, Vec<Option<Cell>>)> = Vec::new();
    for &workload in &workloads {
        let mut runners: Vec<Option<(Runner, usize)>> = CRATES
            .iter()
            .map(|(_, make)| {
                make(workload).map(|mut r| {
                    let n = calibrate(&mut r, Duration::from_millis(3));
                    (r, n)
                })
            })
            .collect();
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); CRATES.len()];
        for round in 0..options.rounds {
            for k in 0..CRATES.len() {
                let c = (k + round) % CRATES.len();
                if let Some((runner, n)) = &mut runners[c] {
                    runner();
                    take_untimed();
                    let start = Instant::now();
                    for _ in 0..*n {
                        runner();
                    }
                    samples[c].push(start.elapsed().saturating_sub(take_untimed()) / *n as u32);
                }
            }
            done += 1;
            progress(done, total, &format!("{} round {}/{}", workload.name(), round + 1, options.rounds));
        }
        drop(runners);
        let cells = samples
            .into_iter()
            .map(|mut s| {
                s.sort();
                (!s.is_empty()).then(|| Cell { median: s[s.len() / 2], min: s[0], max: s[s.len() - 1] })
            })
            .collect();
        results.push((workload, cells));
    }
    let table = report::table(&results);
    println!("{table}");
    std::fs::create_dir_all(&options.out).expect("create the output directory");
    let meta = report::Meta::collect();
    std::fs::write(format!("{}/peers.json", options.out), report::json(&results, &meta)).expect("write JSON");
    std::fs::write(format!("{}/peers.md", options.out), format!("{}\n\n{table}\n", meta.line())).expect("write table");
    report::chart(&results, &meta, &format!("{}/peers.svg", options.out)).expect("draw the chart");
    eprintln!("wrote {0}/peers.json, {0}/peers.md and {0}/peers.svg", options.out);
    if options.only.is_none() && options.out == "docs" {
        report::write_summary(README, &report::summary(&results, &meta)).expect("rewrite the README's table");
        eprintln!("rewrote the compact table of {README}");
    }
}
