//! Entity events that propagate (`#[entity_event(propagate)]`): from the
//! target up its `ChildOf` links (or another relationship), while observers
//! let them, each entity's observers seeing it in turn.

use ecs_core::command::{CommandQueue, Commands};
use ecs_core::prelude::*;

/// Goes on to the parent only when an observer asks.
#[derive(EntityEvent, Clone, Copy)]
#[entity_event(propagate)]
struct Poke {
    entity: Entity,
}

/// Goes on to the parent unless an observer stops it.
#[derive(EntityEvent, Clone, Copy)]
#[entity_event(propagate, auto_propagate)]
struct Click {
    entity: Entity,
    button: u8,
}

/// Does not propagate at all.
#[derive(EntityEvent, Clone, Copy)]
struct Nudge {
    entity: Entity,
}

#[derive(Component)]
#[relationship(target = Owned)]
struct OwnedBy(Entity);

#[derive(Component)]
#[relationship_target(relationship = OwnedBy)]
struct Owned(Vec<Entity>);

/// Goes along `OwnedBy` instead of `ChildOf`.
#[derive(EntityEvent)]
#[entity_event(propagate = OwnedBy, auto_propagate)]
struct Claim {
    #[event_target]
    item: Entity,
}

#[derive(Component)]
struct StopsClicks;

/// (the entity the observer saw, the original target)
#[derive(Default)]
struct Seen(Vec<(Entity, Entity)>);

fn tree(world: &mut World) -> [Entity; 4] {
    let root = world.spawn(());
    let panel = world.spawn(ChildOf(root));
    let button = world.spawn(ChildOf(panel));
    let other = world.spawn(ChildOf(root));
    [root, panel, button, other]
}

fn world_with_seen() -> World {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world
}

#[test]
fn auto_propagate_goes_up_to_the_root() {
    let mut world = world_with_seen();
    let [root, panel, button, _] = tree(&mut world);
    world.add_observer(|click: On<Click>, mut seen: ResMut<Seen>| {
        assert_eq!(click.entity, click.target(), "the event names the entity it is at");
        assert_eq!(click.button, 2);
        seen.0.push((click.entity, click.original_event_target()));
    });
    world.trigger(Click { entity: button, button: 2 });
    assert_eq!(world.resource::<Seen>().0, [(button, button), (panel, button), (root, button)]);
}

#[test]
fn an_observer_stops_an_auto_propagating_event() {
    let mut world = world_with_seen();
    let [_, panel, button, _] = tree(&mut world);
    world.entity_mut(panel).unwrap().insert(StopsClicks);
    world.add_observer(|mut click: On<Click>, stoppers: Query<Entity, With<StopsClicks>>, mut seen: ResMut<Seen>| {
        seen.0.push((click.entity, click.original_event_target()));
        if stoppers.get(click.entity).is_ok() {
            click.propagate(false);
        }
    });
    world.trigger(Click { entity: button, button: 0 });
    assert_eq!(world.resource::<Seen>().0, [(button, button), (panel, button)]);
}

#[test]
fn without_auto_propagate_an_observer_must_ask_at_each_entity() {
    let mut world = world_with_seen();
    let [root, panel, button, _] = tree(&mut world);
    world.add_observer(|mut poke: On<Poke>, mut seen: ResMut<Seen>| {
        seen.0.push((poke.entity, poke.original_event_target()));
        // Asks once only: from the button to the panel.
        if poke.entity == poke.original_event_target() {
            poke.propagate(true);
        }
    });
    world.trigger(Poke { entity: button });
    assert_eq!(world.resource::<Seen>().0, [(button, button), (panel, button)]);
    world.resource_mut::<Seen>().0.clear();
    world.trigger(Poke { entity: root });
    assert_eq!(world.resource::<Seen>().0, [(root, root)], "the root has no parent to go on to");
}

