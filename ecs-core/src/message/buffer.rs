//! Buffered messages: [`Messages<M>`], written with [`MessageWriter`] and read with
//! [`MessageReader`].
//!
//! The buffer is double: messages written since the last [`update`](Messages::update)
//! and those written in the update before. A reader keeps its own cursor (like a
//! `Local`), so it sees each message once however its system is ordered against
//! the writers, as long as it runs at least once every other update; older
//! messages are dropped.
//!
//! **Who updates.** [`Schedule::run`](crate::system::Schedule::run) calls
//! [`World::update_messages`] once at its start (turn it off with
//! [`Schedule::set_updates_messages`](crate::system::Schedule::set_updates_messages)
//! for schedules that run several times a frame); without a schedule, call
//! `world.update_messages()` once per frame.

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use super::Message;
use crate::error::EcsError;
use crate::system::{Local, LocalState, ReadOnlySystemParam, Res, ResMut, SystemMeta, SystemParam};
use crate::world::{DeferredWorld, World};

/// The buffer of messages of type `M`: a resource, made by
/// [`World::add_message`] (or on the first [`World::write_message`], or by any
/// [`MessageReader<M>`]/[`MessageWriter<M>`] parameter).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::message::Messages;
///
/// #[derive(Message, Debug, PartialEq)] struct Scored(u32);
/// let mut world = World::new();
/// world.write_message(Scored(1));
/// world.write_message(Scored(2));
/// let mut cursor = world.resource::<Messages<Scored>>().get_cursor();
/// let seen: Vec<&Scored> = cursor.read(world.resource::<Messages<Scored>>()).collect();
/// assert_eq!(seen, [&Scored(1), &Scored(2)]);
/// world.update_messages();
/// world.update_messages();
/// assert!(world.resource::<Messages<Scored>>().is_empty(), "dropped after two updates");
/// ```
pub struct Messages<M: Message> {
    /// Sent in the update before the current one; ids from `older_start`.
    older: Vec<M>,
    older_start: usize,
    /// Sent since the last update; ids from `newer_start`.
    newer: Vec<M>,
    newer_start: usize,
}

impl<M: Message> Default for Messages<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Message> core::fmt::Debug for Messages<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Messages")
            .field("message", &crate::names::type_name::<M>())
            .field("len", &self.len())
            .field("written", &self.written())
            .finish()
    }
}

/// The entities of every message in flight (what a load into a world with
/// entities rewrites for messages registered with theirs).
impl<M: Message + crate::entity::MapEntities> crate::entity::MapEntities for Messages<M> {
    fn map_entities(&mut self, map: &mut dyn FnMut(crate::entity::Entity) -> crate::entity::Entity) {
        for message in self.older.iter_mut().chain(&mut self.newer) {
            message.map_entities(map);
        }
    }

    fn visit_entities(&self, f: &mut dyn FnMut(crate::entity::Entity)) {
        for message in self.older.iter().chain(&self.newer) {
            message.visit_entities(f);
        }
    }
}

/// A copy of the buffer (what snapshots need for a registered `Messages<M>`).
impl<M: Message + Clone> Clone for Messages<M> {
    fn clone(&self) -> Self {
        Self {
            older: self.older.clone(),
            older_start: self.older_start,
            newer: self.newer.clone(),
            newer_start: self.newer_start,
        }
    }
}

