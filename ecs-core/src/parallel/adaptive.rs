//! Choosing, per call site, between running work inline and spreading it over
//! the pool, from how long each took here, on this machine.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::annotate;

/// How to run a piece of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// On the calling thread, one part after the other.
    Inline,
    /// Over the pool ([`for_each_index`](super::for_each_index)).
    Parallel,
}

impl Mode {
    fn other(self) -> Mode {
        match self {
            Mode::Inline => Mode::Parallel,
            Mode::Parallel => Mode::Inline,
        }
    }
}

/// Runs in a row that measure a mode being (re)checked; their median counts.
/// The first run after a pause pays for waking the workers, the next ones show
/// what running that way steadily costs; the median, not the fastest, because
/// on a machine whose other core is busy a parallel run is sometimes lucky
/// (the worker had the core) and more often waits for it.
const CHECK_RUNS: usize = 3;
/// The shortest and longest gap between checks of the mode not in use, in runs.
/// A check that confirms the choice doubles the gap, one that overturns it
/// resets it, so a settled choice costs at most one slower run in a thousand.
const FIRST_INTERVAL: u32 = 8;
const LAST_INTERVAL: u32 = 1024;
/// Where a losing mode is many times slower, the gap grows further, so that
/// checks cost at most one part in this many of the time between them (a
/// schedule has a site per batch and per parallel query, each paying its own
/// checks)…
const CHECK_BUDGET: u64 = 256;
/// …up to this many runs.
const MAX_INTERVAL: u32 = 1 << 20;
/// A check run this many times slower than the other mode's estimate ends the
/// check (see `record`).
const HOPELESS: u64 = 4;
/// Inline, the mode in use is timed every this many runs, to follow a workload
/// that grows (a timing reads the clock twice, tens of nanoseconds on a
/// virtual machine: every run, that would cost a schedule of small systems a
/// few percent, as its every batch and parallel query is a site of its own);
/// the median of every [`CHECK_RUNS`] such timings becomes its estimate, taken
/// as a check's is. (Parallel runs are all timed: see [`PARALLEL_WINDOW`].)
const TRACK_EVERY: u32 = 64;
/// While parallel is the mode in use, every run is timed (cheaply, without the
/// lock) and its estimate is the mean of each window of this many runs, not a
/// median of sampled ones: where another process holds a core, a worker that
/// loses it while running a task stalls the whole run for a time slice, a
/// minority of runs (so sampled medians never see them) that makes the mean far
/// slower than running inline. A window this long dilutes one stray stall on a
/// free machine (a run of milliseconds among sixteen).
const PARALLEL_WINDOW: u32 = 16;
/// An inline site whose timing grows by more than this factor from its
/// estimate (a parallel one whose timing shrinks that much) has the other mode
/// checked at once.
const GROWN: u64 = 4;
/// A re-check of inline ends after its first run when that run and the inline
/// estimate before it are both at least this much slower than parallel's
/// estimate: an inline run has no worker to wait for, so its time varies
/// little, and a run that repeats a clear loss says what two more would. (A
/// parallel run that loses may have met one stall: its checks keep their runs.)
const CLEAR_LOSS: u64 = 150; // percent
/// The other mode takes over only when it is at least this fraction faster:
/// two modes within noise of each other would otherwise trade places at every
/// check, each trade restarting the checks at the shortest gap.
const SWITCH_MARGIN: u64 = 10; // percent

