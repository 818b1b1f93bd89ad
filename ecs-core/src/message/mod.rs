//! Messages: buffered values written by some systems and read later by others.
//!
//! A [`Message`] is written to the resource [`Messages<M>`]
//! ([`World::write_message`], [`MessageWriter`], `Commands::write_message`) and
//! read by systems with a [`MessageReader`] — buffered, so many messages are
//! handled in one tight loop, each reader seeing each message once. Values that
//! should run code at once when they happen are [events](crate::event) instead,
//! triggered for observers; one type may be both.
//!
//! [`World::write_message`]: crate::World::write_message

mod buffer;

pub use buffer::{MessageCursor, MessageReader, MessageWriter, Messages};

/// A run condition: `true` when messages of type `M` were written that this
/// condition has not seen yet (its own reader's place moves past them), as
/// bevy_ecs's `on_message`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Message)] struct Scored(u32);
/// #[derive(Default)] struct Score(u32);
/// fn add_up(mut scored: MessageReader<Scored>, mut score: ResMut<Score>) {
///     score.0 += scored.read().map(|s| s.0).sum::<u32>();
/// }
/// let mut world = World::new();
/// world.init_resource::<Score>();
/// world.add_message::<Scored>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(add_up.run_if(on_message::<Scored>));
/// world.write_message(Scored(3));
/// schedule.run(&mut world);
/// schedule.run(&mut world); // nothing new: `add_up` does not run
/// assert_eq!(world.resource::<Score>().0, 3);
/// ```
pub fn on_message<M: Message>(mut reader: MessageReader<M>) -> bool {
    // Reading moves the reader past them: the next run sees only newer ones.
    reader.read().len() > 0
}

/// A value that can be written to [`Messages<M>`] and read by
/// [`MessageReader`]s. Derive it: `#[derive(Message)]`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Message)]
/// struct Scored(u32);
/// #[derive(Default)] struct Total(u32);
///
/// fn tally(mut scores: MessageReader<Scored>, mut total: ResMut<Total>) {
///     total.0 += scores.read().map(|s| s.0).sum::<u32>();
/// }
/// let mut world = World::new();
/// world.insert_resource(Total::default());
/// world.write_message(Scored(3));
/// world.write_message(Scored(4));
/// let mut schedule = Schedule::new();
/// schedule.add_systems(tally);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Total>().0, 7);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a message",
    label = "`{Self}` does not implement `Message`",
    note = "add `#[derive(Message)]` to the definition of `{Self}` (observers take `#[derive(Event)]` types; \
            a type may derive both)"
)]
pub trait Message: Send + Sync + 'static {}
