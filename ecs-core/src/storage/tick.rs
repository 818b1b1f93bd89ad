//! Change ticks: when a row was added and last changed, and the summaries
//! columns keep of their newest ticks.

use core::ptr::NonNull;
use core::sync::atomic::{AtomicU32, Ordering};

/// A point in a world's history, used for change detection.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Tick(u32);

impl Tick {
    /// A tick from its raw value.
    #[inline]
    pub const fn new(tick: u32) -> Self {
        Self(tick)
    }

    /// The raw value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Marks "no value" in a tag column's `added` tick. Never a stamp: see
    /// [`stamp`](Self::stamp).
    pub(crate) const ABSENT: Tick = Tick(0);

    /// This tick as a stamp for a present value: never [`ABSENT`](Self::ABSENT), even
    /// when the world's tick has wrapped around to 0.
    #[inline]
    pub(crate) const fn stamp(self) -> Tick {
        if self.0 == 0 { Tick(1) } else { self }
    }

    /// `true` when this tick is after `last_run` and not after `this_run`. Ticks
    /// wrap around; comparing ages relative to `this_run` keeps the answer right as
    /// long as both are less than 2^32 ticks old, which the world ensures by
    /// clamping old ticks (see [`MAX_CHANGE_AGE`]).
    #[inline]
    pub const fn is_newer_than(self, last_run: Tick, this_run: Tick) -> bool {
        let age = this_run.0.wrapping_sub(self.0);
        let since_last_run = this_run.0.wrapping_sub(last_run.0);
        age < since_last_run
    }
}

/// How many ticks may pass between two [`World::check_change_ticks`] passes for
/// change detection to stay exact. The world runs the pass itself once this many
/// ticks have passed, at the start of a [`Schedule`] run or of a query run on
/// `&mut World`.
///
/// [`World::check_change_ticks`]: crate::World::check_change_ticks
/// [`Schedule`]: crate::system::Schedule
pub const CHECK_TICK_THRESHOLD: u32 = 518_400_000;

/// The oldest a stored tick (or a query's "last run") is allowed to look. Older
/// ones are clamped to this age, so that with a check every
/// [`CHECK_TICK_THRESHOLD`] ticks no age ever exceeds `u32::MAX` and wraps around
/// into looking new. (A query that has not run for this long sees only the
/// changes of the last `MAX_CHANGE_AGE` ticks.)
pub const MAX_CHANGE_AGE: u32 = u32::MAX - (2 * CHECK_TICK_THRESHOLD - 1);

impl Tick {
    /// This tick, or `now - MAX_CHANGE_AGE` when it is older than that.
    #[inline]
    pub(crate) const fn clamp_age(self, now: Tick) -> Tick {
        if now.0.wrapping_sub(self.0) > MAX_CHANGE_AGE { Tick(now.0.wrapping_sub(MAX_CHANGE_AGE)) } else { self }
    }
}

/// When a row was added and when it was last changed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[repr(C, align(8))]
pub struct ComponentTicks {
    /// When the value was added to its entity.
    pub added: Tick,
    /// When the value was last written through a mutable access.
    pub changed: Tick,
}

impl ComponentTicks {
    /// Both ticks at `tick`: a value just added.
    #[inline]
    pub const fn new(tick: Tick) -> Self {
        Self { added: tick, changed: tick }
    }
}

/// Records in a column's "last changed" summary that a row was changed at
/// `now`, through a shared reference (a `Mut` or a parallel query pass).
///
/// Writers running side by side may hold different ticks (two systems writing
/// rows of one sparse column kept apart by filters); the summary must end at
/// the newest of them, so a tick only replaces an older one. "Older" is judged
/// by the wrapping distance: a summary a little ahead of `now` (less than 2^20
/// ticks: another system of the same run) is kept.
#[inline]
pub(crate) fn stamp_summary(summary: &AtomicU32, now: Tick) {
    const AHEAD: u32 = 1 << 20;
    let now = now.get();
    // The common case, every write after a run's first: already stamped.
    if summary.load(Ordering::Relaxed) == now {
        return;
    }
    let _ = summary.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |current| {
        (current.wrapping_sub(now) >= AHEAD).then_some(now)
    });
}

/// Writes `ComponentTicks::new(tick)` as one 8-byte store (a struct write compiles
/// to two 4-byte ones, which adds up on the spawn path).
///
/// # Safety
/// `dst` is valid for writing a `ComponentTicks`.
#[inline(always)]
pub(super) unsafe fn write_ticks(dst: NonNull<ComponentTicks>, tick: Tick) {
    // Both halves hold the same tick, so the word is right whatever the byte order;
    // `ComponentTicks` is two `u32`s, 8-aligned, with no padding.
    let word = u64::from(tick.get()) * 0x1_0000_0001;
    // SAFETY: `dst` is valid and aligned for 8 bytes (caller; `align(8)`).
    unsafe { dst.cast::<u64>().write(word) };
}