/// What one call site learned: the time of a run in each mode and where it is
/// in its schedule of checks.
#[derive(Debug)]
struct Policy {
    /// Nanoseconds of a run, inline and parallel; 0 until measured.
    inline_ns: u64,
    parallel_ns: u64,
    /// A check in progress: the mode and its runs so far.
    check: Option<(Mode, Timings)>,
    /// Timings of the mode in use since its estimate was last set.
    tracked: Timings,
    /// The mode in use.
    current: Option<Mode>,
    /// Runs since the last check, and the gap before the next.
    runs: u32,
    interval: u32,
    /// Parallel runs of the current window: their total time and number.
    window_ns: u64,
    window_runs: u32,
    /// The gap before the next check of parallel after its window's mean lost
    /// to inline: doubled each time that happens (up to [`LAST_INTERVAL`]),
    /// halved by a window that holds, so that a machine
    /// where parallel runs keep stalling is not sent back to parallel (and its
    /// stalls) after every lucky check.
    backoff: u32,
    /// Whether the last check found the other mode [`HOPELESS`]ly slower: the
    /// budget spacing waits for a second such check in a row, so that one
    /// unlucky run (a worker that lost its core for a time slice) does not put
    /// off the next check for thousands of runs.
    hopeless_before: bool,
    /// The fastest run of the last check of parallel.
    parallel_fastest: u64,
    /// Whether the last completed check left inline in use although one of
    /// parallel's check runs beat it (see `record`).
    mixed_before: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            inline_ns: 0,
            parallel_ns: 0,
            check: None,
            tracked: Timings::default(),
            current: None,
            runs: 0,
            interval: FIRST_INTERVAL,
            window_ns: 0,
            window_runs: 0,
            backoff: FIRST_INTERVAL,
            hopeless_before: false,
            parallel_fastest: 0,
            mixed_before: false,
        }
    }
}

/// Up to [`CHECK_RUNS`] timings of one mode, in nanoseconds (also of one loop
/// copy, `query::wide`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timings {
    count: usize,
    ns: [u64; CHECK_RUNS],
}

impl Timings {
    /// Adds a timing; `true` once there are [`CHECK_RUNS`].
    pub(crate) fn push(&mut self, ns: u64) -> bool {
        self.ns[self.count] = ns;
        self.count += 1;
        self.count == CHECK_RUNS
    }

    /// How many timings there are.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// `true` once there are [`CHECK_RUNS`].
    pub(crate) fn is_full(&self) -> bool {
        self.count == CHECK_RUNS
    }

    /// The median (of two, the slower: a check cut short was cut for being slow).
    pub(crate) fn median(mut self) -> u64 {
        let taken = &mut self.ns[..self.count];
        taken.sort_unstable();
        taken.get(self.count / 2).copied().unwrap_or(u64::MAX)
    }

    /// The fastest timing.
    fn fastest(self) -> u64 {
        self.ns[..self.count].iter().copied().min().unwrap_or(u64::MAX)
    }
}

impl Policy {
    fn estimate(&mut self, mode: Mode) -> &mut u64 {
        match mode {
            Mode::Inline => &mut self.inline_ns,
            Mode::Parallel => &mut self.parallel_ns,
        }
    }

    /// The mode to use: the one in use unless the other is clearly faster
    /// (inline when neither is in use yet and they tie).
    fn best(&self) -> Mode {
        let current =
            self.current.unwrap_or(if self.parallel_ns < self.inline_ns { Mode::Parallel } else { Mode::Inline });
        let (kept, other) = match current {
            Mode::Inline => (self.inline_ns, self.parallel_ns),
            Mode::Parallel => (self.parallel_ns, self.inline_ns),
        };
        if other.saturating_mul(100) < kept.saturating_mul(100 - SWITCH_MARGIN) { current.other() } else { current }
    }

    /// The next run's choice, and how many runs after it go the same way
    /// without being timed (they never include a check).
    fn choose(&mut self) -> (Choice, u32) {
        if let Some((mode, ..)) = self.check {
            return (Choice { mode, measure: true }, 0);
        }
        // Parallel first: it is what the work was written for, and it starts
        // the workers.
        for mode in [Mode::Parallel, Mode::Inline] {
            if *self.estimate(mode) == 0 {
                self.check = Some((mode, Timings::default()));
                return (Choice { mode, measure: true }, 0);
            }
        }
        let best = self.best();
        if self.current != Some(best) {
            self.current = Some(best);
            self.tracked = Timings::default();
            (self.window_ns, self.window_runs) = (0, 0);
        }
        if self.runs >= self.interval {
            self.runs = 0;
            let other = best.other();
            self.check = Some((other, Timings::default()));
            return (Choice { mode: other, measure: true }, 0);
        }
        // One timed run, then untimed ones up to the next timing or check
        // (untimed parallel runs are still added up, see `PARALLEL_WINDOW`).
        let every = if best == Mode::Parallel { PARALLEL_WINDOW } else { TRACK_EVERY };
        let untimed = (every - 1).min(self.interval - self.runs - 1);
        self.runs += 1 + untimed;
        (Choice { mode: best, measure: true }, untimed)
    }

