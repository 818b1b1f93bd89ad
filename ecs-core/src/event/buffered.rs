//! Buffered events: [`Events<E>`], written with [`EventWriter`] and read with
//! [`EventReader`].
//!
//! The buffer is double: events sent since the last [`update`](Events::update)
//! and those sent in the update before. A reader keeps its own cursor (like a
//! `Local`), so it sees each event once however its system is ordered against
//! the writers, as long as it runs at least once every other update; older
//! events are dropped.
//!
//! **Who updates.** [`Schedule::run`](crate::system::Schedule::run) calls
//! [`World::update_events`] once at its start (turn it off with
//! [`Schedule::set_updates_events`](crate::system::Schedule::set_updates_events)
//! for schedules that run several times a frame); without a schedule, call
//! `world.update_events()` once per frame.

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use super::Event;
use crate::error::EcsError;
use crate::system::{ReadOnlySystemParam, Res, ResMut, SystemMeta, SystemParam};
use crate::world::World;

/// The buffer of events of type `E`: a resource, made by
/// [`World::add_event`] (or on the first [`World::send_event`], or by any
/// [`EventReader<E>`]/[`EventWriter<E>`] parameter).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::event::Events;
///
/// #[derive(Event, Debug, PartialEq)] struct Scored(u32);
/// let mut world = World::new();
/// world.send_event(Scored(1));
/// world.send_event(Scored(2));
/// let mut cursor = world.resource::<Events<Scored>>().get_cursor();
/// let seen: Vec<&Scored> = cursor.read(world.resource::<Events<Scored>>()).collect();
/// assert_eq!(seen, [&Scored(1), &Scored(2)]);
/// world.update_events();
/// world.update_events();
/// assert!(world.resource::<Events<Scored>>().is_empty(), "dropped after two updates");
/// ```
pub struct Events<E: Event> {
    /// Sent in the update before the current one; ids from `older_start`.
    older: Vec<E>,
    older_start: usize,
    /// Sent since the last update; ids from `newer_start`.
    newer: Vec<E>,
    newer_start: usize,
}

impl<E: Event> Default for Events<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Event> core::fmt::Debug for Events<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Events")
            .field("event", &crate::names::type_name::<E>())
            .field("len", &self.len())
            .field("sent", &self.sent())
            .finish()
    }
}

/// A copy of the buffer (what snapshots need for a registered `Events<E>`).
impl<E: Event + Clone> Clone for Events<E> {
    fn clone(&self) -> Self {
        Self {
            older: self.older.clone(),
            older_start: self.older_start,
            newer: self.newer.clone(),
            newer_start: self.newer_start,
        }
    }
}

impl<E: Event> Events<E> {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self { older: Vec::new(), older_start: 0, newer: Vec::new(), newer_start: 0 }
    }

    /// Stores an event for readers.
    #[inline]
    pub fn send(&mut self, event: E) {
        self.newer.push(event);
    }

    /// Stores every event of `events`.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        self.newer.extend(events);
    }

    /// How many events were ever sent: the id the next one gets.
    #[inline]
    pub fn sent(&self) -> usize {
        self.newer_start + self.newer.len()
    }

    /// Swaps the buffers: the events of the update before are dropped, those
    /// since the last update become the older half.
    pub fn update(&mut self) {
        core::mem::swap(&mut self.older, &mut self.newer);
        self.older_start = self.newer_start;
        self.newer_start = self.older_start + self.older.len();
        self.newer.clear();
    }

    /// The number of events stored (both halves).
    #[inline]
    pub fn len(&self) -> usize {
        self.older.len() + self.newer.len()
    }

    /// `true` when no event is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every stored event (readers will not see them).
    pub fn clear(&mut self) {
        self.older_start = self.sent();
        self.newer_start = self.older_start;
        self.older.clear();
        self.newer.clear();
    }

    /// Takes every stored event out, oldest first.
    pub fn drain(&mut self) -> impl Iterator<Item = E> + '_ {
        self.older_start = self.sent();
        self.newer_start = self.older_start;
        self.older.drain(..).chain(self.newer.drain(..))
    }

    /// Every stored event, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &E> + ExactSizeIterator + '_ {
        Slices::new(&self.older, &self.newer)
    }

    /// A cursor at the oldest stored event (reads everything stored).
    pub fn get_cursor(&self) -> EventCursor<E> {
        EventCursor { next: self.older_start, marker: PhantomData }
    }

    /// A cursor past the newest event (reads only events sent from now on).
    pub fn get_cursor_current(&self) -> EventCursor<E> {
        EventCursor { next: self.sent(), marker: PhantomData }
    }

    /// The stored events with id `from` or later.
    fn since(&self, from: usize) -> Slices<'_, E> {
        let older = &self.older[from.saturating_sub(self.older_start).min(self.older.len())..];
        let newer = &self.newer[from.saturating_sub(self.newer_start).min(self.newer.len())..];
        Slices::new(older, newer)
    }
}

