//! Targets as data: the target model file (TOML) and the built-in default.
//!
//! What: a [`TargetModel`] names up to [`super::MAX_TARGETS`] execution targets, each with
//! per-instruction-kind support and cost, whether transitions may enter it, whether it may
//! run inside loops, and the data origins (global-symbol name prefixes) it owns; plus the
//! transition rules (disallowed pairs, fixed switch overhead, per-unit transfer cost,
//! per-pair overrides). No target is assumed to support everything.
//!
//! Format (every key but `name` optional):
//!
//! ```toml
//! [transitions]
//! overhead = 8            # fixed cost of any cross-target edge
//! per_unit = 1            # cost per information unit live across it
//! deny = [["embedding", "postgres"]]
//! pairs = [{ from = "postgres", to = "interpreter", overhead = 12, per_unit = 1 }]
//!
//! [sizes]
//! estimate = "mid"        # how a size range becomes a cost: "lower", "mid" or "upper"
//!
//! [[target]]
//! name = "postgres"
//! default_cost = 1        # cost of a supported kind with no entry in `costs`
//! costs = { load = 1 }    # per instruction kind (see [`KINDS`])
//! unsupported = ["call", "call_indirect", "inline_asm", "fn_ptr"]
//! enterable = false       # outgoing-only: no transition into it
//! in_loops = true         # false: banned in blocks that are part of a loop
//! origins = ["pg_"]       # globals whose name starts with one of these live here
//! path_unit = 2           # premium per unit when a block here reads a path from elsewhere
//! only_own_paths = false  # true: supports only accesses to its own paths (and pure ops)
//! ```
//!
//! Instruction kinds are the names in [`KINDS`]; `fn_ptr` is any instruction that takes a
//! function's address as an operand.
//!
//! Errors: a TOML error with its line, or a [`ModelError`] naming the bad target, kind or
//! pair.
//!
//! Complexity: lookups are O(1) after `TargetModel::resolve`.

use super::sizes::SizeEstimate;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Instruction and terminator kinds a model may name.
pub const KINDS: &[&str] = &[
    "binary",
    "unary",
    "icmp",
    "fcmp",
    "cast",
    "select",
    "alloca",
    "load",
    "store",
    "gep",
    "call",
    "call_indirect",
    "inline_asm",
    "atomic",
    "fence",
    "phi",
    "copy",
    "opaque",
    "fn_ptr",
    "jump",
    "br",
    "switch",
    "indirect_br",
    "ret",
    "unreachable",
];

/// One target of a model file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TargetSpec {
    /// Name.
    pub name: String,
    /// Cost of a supported kind not listed in `costs`.
    #[serde(default = "one")]
    pub default_cost: u64,
    /// Cost per kind.
    #[serde(default)]
    pub costs: BTreeMap<String, u64>,
    /// Kinds it cannot run.
    #[serde(default)]
    pub unsupported: Vec<String>,
    /// False: no transition may enter it (outgoing-only).
    #[serde(default = "yes")]
    pub enterable: bool,
    /// False: banned inside loops.
    #[serde(default = "yes")]
    pub in_loops: bool,
    /// Name prefixes of the globals whose data originates here.
    #[serde(default)]
    pub origins: Vec<String>,
    /// Premium per information unit of a path read from another origin.
    #[serde(default = "one")]
    pub path_unit: u64,
    /// Supports only accesses to its own paths (plus pure arithmetic on them).
    #[serde(default)]
    pub only_own_paths: bool,
}

fn one() -> u64 {
    1
}
fn yes() -> bool {
    true
}

/// A per-pair override of the transition cost.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// Source target name.
    pub from: String,
    /// Destination target name.
    pub to: String,
    /// Fixed overhead.
    pub overhead: u64,
    /// Cost per unit.
    pub per_unit: u64,
}

/// Transition rules of a model file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TransitionSpec {
    /// Fixed overhead of a cross-target edge.
    #[serde(default = "eight")]
    pub overhead: u64,
    /// Cost per information unit live across a cross-target edge.
    #[serde(default = "one")]
    pub per_unit: u64,
    /// Disallowed (from, to) pairs.
    #[serde(default)]
    pub deny: Vec<[String; 2]>,
    /// Per-pair overrides.
    #[serde(default)]
    pub pairs: Vec<PairSpec>,
}

fn eight() -> u64 {
    8
}