    /// Records a timed run of `mode`, and the total time and number of the
    /// untimed parallel runs since the last record (`untimed_parallel`).
    fn record(&mut self, mode: Mode, took: Duration, untimed_parallel: (u64, u32)) {
        let took = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX).max(1);
        if self.current == Some(Mode::Parallel) {
            self.window_ns = self.window_ns.saturating_add(untimed_parallel.0);
            self.window_runs = self.window_runs.saturating_add(untimed_parallel.1);
        }
        match self.check {
            Some((checked, mut timings)) if checked == mode => {
                let complete = timings.push(took);
                let other = *self.estimate(mode.other());
                // A run far slower than the other mode ends the check at once: a
                // worker that lost its core to another process can hold a run up
                // for a whole time slice, and two more such runs teach nothing.
                let hopeless = other != 0 && took / HOPELESS > other;
                let clear = |ns: u64| other != 0 && ns.saturating_mul(100) >= other.saturating_mul(CLEAR_LOSS);
                let confirmed = mode == Mode::Inline && clear(self.inline_ns) && clear(took);
                if !complete && !hopeless && !confirmed {
                    self.check = Some((checked, timings));
                    return;
                }
                self.check = None;
                let before = self.best();
                let measured = timings.median();
                *self.estimate(mode) = measured;
                let settled = self.inline_ns != 0 && self.parallel_ns != 0;
                let kept = (*self.estimate(before)).max(1);
                let other = *self.estimate(mode.other());
                let far_slower = other != 0 && measured / HOPELESS > other;
                self.interval = if settled && self.best() == before {
                    let doubled = (self.interval * 2).clamp(FIRST_INTERVAL, LAST_INTERVAL);
                    if far_slower && self.hopeless_before {
                        // Checks that keep losing by far are spaced so that
                        // together they cost at most 1/CHECK_BUDGET of the runs
                        // between them.
                        let budget = (measured / kept).saturating_mul(CHECK_BUDGET);
                        doubled.max(u32::try_from(budget).unwrap_or(u32::MAX).min(MAX_INTERVAL))
                    } else {
                        doubled
                    }
                } else {
                    FIRST_INTERVAL
                };
                self.hopeless_before = settled && far_slower;
                if mode == Mode::Parallel {
                    self.parallel_fastest = timings.fastest();
                }
                // Parallel lost on its median, yet one of its runs beat inline:
                // either the machine is busy (a worker sometimes has a core,
                // mostly not), or parallel met a passing disturbance, such as a
                // new process's workers that the OS has not yet spread over the
                // cores (tens of milliseconds on some virtual machines). Checked
                // again at once, once: a second such check means a busy machine,
                // and the gaps grow as usual.
                let mixed = settled
                    && self.best() == Mode::Inline
                    && self.parallel_fastest.saturating_mul(100) < self.inline_ns.saturating_mul(100 - SWITCH_MARGIN);
                if mixed && !self.mixed_before {
                    self.runs = self.interval;
                }
                self.mixed_before = mixed;
            }
            _ if mode == Mode::Parallel => {
                self.window_ns = self.window_ns.saturating_add(took);
                self.window_runs = self.window_runs.saturating_add(1);
                if self.window_runs < PARALLEL_WINDOW {
                    return;
                }
                let before = self.parallel_ns;
                let now = (self.window_ns / u64::from(self.window_runs)).max(1);
                (self.window_ns, self.window_runs) = (0, 0);
                self.parallel_ns = now;
                if self.best() == Mode::Parallel {
                    // Halved, not reset: where stalls are random, a window
                    // without one now and then should not undo the backoff.
                    self.backoff = (self.backoff / 2).max(FIRST_INTERVAL);
                    if before / GROWN > now {
                        // The work shrank: inline may win now, check it at once.
                        self.interval = FIRST_INTERVAL;
                        self.runs = FIRST_INTERVAL;
                        self.hopeless_before = false;
                    }
                } else {
                    // Parallel lost on its own runs (stalls a check of three
                    // rarely sees): inline from now on, and parallel checked
                    // again later, twice as late each time this happens.
                    self.backoff = (self.backoff * 2).min(LAST_INTERVAL);
                    self.interval = self.backoff;
                    self.runs = 0;
                }
            }
            _ => {
                debug_assert_eq!(mode, Mode::Inline);
                if self.tracked.push(took) {
                    let before = *self.estimate(mode);
                    let now = self.tracked.median();
                    *self.estimate(mode) = now;
                    self.tracked = Timings::default();
                    // Inline here (parallel has its own arm above). The work grew
                    // enough that parallel may now win: what it costs now is
                    // unknown, so it is checked next, whatever the gap was. A
                    // factor beyond noise: two of three timings must have grown
                    // that far.
                    if now / GROWN > before {
                        self.interval = FIRST_INTERVAL;
                        self.runs = FIRST_INTERVAL;
                        self.hopeless_before = false;
                    }
                }
            }
        }
    }
}

