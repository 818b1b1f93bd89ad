//! Queries over component ids next to the typed query they stand for, on the
//! `simple_iter` data (10,000 entities of Transform, Position, Rotation,
//! Velocity; `pos += vel`):
//!
//! - `typed_for_each`: `(&Velocity, &mut Position)` through `for_each`;
//! - `dynamic_slices`: the same through a `DynamicQuery`, an archetype at a
//!   time as typed column slices (the target: within 1.05x of typed);
//! - `baseline_vec`: the same loop over two plain `Vec`s;
//! - `dynamic_rows`: a row at a time, each field through the schema view.
//!
//! And `dynamic_field`: one `f32` field of per-field components
//! (`body.x += speed.x`), typed `for_each` against the field slices a dynamic
//! query lends (the target: within 1.05x).
//!
//! `dynamic_get`: 10,000 random-order lookups of one field, typed
//! `world.get::<Position>(e)` against `world.get_by_id(e, id)` and a field
//! read through a handle resolved once (the target: within 1.5x);
//! `get_by_id_field_by_name` reads it by path instead, to show what resolving
//! a path on every read costs.
//!
//! `dynamic_spawn`: 10,000 entities of four components, typed `spawn` of a
//! tuple against an `EntityBuilder` fed the same four typed values, and one fed
//! four runtime components' `DynamicValue`s (the target: within 1.5x
//! of typed).
//!
//! Run with `cargo bench --bench dynamic`.

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;

#[derive(Component, Clone, Copy)]
struct Transform(#[allow(dead_code)] [[f32; 4]; 4]);

#[derive(Component, Clone, Copy)]
#[component(describe)]
struct Position {
    v: [f32; 3],
}

#[derive(Component, Clone, Copy)]
struct Rotation(#[allow(dead_code)] [f32; 3]);

#[derive(Component, Clone, Copy)]
#[component(describe)]
struct Velocity {
    v: [f32; 3],
}

fn world() -> World {
    let mut world = World::new();
    let unit = [1.0, 0.0, 0.0];
    world.spawn_batch(
        (0..10_000).map(|_| (Transform([[0.0; 4]; 4]), Position { v: unit }, Rotation(unit), Velocity { v: unit })),
    );
    world
}

fn add(p: &mut Position, v: &Velocity) {
    for i in 0..3 {
        p.v[i] += v.v[i];
    }
}

fn dynamic(c: &mut Criterion) {
    let mut group = c.benchmark_group("dynamic_iter");
    group.bench_function("typed_for_each", |b| {
        let mut world = world();
        let mut query = world.query_state::<(&Velocity, &mut Position)>();
        b.iter(|| query.iter_mut(&mut world).for_each(|(v, p)| add(p, v)))
    });
    group.bench_function("dynamic_slices", |b| {
        let mut world = world();
        let (pos, vel) =
            (world.component_id_by_name("Position").unwrap(), world.component_id_by_name("Velocity").unwrap());
        let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
        b.iter(|| {
            query.for_each_archetype_mut(&mut world, |archetype| {
                let velocities = archetype.column::<Velocity>(vel).unwrap();
                let positions = archetype.column_mut::<Position>(pos).unwrap();
                for (p, v) in positions.iter_mut().zip(velocities) {
                    add(p, v);
                }
            })
        })
    });
    group.bench_function("baseline_vec", |b| {
        let unit = [1.0, 0.0, 0.0];
        let mut positions = vec![Position { v: unit }; 10_000];
        let velocities = vec![Velocity { v: unit }; 10_000];
        b.iter(|| {
            for (p, v) in positions.iter_mut().zip(&velocities) {
                add(p, v);
            }
        })
    });
    group.bench_function("dynamic_rows", |b| {
        let mut world = world();
        let (pos, vel) =
            (world.component_id_by_name("Position").unwrap(), world.component_id_by_name("Velocity").unwrap());
        let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
        let handles: Vec<_> = {
            let e = world.query::<Entity>().iter().next().unwrap();
            let p = world.get_by_id(e, pos).unwrap();
            let v = world.get_by_id(e, vel).unwrap();
            (0..3).map(|i| (p.field(&format!("v[{i}]")).unwrap(), v.field(&format!("v[{i}]")).unwrap())).collect()
        };
        b.iter(|| {
            query.for_each_mut(&mut world, |mut row| {
                let v: Vec<f32> = {
                    let view = row.get(vel).unwrap();
                    handles.iter().map(|(_, h)| view.get::<f32>(h).unwrap()).collect()
                };
                let mut p = row.get_mut(pos).unwrap();
                for ((h, _), dv) in handles.iter().zip(v) {
                    let x = p.get::<f32>(h).unwrap();
                    p.set(h, x + dv).unwrap();
                }
            })
        })
    });
    group.finish();
}

#[derive(Component, Clone, Copy)]
#[component(describe, layout = "soa")]
struct Body {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Component, Clone, Copy)]
#[component(describe, layout = "soa")]
struct Speed {
    x: f32,
    y: f32,
    z: f32,
}

fn body_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..10_000).map(|i| (Body { x: i as f32, y: 0.0, z: 0.0 }, Speed { x: 1.0, y: 0.0, z: 0.0 })));
    world
}

/// One `f32` field of per-field components: `body.x += speed.x`.
fn dynamic_field(c: &mut Criterion) {
    let mut group = c.benchmark_group("dynamic_field");
    group.bench_function("typed_for_each", |b| {
        let mut world = body_world();
        let mut query = world.query_state::<(&Speed, &mut Body)>();
        b.iter(|| query.iter_mut(&mut world).for_each(|(s, b)| *b.x += *s.x))
    });
    group.bench_function("dynamic_field_slices", |b| {
        let mut world = body_world();
        let (body, speed) = (world.component_id_by_name("Body").unwrap(), world.component_id_by_name("Speed").unwrap());
        let query = world.dynamic_query().write(body).read(speed).build(&world).unwrap();
        b.iter(|| {
            query.for_each_archetype_mut(&mut world, |archetype| {
                let speeds = archetype.field::<f32>(speed, "x").unwrap();
                for (x, s) in archetype.field_mut::<f32>(body, "x").unwrap().iter_mut().zip(speeds) {
                    *x += s;
                }
            })
        })
    });
    group.finish();
}