/// Two slices read one after the other, without the cost of `Chain` per item
/// for the common case of one empty half.
struct Slices<'a, E> {
    first: core::slice::Iter<'a, E>,
    second: core::slice::Iter<'a, E>,
}

impl<'a, E> Slices<'a, E> {
    fn new(first: &'a [E], second: &'a [E]) -> Self {
        Self { first: first.iter(), second: second.iter() }
    }
}

impl<'a, E> Iterator for Slices<'a, E> {
    type Item = &'a E;
    #[inline]
    fn next(&mut self) -> Option<&'a E> {
        match self.first.next() {
            Some(e) => Some(e),
            None => self.second.next(),
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.first.len() + self.second.len();
        (n, Some(n))
    }
    fn fold<B, F: FnMut(B, &'a E) -> B>(self, init: B, mut f: F) -> B {
        let acc = self.first.fold(init, &mut f);
        self.second.fold(acc, f)
    }
}

impl<E> DoubleEndedIterator for Slices<'_, E> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self.second.next_back() {
            Some(e) => Some(e),
            None => self.first.next_back(),
        }
    }
}

impl<E> ExactSizeIterator for Slices<'_, E> {}

/// Where a reader is in an [`Events<E>`]: the id of the next event it reads.
pub struct EventCursor<E: Event> {
    next: usize,
    marker: PhantomData<fn() -> E>,
}

impl<E: Event> Default for EventCursor<E> {
    fn default() -> Self {
        Self { next: 0, marker: PhantomData }
    }
}

impl<E: Event> Clone for EventCursor<E> {
    fn clone(&self) -> Self {
        Self { next: self.next, marker: PhantomData }
    }
}

impl<E: Event> core::fmt::Debug for EventCursor<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EventCursor").field("next", &self.next).finish()
    }
}

impl<E: Event> EventCursor<E> {
    /// The events this cursor has not read, oldest first; reading moves the
    /// cursor past all of them.
    pub fn read<'a>(&mut self, events: &'a Events<E>) -> impl DoubleEndedIterator<Item = &'a E> + ExactSizeIterator {
        let unread = events.since(self.next);
        self.next = events.sent();
        unread
    }

    /// How many stored events this cursor has not read.
    pub fn len(&self, events: &Events<E>) -> usize {
        events.since(self.next).len()
    }

    /// `true` when the cursor has read every stored event.
    pub fn is_empty(&self, events: &Events<E>) -> bool {
        self.len(events) == 0
    }

    /// Marks every stored event read.
    pub fn clear(&mut self, events: &Events<E>) {
        self.next = events.sent();
    }
}

/// Reads the events of type `E` its system has not read yet: a system
/// parameter. Each reader has its own cursor, so readers never take events from
/// each other, and two readers (read-only) run in parallel.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Event)] struct Damage(u32);
/// #[derive(Default)] struct Total(u32);
/// fn attack(mut hits: EventWriter<Damage>) { hits.send(Damage(3)); }
/// fn tally(mut hits: EventReader<Damage>, mut total: ResMut<Total>) {
///     for hit in hits.read() { total.0 += hit.0; }
/// }
/// let mut world = World::new();
/// world.insert_resource(Total::default());
/// let mut schedule = Schedule::new();
/// schedule.add_system(tally).add_system(attack.after(tally)); // reads last frame's hits
/// for _ in 0..3 { schedule.run(&mut world); }
/// assert_eq!(world.resource::<Total>().0, 6, "each hit once, a frame late");
/// ```
pub struct EventReader<'w, E: Event> {
    cursor: &'w mut EventCursor<E>,
    events: Res<'w, Events<E>>,
}

impl<E: Event> EventReader<'_, E> {
    /// The events not read yet, oldest first; reading marks them read.
    pub fn read(&mut self) -> impl DoubleEndedIterator<Item = &E> + ExactSizeIterator {
        self.cursor.read(&self.events)
    }

    /// How many events are not read yet.
    pub fn len(&self) -> usize {
        self.cursor.len(&self.events)
    }

    /// `true` when every event is read.
    pub fn is_empty(&self) -> bool {
        self.cursor.is_empty(&self.events)
    }

    /// Marks every event read without reading it.
    pub fn clear(&mut self) {
        self.cursor.clear(&self.events);
    }
}

impl<E: Event> core::fmt::Debug for EventReader<'_, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EventReader").field("unread", &self.len()).finish()
    }
}

