//! The worker threads and the one operation they offer: run `work(i)` for every
//! `i` in `0..total`, on the calling thread and whichever workers are free, and
//! return when all are done.
//!
//! Why not rayon: a call from outside rayon's pool hands the whole job to a
//! worker and puts the caller to sleep until it is done, so every parallel
//! section pays two thread wake-ups; on a virtual machine those cost more than a
//! whole small system. Here the caller works too, and threads that run out of
//! work spin before they sleep, for as long as waking one was last measured to
//! take (spinning longer than a wake-up costs can at most double the wait, the
//! classic rent-or-buy bound; sleeping earlier makes back-to-back batches pay a
//! wake-up each).

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::annotate::{self, Locked};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// The work of one [`for_each_index`] call, shared with the workers.
struct Job {
    /// The caller's closure, its lifetime erased (see `for_each_index`).
    work: *const (dyn Fn(usize) + Sync + 'static),
    /// The next index to claim; indices at or past `total` are not run.
    next: AtomicUsize,
    total: usize,
    /// Claimed or unclaimed indices not finished yet.
    remaining: AtomicUsize,
    /// The first panic of a `work` call, resumed by the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The caller, woken when `remaining` reaches zero.
    owner: Thread,
    /// When the job was posted: a worker woken for it measures the wake-up.
    posted: Instant,
}

// SAFETY: `work` points to a `Sync` closure, so calling it from any thread is
// allowed; it is only called while the posting `for_each_index` call waits
// (see `work_on`). Every other field is `Send + Sync`.
unsafe impl Send for Job {}
// SAFETY: as for `Send`.
unsafe impl Sync for Job {}

impl Drop for Job {
    fn drop(&mut self) {
        // The last `Arc` may be a worker's, dropped after the caller took the
        // panic slot: `Arc`'s release/acquire pair orders that write before
        // this free, but helgrind cannot see it, so every holder announces its
        // drop (`release`).
        annotate::happens_after(self);
        annotate::atomic_gone(&self.next);
        annotate::atomic_gone(&self.remaining);
    }
}

/// Drops a handle to `job`, ordered for the race detector before the drop of
/// the last one (see `Drop for Job`).
fn release(job: Arc<Job>) {
    annotate::happens_before(Arc::as_ptr(&job));
    drop(job);
}

/// Claims and runs indices of `job` until none is left.
fn work_on(job: &Job) {
    loop {
        let index = job.next.fetch_add(1, Ordering::Relaxed);
        if index >= job.total {
            return;
        }
        // SAFETY: `index < total` was claimed by this thread alone, and the
        // posting call returns only once `remaining` is zero, which cannot
        // happen before this index is finished (below): the closure is alive.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.work)(index) }));
        if let Err(payload) = result {
            keep_first(&mut annotate::lock(&job.panic), payload);
        }
        annotate::happens_before(&job.remaining);
        // The owner is cloned first: once `remaining` is zero the caller may
        // return, but `job` stays alive here through its `Arc`.
        let owner = job.owner.clone();
        if job.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            owner.unpark();
        }
    }
}

/// Keeps the first panic's payload in `first` (only it goes on) and drops any
/// later one. Such a payload's `Drop` could panic in turn, which must not
/// unwind out of a worker (the job would never finish): that second payload is
/// leaked, the only leak here.
fn keep_first(first: &mut Option<Box<dyn Any + Send>>, payload: Box<dyn Any + Send>) {
    if first.is_none() {
        *first = Some(payload);
    } else if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        core::mem::forget(again);
    }
}

/// The state the workers share with callers.
struct Shared {
    /// Jobs that may still have unclaimed indices.
    jobs: Mutex<Vec<Arc<Job>>>,
    /// `jobs.len()`, read by spinning threads without the lock.
    queued: AtomicUsize,
    /// Workers waiting on `wake`, counted under the `jobs` lock.
    sleeping: AtomicUsize,
    wake: Condvar,
    /// How long idle threads spin before sleeping, in nanoseconds: the last
    /// measured wake-up of a sleeping worker (smoothed).
    spin_ns: AtomicU64,
}