/// The entities of `world()` in a scrambled order (a multiplicative step
/// through the indices), so lookups are not sequential.
fn scrambled(world: &mut World) -> Vec<Entity> {
    let all: Vec<Entity> = world.query::<Entity>().iter().collect();
    (0..all.len()).map(|i| all[(i * 7_919) % all.len()]).collect()
}

fn dynamic_get(c: &mut Criterion) {
    let mut group = c.benchmark_group("dynamic_get");
    group.bench_function("typed_get", |b| {
        let mut world = world();
        let entities = scrambled(&mut world);
        b.iter(|| entities.iter().map(|&e| world.get::<Position>(e).unwrap().v[0]).sum::<f32>())
    });
    group.bench_function("get_by_id_field", |b| {
        let mut world = world();
        let entities = scrambled(&mut world);
        let pos = world.component_id_by_name("Position").unwrap();
        let x = world.get_by_id(entities[0], pos).unwrap().field("v[0]").unwrap();
        b.iter(|| entities.iter().map(|&e| world.get_by_id(e, pos).unwrap().get::<f32>(&x).unwrap()).sum::<f32>())
    });
    group.bench_function("get_by_id_field_by_name", |b| {
        let mut world = world();
        let entities = scrambled(&mut world);
        let pos = world.component_id_by_name("Position").unwrap();
        b.iter(|| entities.iter().map(|&e| world.get_by_id(e, pos).unwrap().get::<f32>("v[0]").unwrap()).sum::<f32>())
    });
    group.finish();
}

#[derive(Component, Clone, Copy)]
struct A(#[allow(dead_code)] [f32; 3]);
#[derive(Component, Clone, Copy)]
struct B(#[allow(dead_code)] [f32; 3]);
#[derive(Component, Clone, Copy)]
struct C(#[allow(dead_code)] [f32; 3]);
#[derive(Component, Clone, Copy)]
struct D(#[allow(dead_code)] [f32; 3]);

fn dynamic_spawn(c: &mut Criterion) {
    use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    use ecs_core::world::{DynamicValue, EntityBuilder};
    let mut group = c.benchmark_group("dynamic_spawn");
    group.bench_function("typed_spawn", |b| {
        b.iter_batched_ref(
            World::new,
            |world| {
                for i in 0..10_000 {
                    let f = i as f32;
                    world.spawn((A([f; 3]), B([f; 3]), C([f; 3]), D([f; 3])));
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("builder_typed", |b| {
        let mut builder = EntityBuilder::new();
        b.iter_batched_ref(
            World::new,
            |world| {
                for i in 0..10_000 {
                    let f = i as f32;
                    builder.add(A([f; 3])).add(B([f; 3])).add(C([f; 3])).add(D([f; 3]));
                    builder.spawn(world).unwrap();
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("builder_dynamic", |b| {
        let vec3 = FieldKind::array(FieldKind::F32, 3);
        let names = ["DynA", "DynB", "DynC", "DynD"];
        let schemas: Vec<_> = names.iter().map(|n| SchemaBuilder::new(*n).field("v", vec3).build().unwrap()).collect();
        let mut builder = EntityBuilder::new();
        b.iter_batched_ref(
            || {
                let mut world = World::new();
                let ids: Vec<_> = names
                    .iter()
                    .zip(&schemas)
                    .map(|(n, s)| world.register_dynamic(&ComponentDescriptor::new(*n, s)).unwrap())
                    .collect();
                let templates: Vec<_> = ids.iter().map(|&id| DynamicValue::new(&world, id).unwrap()).collect();
                (world, templates)
            },
            |(world, templates)| {
                for i in 0..10_000 {
                    let f = i as f32;
                    for template in templates.iter() {
                        let mut value = template.clone();
                        value.set("v[0]", f).unwrap();
                        builder.add_dynamic(value);
                    }
                    builder.spawn(world).unwrap();
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    // As ecs-peers' `dynamic_spawn` does: each component added by id, its
    // field written through a handle resolved once.
    group.bench_function("builder_by_id", |b| {
        let vec3 = FieldKind::array(FieldKind::F32, 3);
        let names = ["DynA", "DynB", "DynC", "DynD"];
        let schemas: Vec<_> = names.iter().map(|n| SchemaBuilder::new(*n).field("v", vec3).build().unwrap()).collect();
        let mut builder = EntityBuilder::new();
        b.iter_batched_ref(
            || {
                let mut world = World::new();
                let ids: Vec<_> = names
                    .iter()
                    .zip(&schemas)
                    .map(|(n, s)| world.register_dynamic(&ComponentDescriptor::new(*n, s)).unwrap())
                    .collect();
                let handles: Vec<_> = ids
                    .iter()
                    .map(|&id| EntityBuilder::new().add_by_id(&world, id).unwrap().field("v").unwrap())
                    .collect();
                (world, ids, handles)
            },
            |(world, ids, handles)| {
                for i in 0..10_000 {
                    let f = i as f32;
                    for (&id, handle) in ids.iter().zip(handles.iter()) {
                        builder.add_by_id(world, id).unwrap().set(handle, [f; 3]).unwrap();
                    }
                    builder.spawn(world).unwrap();
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, dynamic, dynamic_field, dynamic_get, dynamic_spawn);
criterion_main!(benches);