#[test]
fn entity_observers_see_it_at_their_entity_only() {
    let mut world = world_with_seen();
    let [root, panel, button, other] = tree(&mut world);
    for entity in [root, panel, other] {
        world.entity_mut(entity).unwrap().observe(move |click: On<Click>, mut seen: ResMut<Seen>| {
            assert_eq!(click.entity, entity);
            seen.0.push((entity, click.original_event_target()));
        });
    }
    world.trigger(Click { entity: button, button: 1 });
    assert_eq!(world.resource::<Seen>().0, [(panel, button), (root, button)]);
}

#[test]
fn events_without_propagate_stay_at_their_target() {
    let mut world = world_with_seen();
    let [_, _, button, _] = tree(&mut world);
    world.add_observer(|mut nudge: On<Nudge>, mut seen: ResMut<Seen>| {
        nudge.propagate(true); // no effect: `Nudge` does not propagate
        seen.0.push((nudge.entity, nudge.original_event_target()));
    });
    world.trigger(Nudge { entity: button });
    assert_eq!(world.resource::<Seen>().0, [(button, button)]);
}

#[test]
fn another_relationship_can_carry_it() {
    let mut world = world_with_seen();
    let player = world.spawn(());
    let bag = world.spawn(OwnedBy(player));
    let coin = world.spawn((OwnedBy(bag), ChildOf(player)));
    world.add_observer(|claim: On<Claim>, mut seen: ResMut<Seen>| {
        seen.0.push((claim.item, claim.original_event_target()));
    });
    world.trigger(Claim { item: coin });
    assert_eq!(world.resource::<Seen>().0, [(coin, coin), (bag, coin), (player, coin)]);
}

#[test]
fn commands_run_after_the_whole_propagation_and_every_trigger_path_propagates() {
    let mut world = world_with_seen();
    let [root, panel, button, _] = tree(&mut world);
    // Despawning the panel from the button's observer: the event still
    // reaches the panel and the root, as the despawn waits.
    world.add_observer(move |click: On<Click>, mut seen: ResMut<Seen>, mut commands: Commands| {
        seen.0.push((click.entity, click.original_event_target()));
        if click.entity == button && click.button == 0 {
            commands.entity(panel).despawn();
        }
    });
    world.trigger(Click { entity: button, button: 0 });
    assert_eq!(world.resource::<Seen>().0, [(button, button), (panel, button), (root, button)]);
    assert!(!world.contains(panel) && !world.contains(button), "the despawn ran after, with its children");

    let [root, panel, button, other] = tree(&mut world);
    world.resource_mut::<Seen>().0.clear();
    world.trigger_targets(Click { entity: Entity::PLACEHOLDER, button: 1 }, [button, other]);
    assert_eq!(
        world.resource::<Seen>().0,
        [(button, button), (panel, button), (root, button), (other, other), (root, other)]
    );

    world.resource_mut::<Seen>().0.clear();
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).trigger(Click { entity: panel, button: 1 });
    queue.apply(&mut world);
    assert_eq!(world.resource::<Seen>().0, [(panel, panel), (root, panel)]);
}

/// A hook's `DeferredWorld::trigger` propagates the same way.
#[test]
fn a_hook_triggering_it_propagates_too() {
    #[derive(Component)]
    #[component(on_add = click_on_add)]
    struct Pressed;
    fn click_on_add(mut world: ecs_core::DeferredWorld, ctx: ecs_core::component::HookContext) {
        world.trigger(Click { entity: ctx.entity, button: 3 });
    }
    let mut world = world_with_seen();
    let [root, panel, button, _] = tree(&mut world);
    world.add_observer(|click: On<Click>, mut seen: ResMut<Seen>| {
        seen.0.push((click.entity, click.original_event_target()));
    });
    world.entity_mut(button).unwrap().insert(Pressed);
    assert_eq!(world.resource::<Seen>().0, [(button, button), (panel, button), (root, button)]);
}