impl Shared {
    fn jobs(&self) -> Locked<'_, Vec<Arc<Job>>> {
        // A panic never happens while the lock is held (only `Vec` operations).
        annotate::lock(&self.jobs)
    }

    fn spin(&self) -> Duration {
        Duration::from_nanos(self.spin_ns.load(Ordering::Relaxed))
    }

    /// Folds a measured wake-up into the spin window (a quarter of each new
    /// measurement, so one slow wake-up does not set it).
    fn record_wake_up(&self, took: Duration) {
        let took = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        let old = self.spin_ns.load(Ordering::Relaxed);
        let new = if old == 0 { took } else { old - old / 4 + took / 4 };
        self.spin_ns.store(new, Ordering::Relaxed);
    }

    /// A job with unclaimed indices, if any.
    fn find_job(&self) -> Option<Arc<Job>> {
        if self.queued.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let jobs = self.jobs();
        jobs.iter().find(|job| job.next.load(Ordering::Relaxed) < job.total).cloned()
    }

    /// Spins until a job is queued or the spin window is over; `true` if one is.
    fn spin_for_job(&self) -> bool {
        let deadline = Instant::now() + self.spin();
        loop {
            for _ in 0..64 {
                if self.queued.load(Ordering::Relaxed) != 0 {
                    return true;
                }
                core::hint::spin_loop();
            }
            if Instant::now() >= deadline {
                return false;
            }
            // Let a thread that shares this core run: under a scheduler that
            // runs one thread at a time (valgrind, an oversubscribed machine)
            // a spin would otherwise hold the core the caller needs.
            thread::yield_now();
        }
    }

    fn worker_loop(&self) {
        loop {
            if let Some(job) = self.find_job() {
                work_on(&job);
                release(job);
                continue;
            }
            if self.spin_for_job() {
                continue;
            }
            let mut jobs = self.jobs();
            let mut slept = false;
            while jobs.is_empty() {
                self.sleeping.fetch_add(1, Ordering::Relaxed);
                jobs = jobs.wait(&self.wake);
                self.sleeping.fetch_sub(1, Ordering::Relaxed);
                slept = true;
            }
            if slept && let Some(job) = jobs.first() {
                self.record_wake_up(job.posted.elapsed());
            }
        }
    }
}

/// The process-wide pool: `threads - 1` workers, the caller being the last.
struct Pool {
    shared: &'static Shared,
}

/// How many threads parallel work uses, the caller included: `ECS_NUM_THREADS`,
/// else `RAYON_NUM_THREADS` (one setting for both pools), else the machine's
/// available parallelism; 1 without the `parallel` feature.
#[inline]
pub fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *annotate::once(&THREADS, || {
        if !cfg!(feature = "parallel") {
            return 1;
        }
        let from_env = |name: &str| std::env::var(name).ok()?.trim().parse::<usize>().ok().filter(|&n| n > 0);
        from_env("ECS_NUM_THREADS")
            .or_else(|| from_env("RAYON_NUM_THREADS"))
            .unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

impl Pool {
    /// The pool, its workers started on first use; `None` with one thread.
    fn get() -> Option<&'static Pool> {
        static POOL: OnceLock<Option<Pool>> = OnceLock::new();
        annotate::once(&POOL, || {
            let workers = threads().checked_sub(1).filter(|&n| n > 0)?;
            let shared: &'static Shared = Box::leak(Box::new(Shared {
                jobs: Mutex::new(Vec::new()),
                queued: AtomicUsize::new(0),
                sleeping: AtomicUsize::new(0),
                wake: Condvar::new(),
                spin_ns: AtomicU64::new(0),
            }));
            annotate::atomic(&shared.queued);
            annotate::atomic(&shared.sleeping);
            annotate::atomic(&shared.spin_ns);
            let mut started = 0;
            for i in 0..workers {
                let spawned =
                    thread::Builder::new().name(format!("ecs-worker-{i}")).spawn(move || shared.worker_loop());
                started += usize::from(spawned.is_ok());
            }
            // A pool whose threads could not start runs everything inline.
            (started > 0).then_some(Pool { shared })
        })
        .as_ref()
    }

    fn post(&self, job: Arc<Job>) {
        let mut jobs = self.shared.jobs();
        jobs.push(job);
        self.shared.queued.store(jobs.len(), Ordering::Relaxed);
        let sleeping = self.shared.sleeping.load(Ordering::Relaxed);
        drop(jobs);
        if sleeping > 0 {
            self.shared.wake.notify_all();
        }
    }

    fn retire(&self, job: &Arc<Job>) {
        let mut jobs = self.shared.jobs();
        jobs.retain(|other| !Arc::ptr_eq(other, job));
        self.shared.queued.store(jobs.len(), Ordering::Relaxed);
    }

    /// Waits until every index of `job` is finished: spins for the window, then
    /// sleeps until the last finisher wakes this thread.
    fn wait(&self, job: &Job) {
        let deadline = Instant::now() + self.shared.spin();
        while job.remaining.load(Ordering::Acquire) != 0 {
            if Instant::now() < deadline {
                for _ in 0..64 {
                    core::hint::spin_loop();
                }
                thread::yield_now();
            } else {
                thread::park();
            }
        }
        annotate::happens_after(&job.remaining);
    }
}