// SAFETY: records a read of the resource `Events<E>` (through `Res`); the cursor
// is the parameter's own state.
unsafe impl<E: Event> SystemParam for EventReader<'_, E> {
    const DEFERRED: bool = false;
    /// The cursor, and the state of the `Res` it reads through.
    type State = (EventCursor<E>, ());
    type Item<'w> = EventReader<'w, E>;

    fn access(meta: &mut SystemMeta) {
        <Res<'static, Events<E>> as SystemParam>::access(meta);
    }
    fn init_state(world: &mut World) -> Self::State {
        world.add_event::<E>();
        (EventCursor::default(), ())
    }
    unsafe fn get_param<'w>(state: &'w mut Self::State, meta: &SystemMeta, world: &'w World) -> EventReader<'w, E> {
        let (cursor, res) = state;
        // SAFETY: forwarded: `access` recorded what `Res` records.
        let events = unsafe { <Res<'w, Events<E>> as SystemParam>::get_param(res, meta, world) };
        EventReader { cursor, events }
    }
    fn validate(_: &Self::State, world: &World) -> Result<(), EcsError> {
        <Res<'static, Events<E>> as SystemParam>::validate(&(), world)
    }
}

// SAFETY: reads the resource and writes only its own cursor.
unsafe impl<E: Event> ReadOnlySystemParam for EventReader<'_, E> {}

/// Sends events of type `E`: a system parameter. Writers of one event type
/// write one buffer, so they do not run in parallel with each other or with
/// readers of it.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::event::Events;
/// #[derive(Event)] struct Spawned(u32);
/// fn spawner(mut out: EventWriter<Spawned>) { out.send_batch((0..3).map(Spawned)); }
/// let mut world = World::new();
/// world.run_system_once(spawner)?;
/// assert_eq!(world.resource::<Events<Spawned>>().len(), 3);
/// # Ok::<(), EcsError>(())
/// ```
pub struct EventWriter<'w, E: Event> {
    events: ResMut<'w, Events<E>>,
}

impl<E: Event> EventWriter<'_, E> {
    /// Sends an event.
    #[inline]
    pub fn send(&mut self, event: E) {
        self.events.send(event);
    }

    /// Sends an event (bevy_ecs's newer name for [`send`](Self::send)).
    #[inline]
    pub fn write(&mut self, event: E) {
        self.events.send(event);
    }

    /// Sends every event of `events`.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        self.events.send_batch(events);
    }
}

impl<E: Event> Deref for EventWriter<'_, E> {
    type Target = Events<E>;
    fn deref(&self) -> &Events<E> {
        &self.events
    }
}

impl<E: Event> DerefMut for EventWriter<'_, E> {
    fn deref_mut(&mut self) -> &mut Events<E> {
        &mut self.events
    }
}

// SAFETY: records a write of the resource `Events<E>` (through `ResMut`).
unsafe impl<E: Event> SystemParam for EventWriter<'_, E> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = EventWriter<'w, E>;

    fn access(meta: &mut SystemMeta) {
        <ResMut<'static, Events<E>> as SystemParam>::access(meta);
    }
    fn init_state(world: &mut World) {
        world.add_event::<E>();
    }
    unsafe fn get_param<'w>(state: &'w mut (), meta: &SystemMeta, world: &'w World) -> EventWriter<'w, E> {
        // SAFETY: forwarded: `access` recorded what `ResMut` records.
        EventWriter { events: unsafe { <ResMut<'w, Events<E>> as SystemParam>::get_param(state, meta, world) } }
    }
    fn validate(_: &(), world: &World) -> Result<(), EcsError> {
        <ResMut<'static, Events<E>> as SystemParam>::validate(&(), world)
    }
}

impl World {
    /// Registers the event type `E`: stores an empty [`Events<E>`] (unless one is
    /// there) and has [`update_events`](Self::update_events) update it.
    pub fn add_event<E: Event>(&mut self) -> &mut Self {
        if !self.contains_resource::<Events<E>>() {
            self.insert_resource(Events::<E>::default());
        }
        let key = core::any::TypeId::of::<E>();
        if !self.event_updates.iter().any(|(k, _)| *k == key) {
            self.event_updates.push((key, update_one::<E>));
        }
        self
    }

    /// Sends a buffered event for [`EventReader<E>`]s, registering `E` on first
    /// use.
    pub fn send_event<E: Event>(&mut self, event: E) {
        if !self.contains_resource::<Events<E>>() {
            self.add_event::<E>();
        }
        self.resource_mut::<Events<E>>().send(event);
    }

    /// Sends every event of `events` (see [`send_event`](Self::send_event)).
    pub fn send_event_batch<E: Event>(&mut self, events: impl IntoIterator<Item = E>) {
        if !self.contains_resource::<Events<E>>() {
            self.add_event::<E>();
        }
        self.resource_mut::<Events<E>>().send_batch(events);
    }

    /// Updates every registered event buffer (see [`Events::update`]) and the
    /// logs of [`RemovedComponents`](super::RemovedComponents). A
    /// [`Schedule`](crate::system::Schedule) calls it at the start of each run.
    pub fn update_events(&mut self) {
        for i in 0..self.event_updates.len() {
            (self.event_updates[i].1)(self);
        }
        self.removed.update();
    }
}

fn update_one<E: Event>(world: &mut World) {
    if let Some(events) = world.get_resource_mut::<Events<E>>() {
        events.update();
    }
}
