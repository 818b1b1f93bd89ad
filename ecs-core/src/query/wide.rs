//! `par_for_each` loops in the widest vectors the CPU running them has, where
//! measured to be faster.
//!
//! A crate is compiled for its target's baseline (on x86-64: SSE2, 16-byte
//! vectors) unless its user sets `target-cpu`. The loops of `par_for_each` (the
//! system `Query::par_for_each(_mut)` and `QueryState::par_for_each`) are
//! monomorphized in the user's crate with the user's closure inlined into them,
//! so they are compiled a second time with AVX2 enabled (`iter::fold_wide` for
//! inline runs, `par::rows_wide` for a parallel run's tasks: `#[target_feature]`
//! copies of `#[inline(always)]` bodies) and picked at run time.
//!
//! Which copy runs is measured per query state, as the inline-or-parallel
//! choice is ([`crate::parallel`]), because AVX2 is not always the faster:
//! plain loops over components gain most (the schedule workload's swaps), but
//! a body that calls a function the compiler did not inline, compiled for the
//! baseline, and copies a large value it returns (heavy_compute's 4x4 matrix)
//! loses:
//! the caller's 32-byte loads of what the callee stored 16 bytes at a time
//! cannot be forwarded from the store buffer and wait for the stores to reach
//! the cache. So:
//!
//! - a query state starts on the baseline copy; its first inline runs time
//!   three runs of each copy, alternating;
//! - the copy with the lower median is kept; the other one replaces it only when
//!   [`SWITCH_MARGIN`] percent faster;
//! - untimed runs follow, [`FIRST_INTERVAL`] after the first check and twice
//!   as many after each later one, up to [`LAST_INTERVAL`], whatever the check
//!   decided: where the copies are within each other's noise (a few rows), a
//!   check would otherwise flip between them and time a run in every few;
//! - parallel runs take the copy the inline runs chose, untimed: their time
//!   varies with the other threads more than with the copy.
//!
//! An untimed run costs an atomic load and store; a timed one two clock reads.
//! `for_each` and `for` loops keep the baseline copy: they have no per-call
//! bookkeeping to add this to, and `for_each` over a few rows (fragmented
//! archetypes, many tiny systems) would pay it on every call.
//!
//! Results are the same either way: Rust never fuses float operations (no
//! `fma` unless written), and the compiler vectorizes a float reduction only
//! where that keeps its order. Where the crate is already compiled with AVX2
//! (`-C target-cpu=native`), or on other architectures, [`avx2`] is `false` at
//! compile time and each loop is compiled once, as written.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Instant;

use crate::parallel::{Timings, annotate};

/// Untimed runs after the first check.
const FIRST_INTERVAL: u32 = 16;
/// The most untimed runs between two checks.
const LAST_INTERVAL: u32 = 4096;
/// The other copy must be this many percent faster to be switched to.
const SWITCH_MARGIN: u64 = 3;

/// `true` when the loops may take their AVX2 copies: the CPU has AVX2 and the
/// crate was not already compiled for it.
#[inline(always)]
pub(crate) fn avx2() -> bool {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
    {
        false
    }
}

/// Which copy of a query state's loops runs: the AVX2 one or the baseline one,
/// as measured (see the module docs).
#[derive(Debug)]
pub(crate) struct WideChoice {
    /// Runs left before the next timed one, counted down without the lock
    /// (racing threads may count one run twice: harmless).
    untimed: AtomicU32,
    /// The copy the last check kept.
    wide: AtomicBool,
    policy: Mutex<Policy>,
}

impl Default for WideChoice {
    fn default() -> Self {
        Self { untimed: AtomicU32::new(0), wide: AtomicBool::new(false), policy: Mutex::new(Policy::default()) }
    }
}

impl WideChoice {
    /// Starts a run: which copy to take, and the clock if a check is due. Call
    /// only where [`avx2`] is `true`, and hand the run to [`end`](Self::end).
    ///
    /// A pair of calls rather than a method taking the loop as a closure: the
    /// compiler would be free not to inline that closure, and then the loop's
    /// state (the iterator) is copied into it on every call.
    #[inline(always)]
    pub(crate) fn begin(&self) -> WideRun {
        let (wide, timed) = self.choose();
        WideRun { wide, started: if timed { Some(Instant::now()) } else { None } }
    }

    /// Ends a run [`begin`](Self::begin) started, recording its time if it was
    /// timed. A run that panicked never gets here: its check goes on with the
    /// next runs.
    #[inline(always)]
    pub(crate) fn end(&self, run: WideRun) {
        if let Some(started) = run.started {
            self.record(run.wide, started.elapsed().as_nanos());
        }
    }

    /// The copy the last check kept, for runs that are not timed (parallel
    /// ones).
    #[inline]
    pub(crate) fn current(&self) -> bool {
        self.wide.load(Ordering::Relaxed)
    }

    /// The copy to run and whether to time it.
    #[inline(always)]
    fn choose(&self) -> (bool, bool) {
        let untimed = self.untimed.load(Ordering::Relaxed);
        if untimed > 0 {
            self.untimed.store(untimed - 1, Ordering::Relaxed);
            return (self.wide.load(Ordering::Relaxed), false);
        }
        self.choose_slow()
    }

    #[cold]
    #[inline(never)]
    fn choose_slow(&self) -> (bool, bool) {
        // Another thread checking: run the current copy untimed.
        match annotate::try_lock(&self.policy) {
            Some(policy) => (policy.next(), true),
            None => (self.wide.load(Ordering::Relaxed), false),
        }
    }