impl<M: Message> Messages<M> {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self { older: Vec::new(), older_start: 0, newer: Vec::new(), newer_start: 0 }
    }

    /// Stores a message for readers.
    #[inline]
    pub fn write(&mut self, message: M) {
        self.newer.push(message);
    }

    /// Stores every message of `messages`.
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) {
        self.newer.extend(messages);
    }

    /// How many messages were ever written: the id the next one gets.
    #[inline]
    pub fn written(&self) -> usize {
        self.newer_start + self.newer.len()
    }

    /// Swaps the buffers: the messages of the update before are dropped, those
    /// since the last update become the older half.
    pub fn update(&mut self) {
        core::mem::swap(&mut self.older, &mut self.newer);
        self.older_start = self.newer_start;
        self.newer_start = self.older_start + self.older.len();
        self.newer.clear();
    }

    /// The number of messages stored (both halves).
    #[inline]
    pub fn len(&self) -> usize {
        self.older.len() + self.newer.len()
    }

    /// `true` when no message is stored.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every stored message (readers will not see them).
    pub fn clear(&mut self) {
        self.older_start = self.written();
        self.newer_start = self.older_start;
        self.older.clear();
        self.newer.clear();
    }

    /// Takes every stored message out, oldest first.
    pub fn drain(&mut self) -> impl Iterator<Item = M> + '_ {
        self.older_start = self.written();
        self.newer_start = self.older_start;
        self.older.drain(..).chain(self.newer.drain(..))
    }

    /// Every stored message, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &M> + ExactSizeIterator + '_ {
        Slices::new(&self.older, &self.newer)
    }

    /// A cursor at the oldest stored message (reads everything stored).
    pub fn get_cursor(&self) -> MessageCursor<M> {
        MessageCursor { next: self.older_start, marker: PhantomData }
    }

    /// A cursor past the newest message (reads only messages written from now on).
    pub fn get_cursor_current(&self) -> MessageCursor<M> {
        MessageCursor { next: self.written(), marker: PhantomData }
    }

    /// The stored messages with id `from` or later.
    fn since(&self, from: usize) -> Slices<'_, M> {
        let older = &self.older[from.saturating_sub(self.older_start).min(self.older.len())..];
        let newer = &self.newer[from.saturating_sub(self.newer_start).min(self.newer.len())..];
        Slices::new(older, newer)
    }
}

/// Two slices read one after the other, without the cost of `Chain` per item
/// for the common case of one empty half.
struct Slices<'a, M> {
    first: core::slice::Iter<'a, M>,
    second: core::slice::Iter<'a, M>,
}

impl<'a, M> Slices<'a, M> {
    fn new(first: &'a [M], second: &'a [M]) -> Self {
        Self { first: first.iter(), second: second.iter() }
    }
}

impl<'a, M> Iterator for Slices<'a, M> {
    type Item = &'a M;
    #[inline]
    fn next(&mut self) -> Option<&'a M> {
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
    fn fold<B, F: FnMut(B, &'a M) -> B>(self, init: B, mut f: F) -> B {
        let acc = self.first.fold(init, &mut f);
        self.second.fold(acc, f)
    }
}

impl<M> DoubleEndedIterator for Slices<'_, M> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self.second.next_back() {
            Some(e) => Some(e),
            None => self.first.next_back(),
        }
    }
}

impl<M> ExactSizeIterator for Slices<'_, M> {}

/// Where a reader is in an [`Messages<M>`]: the id of the next message it reads.
pub struct MessageCursor<M: Message> {
    next: usize,
    marker: PhantomData<fn() -> M>,
}

impl<M: Message> Default for MessageCursor<M> {
    fn default() -> Self {
        Self { next: 0, marker: PhantomData }
    }
}

impl<M: Message> Clone for MessageCursor<M> {
    fn clone(&self) -> Self {
        Self { next: self.next, marker: PhantomData }
    }
}

impl<M: Message> core::fmt::Debug for MessageCursor<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MessageCursor").field("next", &self.next).finish()
    }
}

impl<M: Message> MessageCursor<M> {
    /// The messages this cursor has not read, oldest first; reading moves the
    /// cursor past all of them.
    pub fn read<'a>(
        &mut self,
        messages: &'a Messages<M>,
    ) -> impl DoubleEndedIterator<Item = &'a M> + ExactSizeIterator {
        let unread = messages.since(self.next);
        self.next = messages.written();
        unread
    }

    /// How many stored messages this cursor has not read.
    pub fn len(&self, messages: &Messages<M>) -> usize {
        messages.since(self.next).len()
    }

    /// `true` when the cursor has read every stored message.
    pub fn is_empty(&self, messages: &Messages<M>) -> bool {
        self.len(messages) == 0
    }

    /// Marks every stored message read.
    pub fn clear(&mut self, messages: &Messages<M>) {
        self.next = messages.written();
    }
}

/// Reads the messages of type `M` its system has not read yet: a system
/// parameter. Each reader has its own cursor, so readers never take messages from
/// each other, and two readers (read-only) run in parallel.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Message)] struct Damage(u32);
/// #[derive(Default)] struct Total(u32);
/// fn attack(mut hits: MessageWriter<Damage>) { hits.write(Damage(3)); }
/// fn tally(mut hits: MessageReader<Damage>, mut total: ResMut<Total>) {
///     for hit in hits.read() { total.0 += hit.0; }
/// }
/// let mut world = World::new();
/// world.insert_resource(Total::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(tally).add_systems(attack.after(tally)); // reads last frame's hits
/// for _ in 0..3 { schedule.run(&mut world); }
/// assert_eq!(world.resource::<Total>().0, 6, "each hit once, a frame late");
/// ```
pub struct MessageReader<'w, M: Message> {
    cursor: Local<'w, MessageCursor<M>>,
    messages: Res<'w, Messages<M>>,
}

