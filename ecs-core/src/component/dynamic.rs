//! Components defined at run time: a name, a storage kind and a schema, with
//! no Rust type behind them. The runtime derives their layout, drop and clone
//! from the schema ([`value`](super::value)), so defining one needs no
//! `unsafe`; their values live in the same columns as typed components',
//! per-field layout included, under ids from the same id space.

use core::alloc::Layout;
use core::any::TypeId;

use super::registry::{DynamicKey, dynamic_info};
use super::schema::{FieldKind, Schema};
use super::schema_builder::{RuntimeDefined, kind_align};
use super::snapshot_strategy::StrategyKind;
use super::{ComponentHooks, ComponentInfo, value};
use crate::storage::FieldColumn;

/// What defines a component at run time (see
/// [`World::register_dynamic`](crate::World::register_dynamic)).
///
/// # Example
/// ```
/// use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
///
/// let schema = SchemaBuilder::new("Mana").field("points", FieldKind::F32).build()?;
/// let mana = ComponentDescriptor::new("Mana", schema).sparse();
/// assert_eq!(mana.name(), "Mana");
/// # Ok::<(), ecs_core::component::SchemaError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ComponentDescriptor {
    name: String,
    schema: &'static Schema,
    sparse: bool,
    per_field: bool,
}

impl ComponentDescriptor {
    /// A table component named `name` whose values `schema` describes.
    pub fn new(name: impl Into<String>, schema: &'static Schema) -> Self {
        Self { name: name.into(), schema, sparse: false, per_field: false }
    }

    /// Stored per row ([`StorageType::Sparse`](super::StorageType::Sparse)).
    pub fn sparse(mut self) -> Self {
        self.sparse = true;
        self.per_field = false;
        self
    }

    /// Stored field by field, each field in its own array (as
    /// `#[component(layout = "soa")]`), so that a loop over one field reads
    /// only that field's memory.
    pub fn per_field(mut self) -> Self {
        self.per_field = true;
        self.sparse = false;
        self
    }

    /// The component's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its schema.
    pub fn schema(&self) -> &'static Schema {
        self.schema
    }

    /// `true` when stored per row.
    pub fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// `true` when stored field by field.
    pub fn is_per_field(&self) -> bool {
        self.per_field
    }
}

impl ComponentInfo {
    /// The info of the runtime component `descriptor`: the same for the same
    /// descriptor everywhere in the process.
    pub(crate) fn dynamic(descriptor: &ComponentDescriptor) -> ComponentInfo {
        let key = DynamicKey {
            name: descriptor.name.clone(),
            sparse: descriptor.sparse,
            per_field: descriptor.per_field,
            kind: core::ptr::from_ref(descriptor.schema).addr(),
        };
        dynamic_info(key, |id| {
            let schema = descriptor.schema;
            let kind = FieldKind::Struct(schema);
            let layout = Layout::from_size_align(schema.size(), schema.align())
                .expect("a schema's size and alignment make a layout (checked when it was built)");
            // The glue reads the kind through a `'static` reference, kept for
            // the process's life only where there is glue.
            let owned: Option<&'static FieldKind> = value::needs_drop(&kind).then(|| &*Box::leak(Box::new(kind)));
            let drop = owned.and_then(value::drop_glue);
            let fields = descriptor.per_field.then(|| {
                let fields: Vec<FieldColumn> = schema
                    .fields()
                    .iter()
                    .map(|f| {
                        let layout = Layout::from_size_align(f.kind().size(), kind_align(f.kind()))
                            .expect("a field's size and alignment make a layout");
                        FieldColumn::new(f.offset(), layout)
                    })
                    .collect();
                &*fields.leak()
            });
            ComponentInfo {
                id,
                name: Box::leak(descriptor.name.clone().into_boxed_str()),
                type_id: TypeId::of::<RuntimeDefined>(),
                layout,
                drop,
                sparse: descriptor.sparse || (layout.size() == 0 && drop.is_none()),
                hooks: ComponentHooks::default(),
                changes: true,
                snapshot: match owned {
                    Some(kind) => StrategyKind::Clone(value::clone_glue(kind)),
                    None => StrategyKind::Copy,
                },
                fields,
                kind: Some(kind),
                mutable: true,
                links: false,
                dynamic: true,
                relink: None,
                required: None,
                lookup: None,
            }
        })
    }
}
