//! The schedule runs systems side by side on the strength of what `System::access`
//! reports, so implementing `System` is a promise: it needs `unsafe impl`.
use std::any::TypeId;

use ecs_core::World;
use ecs_core::system::{System, SystemAccess};

struct Sneaky(SystemAccess);

impl System for Sneaky {
    fn name(&self) -> &'static str {
        "sneaky"
    }
    fn access(&self) -> &SystemAccess {
        &self.0
    }
    fn is_exclusive(&self) -> bool {
        false
    }
    fn label(&self) -> TypeId {
        TypeId::of::<Self>()
    }
    fn initialize(&mut self, _: &mut World) {}
    unsafe fn run_unchecked(&mut self, _: &World) {}
    fn run_exclusive(&mut self, _: &mut World) {}
    fn apply(&mut self, _: &mut World) {}
}

fn main() {}