    #[cold]
    #[inline(never)]
    fn record(&self, wide: bool, ns: u128) {
        let Some(mut policy) = annotate::try_lock(&self.policy) else { return };
        if let Some((keep_wide, interval)) = policy.record(wide, u64::try_from(ns).unwrap_or(u64::MAX)) {
            self.wide.store(keep_wide, Ordering::Relaxed);
            self.untimed.store(interval, Ordering::Relaxed);
        }
    }
}

/// One run of a query's loops, from [`WideChoice::begin`].
#[derive(Debug)]
pub(crate) struct WideRun {
    /// Take the AVX2 copy.
    pub(crate) wide: bool,
    started: Option<Instant>,
}

/// The measurements of one check and what the last check decided.
#[derive(Debug)]
struct Policy {
    wide: bool,
    interval: u32,
    plain_ns: Timings,
    wide_ns: Timings,
}

impl Default for Policy {
    fn default() -> Self {
        // The first check doubles the interval to `FIRST_INTERVAL`.
        Self { wide: false, interval: FIRST_INTERVAL / 2, plain_ns: Timings::default(), wide_ns: Timings::default() }
    }
}

impl Policy {
    /// The copy to time next: the one with fewer timings, the kept one first.
    fn next(&self) -> bool {
        match self.plain_ns.len().cmp(&self.wide_ns.len()) {
            core::cmp::Ordering::Less => false,
            core::cmp::Ordering::Greater => true,
            core::cmp::Ordering::Equal => self.wide,
        }
    }

    /// Adds a timing; when the check is complete, the copy to keep and the
    /// untimed runs before the next check.
    fn record(&mut self, wide: bool, ns: u64) -> Option<(bool, u32)> {
        let timings = if wide { &mut self.wide_ns } else { &mut self.plain_ns };
        if !timings.is_full() {
            timings.push(ns);
        }
        if !self.plain_ns.is_full() || !self.wide_ns.is_full() {
            return None;
        }
        let (plain, wide) = (self.plain_ns.median(), self.wide_ns.median());
        self.plain_ns = Timings::default();
        self.wide_ns = Timings::default();
        let (kept, other) = if self.wide { (wide, plain) } else { (plain, wide) };
        if other.saturating_mul(100) < kept.saturating_mul(100 - SWITCH_MARGIN) {
            self.wide = !self.wide;
        }
        // Longer after every check, whatever it decided: where the two copies
        // are within the noise of each other (loops over a few rows), checks
        // would otherwise flip between them and time a run in every few.
        self.interval = (self.interval * 2).clamp(FIRST_INTERVAL, LAST_INTERVAL);
        Some((self.wide, self.interval))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Makes `runs` runs through `choice` with the given costs; the copies run.
    fn run(choice: &WideChoice, runs: usize, plain: u64, wide: u64) -> Vec<bool> {
        (0..runs)
            .map(|_| {
                let (copy, timed) = choice.choose();
                if timed {
                    choice.record(copy, u128::from(if copy { wide } else { plain }));
                }
                copy
            })
            .collect()
    }

    fn count(copies: &[bool], wide: bool) -> usize {
        copies.iter().filter(|&&copy| copy == wide).count()
    }

    #[test]
    fn the_faster_copy_is_taken_and_checked_ever_more_rarely() {
        let choice = WideChoice::default();
        // AVX2 twice as fast: taken after the first check.
        let copies = run(&choice, 10_000, 200, 100);
        assert_eq!(count(&copies[..6], false), 3, "the first check alternates: {:?}", &copies[..6]);
        assert!(copies[6..22].iter().all(|&wide| wide));
        // Three baseline runs a check; checks after 16, 32, ... 4096 runs.
        assert!(count(&copies, false) <= 3 * 10, "{} baseline runs of 10000", count(&copies, false));
        // Now the baseline copy is faster: taken at the next check.
        let copies = run(&choice, 20_000, 100, 200);
        let switched = copies.iter().position(|&wide| !wide).expect("rechecked");
        assert!(switched <= LAST_INTERVAL as usize, "rechecked only after {switched} runs");
        assert!(count(&copies[10_000..], true) <= 3 * 3);
    }

    #[test]
    fn a_gain_within_the_margin_does_not_switch() {
        let choice = WideChoice::default();
        let copies = run(&choice, 1_000, 100, 98);
        assert!(count(&copies[6..], true) <= 3 * 5);
        assert!(!choice.current());
    }

    #[test]
    fn copies_within_the_noise_are_checked_ever_more_rarely_too() {
        let choice = WideChoice::default();
        // Whichever copy is timed second in a pair looks faster: every check
        // switches.
        let (mut flip, mut timed_runs) = (false, 0);
        for _ in 0..20_000 {
            let (copy, timed) = choice.choose();
            if timed {
                flip = !flip;
                timed_runs += 1;
                choice.record(copy, if flip { 150 } else { 100 });
            }
        }
        // Checks after 16, 32, ... 4096 runs, then every 4096: six runs each.
        assert!(timed_runs <= 6 * 12, "{timed_runs} timed runs of 20000");
        assert_eq!(choice.policy.lock().map(|policy| policy.interval).ok(), Some(LAST_INTERVAL));
    }

    #[test]
    fn a_run_that_panics_leaves_the_check_to_the_next_runs() {
        let choice = WideChoice::default();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let run = choice.begin();
            assert!(run.started.is_some(), "the first run is timed");
            panic!("in the loop body");
        }));
        assert!(result.is_err());
        // The check it was part of completes in the next six runs, three each.
        let copies = run(&choice, 6, 300, 100);
        assert_eq!(count(&copies, false), 3);
        assert!(choice.current());
        assert_eq!(choice.untimed.load(Ordering::Relaxed), FIRST_INTERVAL);
    }
}