/// `true` when [`for_each_index`] can run on more than one thread.
#[inline]
pub fn is_parallel() -> bool {
    threads() > 1
}

/// Calls `work(i)` for every `i` in `0..total`, each exactly once, on this
/// thread and the pool's free workers, and returns when all calls have
/// returned. A panic in `work` does not stop the other calls; the first one is
/// resumed here once all are done.
pub fn for_each_index(total: usize, work: &(dyn Fn(usize) + Sync)) {
    let pool = if total > 1 { Pool::get() } else { None };
    let Some(pool) = pool else {
        // Run every index even if one panics, as the parallel path does.
        let mut first = None;
        for index in 0..total {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| work(index))) {
                keep_first(&mut first, payload);
            }
        }
        if let Some(payload) = first {
            resume_unwind(payload);
        }
        return;
    };
    let work: *const (dyn Fn(usize) + Sync + '_) = work;
    // SAFETY: only the lifetime changes (same pointer, same vtable). The pointer
    // is dereferenced only by `work_on` for a claimed index, and this function
    // returns only after `wait` saw every index finished, so never after `work`
    // is gone; `retire` below drops the pool's handle, and workers holding a
    // clone of the `Arc` find every index claimed and never call it.
    let work: *const (dyn Fn(usize) + Sync + 'static) = unsafe { core::mem::transmute(work) };
    let job = Arc::new(Job {
        work,
        next: AtomicUsize::new(0),
        total,
        remaining: AtomicUsize::new(total),
        panic: Mutex::new(None),
        owner: thread::current(),
        posted: Instant::now(),
    });
    annotate::atomic(&job.next);
    annotate::atomic(&job.remaining);
    pool.post(Arc::clone(&job));
    work_on(&job);
    pool.retire(&job);
    pool.wait(&job);
    let panic = annotate::lock(&job.panic).take();
    release(job);
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_index_runs_exactly_once() {
        for total in [0, 1, 2, 3, 17, 1000] {
            let counts: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
            for_each_index(total, &|i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1), "total {total}");
        }
    }

    #[test]
    fn nested_calls_finish() {
        let sum = AtomicUsize::new(0);
        for_each_index(8, &|i| {
            for_each_index(8, &|j| {
                sum.fetch_add(i * 8 + j, Ordering::Relaxed);
            });
        });
        assert_eq!(sum.load(Ordering::Relaxed), (0..64).sum::<usize>());
    }

    #[test]
    fn a_panic_lets_every_other_index_run_then_goes_on() {
        let ran = AtomicUsize::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            for_each_index(50, &|i| {
                ran.fetch_add(1, Ordering::Relaxed);
                if i % 10 == 3 {
                    panic!("index {i} failed");
                }
            });
        }));
        let payload = result.expect_err("the panic goes on");
        let message = payload.downcast_ref::<String>().expect("a formatted message");
        assert!(message.starts_with("index ") && message.ends_with(" failed"), "{message}");
        assert_eq!(ran.load(Ordering::Relaxed), 50);
        // The pool still works.
        let after = AtomicUsize::new(0);
        for_each_index(10, &|_| {
            after.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(after.load(Ordering::Relaxed), 10);
    }

    /// Many short jobs, so that some are freed by a worker (its `Arc` the last
    /// one) after the caller took the panic slot: run under helgrind by CI,
    /// which must see the caller's last write ordered before that free.
    #[test]
    fn short_jobs_back_to_back() {
        let sum = AtomicUsize::new(0);
        for _ in 0..2_000 {
            for_each_index(2, &|i| {
                sum.fetch_add(i, Ordering::Relaxed);
            });
        }
        assert_eq!(sum.load(Ordering::Relaxed), 2_000);
    }

    #[test]
    fn the_thread_count_is_at_least_one() {
        assert!(threads() >= 1);
        assert_eq!(is_parallel(), threads() > 1);
    }
}
