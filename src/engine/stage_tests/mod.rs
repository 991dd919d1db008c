//! Tests that run one stage's systems alone in a [`super::harness::Harness`] (or through an
//! [`super::Engine`]). They live here, above the stages, because the harness builds its
//! World with the engine's `init_world`: a stage module imports `stage`, `ir` and
//! `analysis` only, its tests included.

mod placement_columns;
mod placement_system;
mod regalloc_systems;
mod sccp;
