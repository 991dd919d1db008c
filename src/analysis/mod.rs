//! Analyses (placeholder).
use bevy_ecs::prelude::*;
/// Inserts analysis resources.
pub fn init_resources(_world: &mut World) {}
/// Adds analysis systems.
pub fn configure(_schedule: &mut Schedule) {}