impl Default for TransitionSpec {
    fn default() -> Self {
        TransitionSpec {
            overhead: 8,
            per_unit: 1,
            deny: Vec::new(),
            pairs: Vec::new(),
        }
    }
}

/// Size rules of a model file (see [`super::sizes`]).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SizesSpec {
    /// How a size range becomes the number a cost uses.
    #[serde(default)]
    pub estimate: SizeEstimate,
}

/// A model file as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    #[serde(default)]
    transitions: TransitionSpec,
    #[serde(default)]
    sizes: SizesSpec,
    target: Vec<TargetSpec>,
}

/// Why a model was rejected.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModelError {
    /// Not valid TOML or not the model's shape, at a 1-based line and column of the text.
    #[error("target model: line {line}, column {column}: {message}")]
    Toml {
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based, in characters).
        column: usize,
        /// What is wrong (the TOML reader's message, without its source excerpt).
        message: String,
    },
    /// A semantic error.
    #[error("target model: {0}")]
    Invalid(String),
}

/// Why a model file could not be used ([`TargetModel::load`]): the file's path with the
/// reason, and for a TOML error its line and column.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ModelFileError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The reader's error.
        source: std::sync::Arc<std::io::Error>,
    },
    /// Not valid TOML or not the model's shape, at a 1-based line and column of the file.
    #[error("{}:{line}:{column}: target model: {message}", path.display())]
    Toml {
        /// The file.
        path: std::path::PathBuf,
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based, in characters).
        column: usize,
        /// What is wrong (the TOML reader's message, without its source excerpt).
        message: String,
    },
    /// Valid TOML that is not a valid model.
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: ModelError,
    },
}

/// A resolved target model: dense tables by target index and kind index.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetModel {
    /// The targets as written.
    pub targets: Vec<TargetSpec>,
    /// `cost[t * KINDS.len() + kind]`, `None` if unsupported.
    pub cost: Vec<Option<u64>>,
    /// `(overhead, per_unit)` per pair `from * K + to`; `None` if disallowed.
    pub transition: Vec<Option<(u64, u64)>>,
    /// How a size range becomes a cost ([`super::sizes`]).
    pub size_estimate: SizeEstimate,
}

/// The built-in model: the spec's Interpreter, PostgreSQL and Embedding on our IR.
pub const DEFAULT_MODEL: &str = r#"# strata's default target model (spec 001's three targets on our IR).
[transitions]
overhead = 8
per_unit = 1
pairs = [{ from = "postgres", to = "interpreter", overhead = 12, per_unit = 2 }]

# A size range costs its midpoint (see placement::sizes).
[sizes]
estimate = "mid"

# The universal fallback: runs every kind, slowly.
[[target]]
name = "interpreter"
default_cost = 4
costs = { load = 6, store = 6, call = 10, call_indirect = 12, inline_asm = 20, alloca = 2 }
path_unit = 2

# The data source: fast relational arithmetic; no calls, indirect calls, inline asm or
# function-pointer values; outgoing-only.
[[target]]
name = "postgres"
default_cost = 1
costs = { load = 1, store = 2 }
unsupported = ["call", "call_indirect", "inline_asm", "fn_ptr", "atomic", "fence", "indirect_br", "opaque"]
enterable = false
origins = ["pg_", "db_"]
path_unit = 3

# Vector store: supports only accesses to its own paths.
[[target]]
name = "embedding"
default_cost = 1
unsupported = ["call", "call_indirect", "inline_asm", "fn_ptr", "atomic", "fence", "indirect_br", "opaque", "alloca", "store"]
origins = ["emb_", "vec_"]
only_own_paths = true
path_unit = 4
"#;

impl TargetModel {
    /// Parses and resolves a model file.
    ///
    /// # Errors
    /// [`ModelError`] naming the problem (TOML errors carry their line and column).
    pub fn parse(text: &str) -> Result<TargetModel, ModelError> {
        let file: ModelFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |r| r.start).min(text.len());
            let before = &text[..text.floor_char_boundary(at)];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            ModelError::Toml {
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        let mut model = Self::resolve(file.target, file.transitions)?;
        model.size_estimate = file.sizes.estimate;
        Ok(model)
    }