impl<M: Message> MessageReader<'_, M> {
    /// The messages not read yet, oldest first; reading marks them read.
    pub fn read(&mut self) -> impl DoubleEndedIterator<Item = &M> + ExactSizeIterator {
        self.cursor.read(&self.messages)
    }

    /// How many messages are not read yet.
    pub fn len(&self) -> usize {
        self.cursor.len(&self.messages)
    }

    /// `true` when every message is read.
    pub fn is_empty(&self) -> bool {
        self.cursor.is_empty(&self.messages)
    }

    /// Marks every message read without reading it.
    pub fn clear(&mut self) {
        self.cursor.clear(&self.messages);
    }
}

impl<M: Message> core::fmt::Debug for MessageReader<'_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MessageReader").field("unread", &self.len()).finish()
    }
}

// SAFETY: records a read of the resource `Messages<M>` (through `Res`); the cursor
// is the parameter's own state.
unsafe impl<M: Message> SystemParam for MessageReader<'_, M> {
    const DEFERRED: bool = false;
    /// The cursor (kept by the world like a `Local`'s value, so that saves
    /// hold it), and the state of the `Res` it reads through.
    type State = (LocalState<MessageCursor<M>>, ());
    type Item<'w> = MessageReader<'w, M>;

    fn access(meta: &mut SystemMeta) {
        <Res<'static, Messages<M>> as SystemParam>::access(meta);
    }
    fn init_state(world: &mut World) -> Self::State {
        world.add_message::<M>();
        (LocalState::internal(world), ())
    }
    unsafe fn get_param<'w>(state: &'w mut Self::State, meta: &SystemMeta, world: &'w World) -> MessageReader<'w, M> {
        let (cursor, res) = state;
        // SAFETY: forwarded: `access` recorded what `Res` records; a `Local`
        // records nothing.
        let messages = unsafe { <Res<'w, Messages<M>> as SystemParam>::get_param(res, meta, world) };
        // SAFETY: as above.
        let cursor = unsafe { <Local<'w, MessageCursor<M>> as SystemParam>::get_param(cursor, meta, world) };
        MessageReader { cursor, messages }
    }
    fn validate(_: &Self::State, world: &World) -> Result<(), EcsError> {
        <Res<'static, Messages<M>> as SystemParam>::validate(&(), world)
    }
}

// SAFETY: reads the resource and writes only its own cursor.
unsafe impl<M: Message> ReadOnlySystemParam for MessageReader<'_, M> {}

/// Writes messages of type `M`: a system parameter. Writers of one message type
/// write one buffer, so they do not run in parallel with each other or with
/// readers of it.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::message::Messages;
/// #[derive(Message)] struct Spawned(u32);
/// fn spawner(mut out: MessageWriter<Spawned>) { out.write_batch((0..3).map(Spawned)); }
/// let mut world = World::new();
/// world.run_system_once(spawner)?;
/// assert_eq!(world.resource::<Messages<Spawned>>().len(), 3);
/// # Ok::<(), EcsError>(())
/// ```
pub struct MessageWriter<'w, M: Message> {
    messages: ResMut<'w, Messages<M>>,
}

impl<M: Message> MessageWriter<'_, M> {
    /// Writes a message.
    #[inline]
    pub fn write(&mut self, message: M) {
        self.messages.write(message);
    }

    /// Writes every message of `messages`.
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) {
        self.messages.write_batch(messages);
    }
}

impl<M: Message> Deref for MessageWriter<'_, M> {
    type Target = Messages<M>;
    fn deref(&self) -> &Messages<M> {
        &self.messages
    }
}

impl<M: Message> DerefMut for MessageWriter<'_, M> {
    fn deref_mut(&mut self) -> &mut Messages<M> {
        &mut self.messages
    }
}

