//! Running work on several threads, and deciding when that is worth it.
//!
//! The crate's parallel work — a [`Schedule`](crate::system::Schedule)'s
//! batches of systems, [`par_for_each`](crate::QueryState::par_for_each) and
//! [`par_propagate`](crate::system::Query::par_propagate) — runs on one
//! process-wide pool of worker threads, started the first time it is needed
//! (creating a [`World`](crate::World) starts nothing). The calling thread
//! works too.
//!
//! # When work goes parallel
//! Handing work to another thread costs a different amount on every machine:
//! a few hundred nanoseconds when the worker is awake, tens of microseconds on
//! a virtual machine whose idle core must be woken. No fixed threshold can be
//! right everywhere, so nothing here is one. Each place that could go parallel
//! (each batch of a schedule, each query's parallel iteration) measures:
//!
//! 1. it runs parallel for three runs, then inline for three, keeping the
//!    median run of each (the first parallel run after a pause pays for waking
//!    the workers; the later ones show the steady cost; and where another
//!    process holds a core, the one lucky run does not count);
//! 2. it then runs the faster way. Inline, it times every sixty-fourth run so
//!    the estimate follows work that grows (fourfold growth has parallel
//!    checked at once). Parallel, it times every run (the clock costs little
//!    beside a hand-off to the pool) and takes the *mean* of each sixteen as
//!    the estimate: where another process holds a core, a worker that loses it
//!    mid-task stalls its run for a time slice, a minority of runs that a
//!    median of three never sees but that can make parallel slower on average
//!    than inline. A window that loses to inline switches to inline and puts
//!    the next check of parallel off twice as long as the last time (up to
//!    1,024 runs); a window that holds halves that gap again;
//! 3. every 8 runs it checks the other way again (three runs); each check that
//!    confirms the choice doubles the gap, up to 1,024 runs, and one that
//!    overturns it starts over at 8. A check run four times slower than the
//!    mode in use ends the check, and where the other way is many times slower
//!    at two checks in a row (a worker waiting for a core another process
//!    holds, not one unlucky run) the gap grows until checks cost at most
//!    1/256 of the runs between them (a schedule has a site per batch and per
//!    parallel query, each paying for its own checks).
//!
//! So a schedule of small systems settles on running them inline on the
//! calling thread, and the same schedule over ten times the entities, or on a
//! machine where threads are cheap, settles on parallel, without a setting.
//!
//! # Keeping workers warm
//! A worker that runs out of work spins before it sleeps, for as long as
//! waking a sleeping worker was last measured to take here; the caller waits
//! the same way. A game's frames run their batches back to back, so the
//! workers stay awake through a frame; between frames they sleep, and at worst
//! the spinning doubles what a wake-up would have cost. Spinning threads yield
//! between rounds, so a thread that shares their core (on a busy machine, or
//! under valgrind, which runs one thread at a time) is not held up.
//!
//! # Threads
//! The pool has [`threads`]`() - 1` workers: `ECS_NUM_THREADS`, else
//! `RAYON_NUM_THREADS`, else the machine's available parallelism. With one
//! thread (or without the default `parallel` feature) everything runs inline
//! and nothing is timed.

mod adaptive;
pub(crate) mod annotate;
mod pool;

pub(crate) use adaptive::{Adaptive, Mode, Timings};
pub use pool::threads;
pub(crate) use pool::{for_each_index, is_parallel};