    /// Reads and parses the model file at `path`; returns the model and the file's text.
    ///
    /// # Errors
    /// [`ModelFileError`]: `PATH: message` when the file cannot be read or the model is
    /// invalid, and `PATH:LINE:COLUMN: target model: message` for a TOML error.
    pub fn load(path: &std::path::Path) -> Result<(TargetModel, String), ModelFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelFileError::Read {
            path: path.to_path_buf(),
            source: std::sync::Arc::new(source),
        })?;
        let path = path.to_path_buf();
        match TargetModel::parse(&text) {
            Ok(model) => Ok((model, text)),
            Err(ModelError::Toml {
                line,
                column,
                message,
            }) => Err(ModelFileError::Toml {
                path,
                line,
                column,
                message,
            }),
            Err(source) => Err(ModelFileError::Invalid { path, source }),
        }
    }

    /// The built-in default model ([`DEFAULT_MODEL`]).
    pub fn default_model() -> TargetModel {
        TargetModel::parse(DEFAULT_MODEL).expect("the built-in model parses")
    }

    /// Number of targets.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// True if the model has no target (never true for a resolved model).
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Index of a kind name in [`KINDS`].
    pub fn kind(name: &str) -> Option<usize> {
        KINDS.iter().position(|k| *k == name)
    }

    /// Cost of kind `kind` on target `t`, `None` if unsupported.
    pub fn cost(&self, t: usize, kind: usize) -> Option<u64> {
        self.cost[t * KINDS.len() + kind]
    }

    /// `(overhead, per_unit)` of a transition, `None` if disallowed; `(0, 0)` for `t -> t`.
    pub fn transition(&self, from: usize, to: usize) -> Option<(u64, u64)> {
        if from == to {
            Some((0, 0))
        } else {
            self.transition[from * self.len() + to]
        }
    }

    /// The origin target of a global named `name`, if a model target claims it.
    pub fn origin_of(&self, name: &str) -> Option<usize> {
        self.targets
            .iter()
            .position(|t| t.origins.iter().any(|p| name.starts_with(p.as_str())))
    }

    fn resolve(targets: Vec<TargetSpec>, tr: TransitionSpec) -> Result<TargetModel, ModelError> {
        let k = targets.len();
        if k == 0 {
            return Err(ModelError::Invalid(
                "at least one [[target]] is required".into(),
            ));
        }
        if k > super::MAX_TARGETS {
            return Err(ModelError::Invalid(format!(
                "{k} targets; at most {} are supported",
                super::MAX_TARGETS
            )));
        }
        let index = |name: &str| -> Result<usize, ModelError> {
            targets
                .iter()
                .position(|t| t.name == name)
                .ok_or_else(|| ModelError::Invalid(format!("unknown target `{name}`")))
        };
        for (i, t) in targets.iter().enumerate() {
            if targets[..i].iter().any(|u| u.name == t.name) {
                return Err(ModelError::Invalid(format!(
                    "target `{}` defined twice",
                    t.name
                )));
            }
        }
        let mut cost = vec![None; k * KINDS.len()];
        for (ti, t) in targets.iter().enumerate() {
            for (kind, c) in cost[ti * KINDS.len()..(ti + 1) * KINDS.len()]
                .iter_mut()
                .enumerate()
            {
                *c = Some(t.costs.get(KINDS[kind]).copied().unwrap_or(t.default_cost));
            }
            for name in t.costs.keys().chain(&t.unsupported) {
                let kind = Self::kind(name).ok_or_else(|| {
                    ModelError::Invalid(format!(
                        "target `{}`: unknown instruction kind `{name}` (known: {})",
                        t.name,
                        KINDS.join(", ")
                    ))
                })?;
                if t.unsupported.contains(name) {
                    cost[ti * KINDS.len() + kind] = None;
                }
            }
        }
        let mut transition = vec![Some((tr.overhead, tr.per_unit)); k * k];
        for (to, t) in targets.iter().enumerate() {
            if !t.enterable {
                for from in 0..k {
                    transition[from * k + to] = None;
                }
            }
        }
        for [a, b] in &tr.deny {
            transition[index(a)? * k + index(b)?] = None;
        }
        for p in &tr.pairs {
            let (a, b) = (index(&p.from)?, index(&p.to)?);
            if transition[a * k + b].is_some() {
                transition[a * k + b] = Some((p.overhead, p.per_unit));
            }
        }
        Ok(TargetModel {
            targets,
            cost,
            transition,
            size_estimate: SizeEstimate::default(),
        })
    }
}