// SAFETY: records a write of the resource `Messages<M>` (through `ResMut`).
unsafe impl<M: Message> SystemParam for MessageWriter<'_, M> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = MessageWriter<'w, M>;

    fn access(meta: &mut SystemMeta) {
        <ResMut<'static, Messages<M>> as SystemParam>::access(meta);
    }
    fn init_state(world: &mut World) {
        world.add_message::<M>();
    }
    unsafe fn get_param<'w>(state: &'w mut (), meta: &SystemMeta, world: &'w World) -> MessageWriter<'w, M> {
        // SAFETY: forwarded: `access` recorded what `ResMut` records.
        MessageWriter { messages: unsafe { <ResMut<'w, Messages<M>> as SystemParam>::get_param(state, meta, world) } }
    }
    fn validate(_: &(), world: &World) -> Result<(), EcsError> {
        <ResMut<'static, Messages<M>> as SystemParam>::validate(&(), world)
    }
}

impl DeferredWorld<'_> {
    /// Writes a message (see [`World::write_message`]): hooks and observers
    /// may, as it changes no entity.
    pub fn write_message<M: Message>(&mut self, message: M) {
        self.world_mut_internal().write_message(message);
    }
}

impl World {
    /// Registers the message type `M`: stores an empty [`Messages<M>`] (unless one is
    /// there) and has [`update_messages`](Self::update_messages) update it.
    pub fn add_message<M: Message>(&mut self) -> &mut Self {
        if !self.contains_resource::<Messages<M>>() {
            self.insert_resource(Messages::<M>::default());
        }
        let buffer = core::any::TypeId::of::<Messages<M>>();
        if !self.message_updates.iter().any(|m| m.buffer == buffer) {
            self.message_updates.push(crate::world::MessageType {
                buffer,
                name: crate::names::type_name::<M>(),
                update: update_one::<M>,
                in_flight: |world| world.get_resource::<Messages<M>>().map_or(0, Messages::len),
            });
        }
        self
    }

    /// Writes a buffered message for [`MessageReader<M>`]s, registering `M` on first
    /// use.
    pub fn write_message<M: Message>(&mut self, message: M) {
        if !self.contains_resource::<Messages<M>>() {
            self.add_message::<M>();
        }
        self.resource_mut::<Messages<M>>().write(message);
    }

    /// Writes every message of `messages` (see [`write_message`](Self::write_message)).
    pub fn write_message_batch<M: Message>(&mut self, messages: impl IntoIterator<Item = M>) {
        if !self.contains_resource::<Messages<M>>() {
            self.add_message::<M>();
        }
        self.resource_mut::<Messages<M>>().write_batch(messages);
    }

    /// Updates every registered message buffer (see [`Messages::update`]) and the
    /// logs of [`RemovedComponents`](crate::event::RemovedComponents). A
    /// [`Schedule`](crate::system::Schedule) calls it at the start of each run.
    pub fn update_messages(&mut self) {
        for i in 0..self.message_updates.len() {
            (self.message_updates[i].update)(self);
        }
        self.removed.update();
    }
}

fn update_one<M: Message>(world: &mut World) {
    if let Some(messages) = world.get_resource_mut::<Messages<M>>() {
        messages.update();
    }
}

/// Saved as `(id of the oldest, older half, newer half)`: the id of the newer
/// half's first message follows from them, so no saved buffer is inconsistent.
#[cfg(feature = "serde")]
impl<M: Message + serde::Serialize> serde::Serialize for Messages<M> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.older_start as u64, &self.older, &self.newer).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, M: Message + serde::Deserialize<'de>> serde::Deserialize<'de> for Messages<M> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (older_start, older, newer): (u64, Vec<M>, Vec<M>) = serde::Deserialize::deserialize(deserializer)?;
        let older_start = usize::try_from(older_start)
            .ok()
            .filter(|start| start.checked_add(older.len()).and_then(|n| n.checked_add(newer.len())).is_some())
            .ok_or_else(|| serde::de::Error::custom("a message id beyond this machine's `usize`"))?;
        let newer_start = older_start + older.len();
        Ok(Self { older, older_start, newer, newer_start })
    }
}

/// Saved as the id of the next message it reads.
#[cfg(feature = "serde")]
impl<M: Message> serde::Serialize for MessageCursor<M> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.next as u64).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, M: Message> serde::Deserialize<'de> for MessageCursor<M> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let next = u64::deserialize(deserializer)?;
        let next = usize::try_from(next)
            .map_err(|_| serde::de::Error::custom("a message id beyond this machine's `usize`"))?;
        Ok(Self { next, marker: PhantomData })
    }
}
