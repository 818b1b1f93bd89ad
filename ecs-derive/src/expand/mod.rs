//! Code generation from checked descriptions. Generated code is hygienic: it names
//! everything by absolute path (`::core::…`, the `ecs_core` crate path), prefixes its
//! own identifiers with `__`, and is wrapped in `const _: () = { … };`.

mod bundle;
mod component;
mod describe;
mod event;
mod query;
mod split;
mod system_param;
mod system_set;

pub use bundle::bundle;
pub use component::component;
pub use describe::describe;
pub use event::{entity_event, event, message, resource};
pub use query::query;
pub use system_param::system_param;
pub use system_set::system_set;
