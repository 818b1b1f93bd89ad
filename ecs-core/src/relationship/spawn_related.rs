//! [`children!`](crate::children) and [`related!`](crate::related): sources
//! of a relationship spawned with their target, written inside the target's
//! bundle, as in bevy.

use core::marker::PhantomData;

use super::Relationship;
use crate::bundle::Bundle;
use crate::command::Commands;
use crate::component::{ComponentHooks, HookContext};
use crate::entity::Entity;
use crate::world::DeferredWorld;

type Spawn = Box<dyn FnOnce(&mut Commands<'_>, Entity) + Send + Sync>;

/// Bundles to spawn as sources of `R` pointing at the entity this is inserted
/// on, in order: what [`children!`](crate::children) and
/// [`related!`](crate::related) make. A component that spawns its list when
/// inserted (each bundle with `R` pointing at the entity, in the order given)
/// and then removes itself: the sources exist once the structural change that
/// added it is complete (`World::spawn` returns; a command has been applied).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// #[derive(Component, Debug, PartialEq)] struct Name(&'static str);
///
/// let mut world = World::new();
/// let turret = world.spawn((Name("turret"), children![Name("left barrel"), Name("right barrel")]));
/// let barrels: Vec<&Name> =
///     world.get::<Children>(turret).unwrap().iter().map(|&c| world.get::<Name>(c).unwrap()).collect();
/// assert_eq!(barrels, [&Name("left barrel"), &Name("right barrel")]);
/// assert!(!world.has::<SpawnRelated<ChildOf>>(turret), "gone once spawned");
/// ```
pub struct SpawnRelated<R: Relationship> {
    spawns: Vec<Spawn>,
    marker: PhantomData<fn() -> R>,
}

impl<R: Relationship> SpawnRelated<R> {
    /// No bundle yet.
    pub fn new() -> Self {
        Self { spawns: Vec::new(), marker: PhantomData }
    }

    /// Adds `bundle` to spawn, after the ones added before.
    pub fn with<B: Bundle>(mut self, bundle: B) -> Self {
        self.spawns.push(Box::new(move |commands: &mut Commands<'_>, target: Entity| {
            commands.spawn((bundle, R::from(target)));
        }));
        self
    }

    /// The number of bundles to spawn.
    pub fn len(&self) -> usize {
        self.spawns.len()
    }

    /// `true` when there is nothing to spawn.
    pub fn is_empty(&self) -> bool {
        self.spawns.is_empty()
    }

    fn spawn_all(mut world: DeferredWorld, ctx: HookContext) {
        let Some(mut list) = world.get_mut::<SpawnRelated<R>>(ctx.entity) else { return };
        let spawns = core::mem::take(&mut list.spawns);
        let mut commands = world.commands();
        for spawn in spawns {
            spawn(&mut commands, ctx.entity);
        }
        commands.entity(ctx.entity).remove::<SpawnRelated<R>>();
    }
}

impl<R: Relationship> Default for SpawnRelated<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Relationship> core::fmt::Debug for SpawnRelated<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SpawnRelated")
            .field("relationship", &crate::names::type_name::<R>())
            .field("len", &self.spawns.len())
            .finish()
    }
}

#[diagnostic::do_not_recommend]
impl<R: Relationship> crate::Component for SpawnRelated<R> {
    // Per row: adding it to a target and removing it again moves nothing.
    const STORAGE: crate::StorageType = crate::StorageType::Sparse;
    // `on_insert`, not `on_add`: a second list inserted before the first is
    // removed replaces it, and must be spawned too.
    const HOOKS: ComponentHooks = ComponentHooks { on_insert: Some(Self::spawn_all), ..ComponentHooks::NONE };
}

crate::component_bundle!(impl[R: Relationship] SpawnRelated<R>);

// SAFETY: `SpawnRelated` is neither a relationship nor a relationship target.
#[diagnostic::do_not_recommend]
unsafe impl<R: Relationship> crate::component::MutableComponent for SpawnRelated<R> {}

/// Spawns children with their parent, inside the parent's bundle:
/// `world.spawn((Turret, children![Barrel(1), (Barrel(2), Heavy)]))`. Each
/// element is a bundle; the children get `ChildOf(parent)` and are listed in
/// the parent's `Children` in the order written. Works with
/// `Commands::spawn` and `insert` too. See [`SpawnRelated`].
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// #[derive(Component)] struct Turret;
/// #[derive(Component)] struct Barrel(u32);
/// let mut world = World::new();
/// let turret = world.spawn((Turret, children![Barrel(1), Barrel(2)]));
/// assert_eq!(world.get::<Children>(turret).map(|c| c.len()), Some(2));
/// ```
#[macro_export]
macro_rules! children {
    ($($bundle:expr),* $(,)?) => {
        $crate::related!($crate::relationship::ChildOf => [$($bundle),*])
    };
}

/// Spawns sources of any relationship with their target, inside the target's
/// bundle: `world.spawn((Star, related!(Following => [Fan(1), Fan(2)])))`. The
/// general form of [`children!`](crate::children).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// #[derive(Component)]
/// #[relationship(target = Followers)]
/// struct Following(Entity);
/// #[derive(Component, Default)]
/// #[relationship_target(relationship = Following)]
/// struct Followers(RelationshipSources);
/// #[derive(Component)] struct Fan(u32);
///
/// let mut world = World::new();
/// let star = world.spawn(related!(Following => [Fan(1), Fan(2)]));
/// assert_eq!(world.get::<Followers>(star).map(|f| f.0.len()), Some(2));
/// ```
#[macro_export]
macro_rules! related {
    ($relationship:ty => [$($bundle:expr),* $(,)?]) => {
        $crate::relationship::SpawnRelated::<$relationship>::new()$(.with($bundle))*
    };
}
