//! [`ScriptEvent`]: events scripts define and trigger, observed from Rust and
//! from scripts alike.

use ecs_core::component::ComponentId;
use ecs_core::prelude::*;
use ecs_core::world::DynamicValue;

/// An event whose payload is described at run time: a script declares it
/// like a component (`world:event("Damage", { amount = "f32" })`, a name and
/// a schema) and triggers it with `world:trigger(Damage, { amount = 5 },
/// target)`; Rust observes it as any event (`On<ScriptEvent>`), and triggers
/// it for scripts' observers (`world:observe(Damage, function(world, value,
/// target) … end)`) with a [`DynamicValue`] of the declared payload.
///
/// # Example
/// ```
/// use std::sync::{Arc, Mutex};
/// use ecs_core::prelude::*;
/// use ecs_script::{ScriptEvent, ScriptHost};
///
/// let mut world = World::new();
/// let mut host = ScriptHost::new()?;
/// host.load("combat", r#"return {
///     hit = function(world, target)
///         local Damage = world:event("Damage", { amount = "f32" })
///         world:trigger(Damage, { amount = 7.5 }, target)
///     end,
/// }"#)?;
/// let taken = Arc::new(Mutex::new(Vec::new()));
/// let log = taken.clone();
/// world.add_observer(move |t: On<ScriptEvent>| {
///     if t.event().name() == "Damage" {
///         let amount: f32 = t.event().value().view().get("amount").unwrap();
///         log.lock().unwrap().push((t.target(), amount));
///     }
/// });
/// let goblin = world.spawn(());
/// host.call_with::<()>(&mut world, "combat", "hit", ecs_script::entity(goblin))?;
/// assert_eq!(*taken.lock().unwrap(), [(goblin, 7.5)]);
/// # Ok::<(), ecs_script::ScriptError>(())
/// ```
#[derive(Event, Clone)]
pub struct ScriptEvent {
    value: DynamicValue,
}

impl ScriptEvent {
    /// The event whose payload is `value` (a value of the component the
    /// event was declared as).
    pub fn new(value: DynamicValue) -> Self {
        Self { value }
    }

    /// The event's name, as declared.
    pub fn name(&self) -> &'static str {
        self.value.name()
    }

    /// The id the event's payload was declared under.
    pub fn id(&self) -> ComponentId {
        self.value.id()
    }

    /// The payload, read by field (`value().view().get::<f32>("amount")`).
    pub fn value(&self) -> &DynamicValue {
        &self.value
    }
}