/// The choice for one run: the mode, and whether to time the run and
/// [`record`](Adaptive::record) it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// How to run.
    pub mode: Mode,
    /// Whether the run should be timed.
    pub measure: bool,
}

/// The inline-or-parallel choice of one call site (a schedule's batch, a
/// query's parallel iteration): it tries both, keeps the faster and re-checks
/// the other now and then (more rarely while the choice holds). With one
/// thread it always runs inline and measures nothing.
#[derive(Debug, Default)]
pub struct Adaptive {
    /// A lock only so that a shared query state can keep one; callers of one
    /// site never contend (a site that finds it taken runs inline, unmeasured).
    policy: Mutex<Policy>,
    /// Runs left that go `parallel`'s way untimed, without taking the lock:
    /// the common case costs two loads and a store.
    untimed: AtomicU32,
    parallel: AtomicBool,
    /// Untimed-by-the-policy parallel runs since the last record: their total
    /// nanoseconds and number (see [`PARALLEL_WINDOW`]).
    untimed_parallel_ns: AtomicU64,
    untimed_parallel_runs: AtomicU32,
}

impl Adaptive {
    /// A site with nothing measured yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How to run next.
    #[inline]
    pub fn choose(&self) -> Choice {
        if !super::is_parallel() {
            return Choice { mode: Mode::Inline, measure: false };
        }
        // Relaxed: concurrent callers of one site (never the crate's own) could
        // only make a run more or less untimed, which decides no safety.
        let untimed = self.untimed.load(Ordering::Relaxed);
        if untimed > 0 {
            self.untimed.store(untimed - 1, Ordering::Relaxed);
            let mode = if self.parallel.load(Ordering::Relaxed) { Mode::Parallel } else { Mode::Inline };
            return Choice { mode, measure: false };
        }
        self.choose_slow()
    }

    #[cold]
    fn choose_slow(&self) -> Choice {
        let Some(mut policy) = annotate::try_lock(&self.policy) else {
            return Choice { mode: Mode::Inline, measure: false };
        };
        let (choice, untimed) = policy.choose();
        self.parallel.store(choice.mode == Mode::Parallel, Ordering::Relaxed);
        self.untimed.store(untimed, Ordering::Relaxed);
        choice
    }

    /// Runs `work` in the mode chosen, timing and recording it when asked: what
    /// every site does around its work.
    #[inline]
    pub fn run<R>(&self, work: impl FnOnce(Mode) -> R) -> R {
        let choice = self.choose();
        // Every parallel run is timed (see `PARALLEL_WINDOW`): it hands work to
        // the pool, which costs far more than reading the clock twice.
        if !choice.measure && choice.mode == Mode::Inline {
            return work(choice.mode);
        }
        let started = Instant::now();
        let result = work(choice.mode);
        let took = started.elapsed();
        if choice.measure {
            self.record(choice.mode, took);
        } else {
            self.add_untimed_parallel(took);
        }
        result
    }

