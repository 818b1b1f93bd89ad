//! Keeping change ticks meaningful on a world that runs for a long time.
//!
//! Ticks are `u32` and wrap around; a comparison measures ages relative to the
//! current run, which is exact while every age is below 2^32. A value changed once
//! and then left alone for billions of ticks would break that and suddenly read as
//! changed again. So every [`CHECK_TICK_THRESHOLD`] ticks the world clamps stored
//! ticks to [`MAX_CHANGE_AGE`], and queries clamp their "last run" the same way
//! when they start (`FetchContext::new`).

use super::World;
use crate::storage::CHECK_TICK_THRESHOLD;

impl World {
    /// Clamps every stored change tick to at most
    /// [`MAX_CHANGE_AGE`](crate::storage::MAX_CHANGE_AGE) ticks before now, so that
    /// `Added` and `Changed` stay exact however long the world runs.
    ///
    /// The world does this by itself, once per
    /// [`CHECK_TICK_THRESHOLD`] ticks, at the
    /// start of a [`Schedule`](crate::system::Schedule) run and of every query run
    /// on `&mut World` (`query_mut`, and the `QueryState` methods taking
    /// `&mut World`). A program that only ever runs queries through `&World` should
    /// call it at least that often. It walks every row, so it is not free, but
    /// nothing requires calling it more often.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Hp(u32);
    /// let mut world = World::new();
    /// world.spawn(Hp(3));
    /// world.check_change_ticks();
    /// ```
    pub fn check_change_ticks(&mut self) {
        let now = self.change_tick();
        for archetype in self.archetypes.iter_mut() {
            for column in archetype.columns.iter_mut() {
                column.clamp_ticks(now);
            }
        }
        self.resources.clamp_ticks(now);
        self.last_tick_check = now;
    }

    /// [`check_change_ticks`](Self::check_change_ticks) when
    /// [`CHECK_TICK_THRESHOLD`] ticks have passed since the last pass: one
    /// comparison otherwise.
    #[inline]
    pub(crate) fn check_change_ticks_if_due(&mut self) {
        if self.change_tick().get().wrapping_sub(self.last_tick_check.get()) >= CHECK_TICK_THRESHOLD {
            self.check_change_ticks_now();
        }
    }

    #[cold]
    #[inline(never)]
    fn check_change_ticks_now(&mut self) {
        self.check_change_ticks();
    }
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::Ordering;

    use super::*;
    use crate::prelude::*;
    use crate::storage::MAX_CHANGE_AGE;
    use crate::system::Schedule;

    #[derive(Component, Debug, PartialEq)]
    struct Hp(u32);
    #[derive(Component, Debug, PartialEq)]
    #[component(storage = "sparse")]
    struct Burning(u8);

    /// Moves the world's tick forward to `target` (counted without wrapping), in
    /// steps short enough that the world's own checks keep up, each step ending in
    /// a query run on `&mut World` as a game loop would.
    fn advance_to(world: &mut World, target: u64) {
        let mut now = u64::from(world.change_tick().get());
        while now < target {
            now = (now + u64::from(CHECK_TICK_THRESHOLD) / 2).min(target);
            world.change_tick.store(now as u32, Ordering::Relaxed);
            world.query_mut::<Entity>().count();
        }
        world.change_tick.store(target as u32, Ordering::Relaxed);
    }

    /// Spawns, writes once, lets a `Changed` query see the write, then moves the
    /// tick forward by 2^32 + `offset` and counts what the query reports.
    fn changed_after_wrap(offset: u64) -> usize {
        let mut world = World::new();
        let e = world.spawn(Hp(1));
        let mut changed = world.query_state_filtered::<Entity, Changed<Hp>>();
        assert_eq!(changed.iter(&world).count(), 1, "spawned counts as changed");
        let written = u64::from(world.change_tick().get());
        world.get_mut::<Hp>(e).unwrap().0 = 2;
        assert_eq!(changed.iter(&world).count(), 1);
        assert_eq!(changed.iter(&world).count(), 0);
        advance_to(&mut world, written + (1 << 32) + offset);
        changed.iter(&world).count()
    }

    #[test]
    fn an_old_change_does_not_read_as_new_after_the_tick_wraps() {
        // Unclamped, the run at exactly 2^32 ticks after the write compares ages
        // across the wrap and reports the row again.
        for offset in 0..4 {
            assert_eq!(changed_after_wrap(offset), 0, "2^32 + {offset} ticks after the write");
        }
    }

    #[test]
    fn a_change_after_the_wrap_is_still_seen() {
        let mut world = World::new();
        let e = world.spawn(Hp(1));
        let mut changed = world.query_state_filtered::<Entity, Changed<Hp>>();
        changed.iter(&world).count();
        advance_to(&mut world, 5 << 30);
        assert_eq!(changed.iter(&world).count(), 0);
        world.get_mut::<Hp>(e).unwrap().0 = 3;
        assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e]);
        assert_eq!(changed.iter(&world).count(), 0);
    }

    #[test]
    fn a_system_that_waited_long_still_sees_only_new_changes() {
        #[derive(Default)]
        struct Seen(usize);
        fn count(q: Query<Entity, Added<Hp>>, mut seen: ResMut<Seen>) {
            seen.0 += q.iter().count();
        }
        let mut world = World::new();
        world.insert_resource(Seen::default());
        world.spawn(Hp(1));
        let mut schedule = Schedule::new();
        schedule.add_systems(count);
        schedule.run(&mut world);
        assert_eq!(world.get_resource::<Seen>().unwrap().0, 1);
        for offset in 0..3 {
            let target = u64::from(world.change_tick().get()) + (1 << 32) - 2 + offset;
            advance_to(&mut world, target);
            schedule.run(&mut world);
            assert_eq!(world.get_resource::<Seen>().unwrap().0, 1, "no new entity, {offset}");
        }
        world.spawn(Hp(2));
        schedule.run(&mut world);
        assert_eq!(world.get_resource::<Seen>().unwrap().0, 2, "a new entity is seen");
    }

    #[test]
    fn clamping_keeps_absent_sparse_rows_absent_and_present_ones_present() {
        let mut world = World::new();
        let on = world.spawn((Hp(1), Burning(1)));
        let off = world.spawn((Hp(2), Burning(2)));
        world.remove::<Burning>(off).unwrap();
        advance_to(&mut world, 3 * u64::from(MAX_CHANGE_AGE));
        world.check_change_ticks();
        assert!(world.has::<Burning>(on) && !world.has::<Burning>(off));
        let burning: Vec<_> = world.query::<(Entity, &Burning)>().iter().map(|(e, _)| e).collect();
        assert_eq!(burning, [on]);
        world.archetypes().iter().try_for_each(|a| a.check_invariants()).unwrap();
    }
}
