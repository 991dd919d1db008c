//! Running one system (or a few) alone on a World built for it (DESIGN.md 2, rule 11).
//!
//! What: [`Harness`] is a World holding one function loaded into its column tables, the
//! per-function resources and the analysis and scratch resources the systems read, but no
//! pipeline schedule: a test or fuzz check runs exactly the systems it names
//! ([`Harness::run`]) and reads their results from the World, or takes the function back.
//! [`Harness::from_sir`] builds it from `.sir` text.
//!
//! Cost: building the World is a few microseconds; each [`Harness::run`] builds a small
//! schedule (100-250 µs), which is why the engine keeps its own. Meant for tests and fuzzing.

use super::world::{self, FunctionLoader};
use super::PipelineConfig;
use crate::ir::{Function, SymbolTable};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{IntoScheduleConfigs, SingleThreadedExecutor};
use bevy_ecs::system::ScheduleSystem;
use std::sync::Arc;

/// Why [`Harness::from_sir`] could not build a harness.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    /// The text does not parse (the error has its `file:line:col`).
    #[error(transparent)]
    Parse(#[from] crate::text::ParseError),
    /// The text parses but defines no function.
    #[error("the text defines no function")]
    NoFunction,
    /// Machine text (`.mir`) does not parse.
    #[error(transparent)]
    MachineParse(#[from] crate::machine::text::ParseError),
}

/// A World with one function in it and every resource a pipeline system reads.
pub struct Harness {
    world: World,
}

impl Harness {
    /// Loads `f` (whose symbols are `symbols`) with `config` as the pipeline config.
    pub fn new(f: Function, symbols: &Arc<SymbolTable>, config: PipelineConfig) -> Self {
        let mut world = World::new();
        super::init_world(&mut world, config);
        world.resource_scope(|world, mut loader: Mut<FunctionLoader>| {
            loader.load(world, 0, f, symbols)
        });
        Harness { world }
    }

    /// Parses `.sir` text and loads its first function (its module's symbols with it).
    ///
    /// # Errors
    /// [`HarnessError`]: the parse error (with its line and column), or no function.
    pub fn from_sir(text: &str, config: PipelineConfig) -> Result<Self, HarnessError> {
        let module = crate::text::parse_module(text, "<harness>")?;
        let symbols = Arc::new(module.symbol_table());
        let f = module
            .functions
            .into_iter()
            .next()
            .ok_or(HarnessError::NoFunction)?;
        Ok(Harness::new(f, &symbols, config))
    }

    /// Parses machine text (`.mir`, the grammar of [`crate::machine::text`]) and loads its
    /// first function into the machine rows, as lowering leaves it, with `config` as the
    /// pipeline config (no IR function is loaded): the World the allocation systems read.
    ///
    /// # Errors
    /// [`HarnessError`]: the parse error, or no function.
    pub fn from_mir(text: &str, config: PipelineConfig) -> Result<Self, HarnessError> {
        let f = crate::machine::text::parse_functions(text, "<harness>")?
            .into_iter()
            .next()
            .ok_or(HarnessError::NoFunction)?;
        let mut world = World::new();
        super::init_world(&mut world, config);
        world.resource_scope(
            |world, mut loader: Mut<crate::machine::columns::MachineLoader>| loader.load(world, f),
        );
        Ok(Harness { world })
    }

    /// Runs `systems` once, in the order they are configured (single-threaded executor).
    pub fn run<M>(&mut self, systems: impl IntoScheduleConfigs<ScheduleSystem, M>) {
        let mut schedule = Schedule::default();
        schedule.set_executor(SingleThreadedExecutor::new());
        schedule.add_systems(systems);
        schedule.run(&mut self.world);
    }

    /// The World (read results from its resources).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The World, mutable.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// Asserts one dense table per entity kind (see [`world::check_dense`]).
    pub fn check_dense(&mut self) {
        world::check_dense(&mut self.world);
    }

    /// Takes the function back out of the World.
    pub fn take(&mut self) -> Function {
        self.world
            .resource_scope(|world, mut loader: Mut<FunctionLoader>| loader.take(world, 0))
    }
}