    /// Adds an untimed parallel run to the sums the next record folds in.
    /// Plain loads and stores: concurrent callers of one site (never the
    /// crate's own) could only lose a run from the mean.
    fn add_untimed_parallel(&self, took: Duration) {
        let took = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        let ns = self.untimed_parallel_ns.load(Ordering::Relaxed);
        self.untimed_parallel_ns.store(ns.saturating_add(took), Ordering::Relaxed);
        let runs = self.untimed_parallel_runs.load(Ordering::Relaxed);
        self.untimed_parallel_runs.store(runs.saturating_add(1), Ordering::Relaxed);
    }

    /// What a run chosen with `measure` took.
    pub fn record(&self, mode: Mode, took: Duration) {
        if let Some(mut policy) = annotate::try_lock(&self.policy) {
            let untimed = (
                self.untimed_parallel_ns.swap(0, Ordering::Relaxed),
                self.untimed_parallel_runs.swap(0, Ordering::Relaxed),
            );
            policy.record(mode, took, untimed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a site whose work takes `inline` or `parallel` nanoseconds `runs`
    /// times; the modes it ran, in order.
    fn run(policy: &mut Policy, runs: usize, inline: u64, parallel: u64) -> Vec<Mode> {
        run_with(policy, runs, |mode, _| if mode == Mode::Inline { inline } else { parallel })
    }

    /// Runs a site `runs` times, the `i`th run of `mode` taking `cost(mode, i)`
    /// nanoseconds, as `Adaptive::run` does: untimed parallel runs are added
    /// up and handed to the next record. The modes it ran, in order.
    fn run_with(policy: &mut Policy, runs: usize, mut cost: impl FnMut(Mode, usize) -> u64) -> Vec<Mode> {
        let mut modes = Vec::new();
        let mut untimed_parallel = (0, 0);
        while modes.len() < runs {
            let (choice, untimed) = policy.choose();
            assert!(choice.measure);
            let took = cost(choice.mode, modes.len());
            policy.record(choice.mode, Duration::from_nanos(took), core::mem::take(&mut untimed_parallel));
            modes.push(choice.mode);
            for _ in 0..untimed {
                if choice.mode == Mode::Parallel {
                    untimed_parallel.0 += cost(Mode::Parallel, modes.len());
                    untimed_parallel.1 += 1;
                }
                modes.push(choice.mode);
            }
        }
        modes.truncate(runs);
        modes
    }

    #[test]
    fn parallel_runs_that_often_stall_lose_to_inline_and_are_rechecked_ever_more_rarely() {
        // Another process holds a core: parallel runs take 140 us, but one in
        // eight waits 3 ms for the worker's time slice (a mean of about 500 us,
        // where inline takes 270). A check of three parallel runs is often
        // lucky; the runs that follow are not.
        let mut policy = Policy::default();
        let modes = run_with(&mut policy, 20_000, |mode, i| match mode {
            Mode::Inline => 270_000,
            Mode::Parallel if i % 8 == 7 => 3_000_000,
            Mode::Parallel => 140_000,
        });
        let late_parallel = modes[10_000..].iter().filter(|&&m| m == Mode::Parallel).count();
        assert!(late_parallel * 20 <= 10_000, "{late_parallel} of 10000 runs parallel late on: {policy:?}");
        assert_eq!(policy.current, Some(Mode::Inline));
        // The machine frees up: parallel is found again within the longest gap.
        let modes = run(&mut policy, 3 * LAST_INTERVAL as usize, 270_000, 140_000);
        let late_inline = modes[2 * LAST_INTERVAL as usize..].iter().filter(|&&m| m == Mode::Inline).count();
        assert!(late_inline <= 2 * CHECK_RUNS, "{late_inline} inline runs late on: {policy:?}");
        assert_eq!(policy.current, Some(Mode::Parallel));
    }

    #[test]
    fn one_stray_stall_among_parallel_runs_keeps_parallel() {
        let mut policy = Policy::default();
        run(&mut policy, 1000, 270_000, 140_000);
        assert_eq!(policy.current, Some(Mode::Parallel));
        // One run of a millisecond (the OS took the core once) in a thousand.
        let modes = run_with(&mut policy, 1000, |mode, i| match mode {
            Mode::Inline => 270_000,
            Mode::Parallel if i == 500 => 1_000_000,
            Mode::Parallel => 140_000,
        });
        let inline = modes.iter().filter(|&&m| m == Mode::Inline).count();
        assert!(inline <= 2 * CHECK_RUNS, "{inline} inline runs: {policy:?}");
        assert_eq!(policy.current, Some(Mode::Parallel));
    }

    #[test]
    fn settles_on_the_faster_mode_and_rechecks_ever_more_rarely() {
        let mut policy = Policy::default();
        let modes = run(&mut policy, 3000, 100, 300);
        assert_eq!(&modes[..3], &[Mode::Parallel; 3], "parallel is tried first");
        assert_eq!(&modes[3..6], &[Mode::Inline; 3]);
        let late_parallel = modes[1000..].iter().filter(|&&m| m == Mode::Parallel).count();
        assert!(late_parallel <= 2 * CHECK_RUNS, "{late_parallel} slow runs late on");
        let mut policy = Policy::default();
        let modes = run(&mut policy, 3000, 300, 100);
        let late_inline = modes[1000..].iter().filter(|&&m| m == Mode::Inline).count();
        assert!(late_inline <= 2 * CHECK_RUNS, "{late_inline} slow runs late on");
    }

    #[test]
    fn a_recheck_of_inline_that_repeats_a_clear_loss_takes_one_run() {
        let mut policy = Policy::default();
        let modes = run(&mut policy, 3000, 200, 100);
        assert_eq!(&modes[3..6], &[Mode::Inline; 3], "the first check takes all its runs");
        assert!(modes[6..].windows(2).all(|w| w != [Mode::Inline; 2]), "re-checks of one run: {policy:?}");
        assert!(modes[6..].contains(&Mode::Inline), "inline is still re-checked");
        // Inline comes close (the work changed): its re-check takes all its runs again.
        let modes = run(&mut policy, 3 * LAST_INTERVAL as usize, 105, 100);
        assert!(modes.windows(3).any(|w| w == [Mode::Inline; 3]), "{policy:?}");
        assert_eq!(policy.current, Some(Mode::Parallel));
    }

    #[test]
    fn a_parallel_check_slowed_by_a_passing_disturbance_is_redone_at_once() {
        // The first parallel runs of a process wait for its new worker to be
        // moved off the caller's core, but for one; after that parallel wins.
        let mut policy = Policy::default();
        let modes = run_with(&mut policy, 40, |mode, i| match (mode, i) {
            (Mode::Inline, _) => 6_400_000,
            (Mode::Parallel, 0) => 6_600_000,
            (Mode::Parallel, 1) => 7_200_000,
            (Mode::Parallel, _) => 3_300_000,
        });
        assert_eq!(&modes[3..6], &[Mode::Inline; 3]);
        assert_eq!(&modes[6..9], &[Mode::Parallel; 3], "parallel is checked again at once");
        // Later, only re-checks of inline, of one run each.
        let late_inline = modes[9..].iter().filter(|&&m| m == Mode::Inline).count();
        assert!(late_inline <= 2, "{late_inline} inline runs late on: {policy:?}");
        assert_eq!(policy.current, Some(Mode::Parallel));
    }

    #[test]
    fn follows_a_workload_whose_best_mode_changes() {
        let mut policy = Policy::default();
        run(&mut policy, 2000, 100, 300);
        // The work grew: parallel now wins. It is found within one interval;
        // after that only the checks of the other mode run inline.
        let modes = run(&mut policy, 2 * LAST_INTERVAL as usize + 20, 1000, 400);
        let late_inline = modes[LAST_INTERVAL as usize..].iter().filter(|&&m| m == Mode::Inline).count();
        assert!(late_inline <= 2 * CHECK_RUNS, "{late_inline} inline runs late on: {policy:?}");
        assert_eq!(policy.current, Some(Mode::Parallel));
    }

    #[test]
    fn a_mode_far_slower_is_checked_once_and_ever_more_rarely() {
        // A busy machine: a parallel run waits for a worker's time slice.
        let mut policy = Policy::default();
        let modes = run(&mut policy, 200_000, 10_000, 3_000_000);
        let slow_runs = modes[100..].iter().filter(|&&m| m == Mode::Parallel).count();
        // Within the budget: those runs cost at most 1/CHECK_BUDGET of the others, give
        // or take the first check.
        let waste = slow_runs as u64 * 3_000_000;
        assert!(waste <= 2 * modes.len() as u64 * 10_000 / CHECK_BUDGET, "{slow_runs} slow runs");
    }

    #[test]
    fn one_unlucky_check_does_not_put_off_the_next_for_long() {
        let mut policy = Policy::default();
        run(&mut policy, 3000, 20_000, 15_000);
        assert_eq!(policy.current, Some(Mode::Parallel));
        // Runs parallel (15 us) up to the next check of inline, whose run takes 3 ms.
        let unlucky_check = |policy: &mut Policy| loop {
            let (choice, _) = policy.choose();
            if choice.mode == Mode::Inline {
                policy.record(Mode::Inline, Duration::from_nanos(3_000_000), (0, 0));
                return;
            }
            policy.record(choice.mode, Duration::from_nanos(15_000), (0, 0));
        };
        // One check of inline is far slower (the thread lost its core), once:
        // the next check comes within the usual gap.
        unlucky_check(&mut policy);
        assert!(policy.interval <= LAST_INTERVAL, "{policy:?}");
        // A second far slower check in a row: now checks are spaced by the budget.
        unlucky_check(&mut policy);
        assert!(policy.interval as u64 >= 3_000_000 / 15_000 * CHECK_BUDGET, "{policy:?}");
    }

    #[test]
    fn work_that_grows_is_rechecked_at_once_even_after_a_far_slower_check() {
        // Small work: parallel is far slower, so its checks are spaced widely.
        let mut policy = Policy::default();
        run(&mut policy, 20_000, 1_000, 500_000);
        assert!(policy.interval > 16 * LAST_INTERVAL, "{policy:?}");
        // The work grew a hundredfold and parallel now wins: found within the
        // few timings that show the growth, not after the wide gap.
        let modes = run(&mut policy, 600, 100_000, 30_000);
        let late_inline = modes[400..].iter().filter(|&&m| m == Mode::Inline).count();
        assert!(late_inline <= 2 * CHECK_RUNS, "{late_inline} inline runs late on: {policy:?}");
        assert_eq!(policy.current, Some(Mode::Parallel));
    }

    #[test]
    fn the_median_run_of_a_check_counts() {
        let mut policy = Policy::default();
        // The first parallel run pays for waking the workers.
        for took in [5000, 150, 160] {
            assert_eq!(policy.choose().0.mode, Mode::Parallel);
            policy.record(Mode::Parallel, Duration::from_nanos(took), (0, 0));
        }
        for _ in 0..CHECK_RUNS {
            assert_eq!(policy.choose().0.mode, Mode::Inline);
            policy.record(Mode::Inline, Duration::from_nanos(200), (0, 0));
        }
        assert_eq!(policy.choose().0.mode, Mode::Parallel);
    }

    #[test]
    fn a_mode_fast_only_once_in_a_while_is_not_chosen() {
        // A busy second core: one parallel run in three finds the worker awake.
        let mut policy = Policy::default();
        let mut parallel_runs = [2_000u64, 150, 2_000].into_iter().cycle();
        let mut modes = Vec::new();
        for _ in 0..200 {
            let (choice, untimed) = policy.choose();
            let took = if choice.mode == Mode::Inline { 1_000 } else { parallel_runs.next().unwrap() };
            policy.record(choice.mode, Duration::from_nanos(took), (0, 0));
            modes.extend(std::iter::repeat_n(choice.mode, 1 + untimed as usize));
        }
        // Only the checks run parallel (the fastest of three would have chosen it).
        let parallel = modes[50..].iter().filter(|&&m| m == Mode::Parallel).count();
        assert!(parallel * 50 <= modes.len(), "{parallel} of {} runs parallel: {policy:?}", modes.len());
        assert_eq!(policy.current, Some(Mode::Inline));
    }
}
