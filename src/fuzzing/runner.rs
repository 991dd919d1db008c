//! Running a fuzz target ([`super::targets`]) on random inputs on every core, on stable Rust:
//! what `strata fuzz` drives.
//!
//! What: [`run`] starts `jobs` workers (a rayon pool of that many threads, one worker per
//! thread through `broadcast`, so the checks' own rayon work stays on the same threads).
//! Worker `i` draws inputs from a splitmix64 generator seeded with `seed + i` ([`Inputs`]:
//! byte vectors of random length in `min_len..=max_len`), runs the check on each under
//! `catch_unwind`, and counts executions in one shared counter. The first failure (a panic)
//! is kept with its input and message, and every worker stops after its current input; so
//! do all of them when the time is up. [`run_once`] runs a check once on given bytes (the
//! reproducer).
//!
//! Panics: while a run lasts, `QuietPanics` replaces the panic hook with one that prints
//! nothing and records the message, with its location (and a backtrace when
//! `RUST_BACKTRACE` asks for one), in a thread-local; the last panic on the worker's thread
//! is the one that escaped the check (panics the check catches itself come before it). The
//! previous hook is restored afterwards, and runs in one process take turns (the hook is
//! global).
//!
//! Invariants: with a given seed, worker `i` sees the same inputs in the same order on every
//! run; how many each worker gets through depends on timing.
//!
//! Complexity: one generator step per 8 input bytes plus the check, per execution.

use super::targets::Target;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe, PanicHookInfo};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long, how wide and from which seed to fuzz.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Wall time of the run (workers stop after the input in hand when it is up).
    pub duration: Duration,
    /// Worker `i` draws its inputs from `seed + i`.
    pub seed: u64,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Shortest input, in bytes.
    pub min_len: usize,
    /// Longest input, in bytes.
    pub max_len: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            duration: Duration::from_secs(10),
            seed: 0,
            jobs: 1,
            min_len: 64,
            max_len: 8192,
        }
    }
}

/// A check that panicked: the input and what it said.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The input bytes.
    pub input: Vec<u8>,
    /// The panic's location and message (and backtrace, when captured).
    pub message: String,
    /// The worker that found it.
    pub worker: usize,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Inputs checked (the failing one included).
    pub executions: u64,
    /// Wall time from the start of the workers to the end of the last.
    pub elapsed: Duration,
    /// The first failure, if any.
    pub failure: Option<Failure>,
}

impl RunSummary {
    /// Executions per second of wall time.
    pub fn execs_per_second(&self) -> f64 {
        self.executions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The worker threads could not be created.
    #[error("cannot start {jobs} worker threads: {message}")]
    Threads {
        /// Threads asked for.
        jobs: usize,
        /// The thread pool's error.
        message: String,
    },
}

/// A splitmix64 stream of input byte vectors (Steele, Lea and Flood 2014).
pub struct Inputs {
    state: u64,
    min_len: usize,
    max_len: usize,
}

impl Inputs {
    /// The inputs of `seed`, of lengths in `min_len..=max_len` (`max_len` at least
    /// `min_len`).
    pub fn new(seed: u64, min_len: usize, max_len: usize) -> Self {
        Inputs {
            state: seed,
            min_len,
            max_len: max_len.max(min_len),
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next input, written into `out` (cleared first).
    pub fn next_into(&mut self, out: &mut Vec<u8>) {
        let span = (self.max_len - self.min_len) as u64 + 1;
        let len = self.min_len + (self.next_u64() % span) as usize;
        out.clear();
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
    }
}

/// FNV-1a, 64 bits: names a failing input's file.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

thread_local! {
    /// The last panic on this thread while [`QuietPanics`] is installed.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Serializes runs: the panic hook is global.
static HOOK_LOCK: Mutex<()> = Mutex::new(());

/// The panic hook type of std.
type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// While alive, panics print nothing and leave their message in this thread's
/// `LAST_PANIC`; dropping it restores the previous hook.
struct QuietPanics {
    previous: Option<Hook>,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl QuietPanics {
    fn install() -> Self {
        let turn = HOOK_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let mut message = match info.location() {
                Some(l) => format!("panicked at {l}: {}", payload_text(info.payload())),
                None => format!("panicked: {}", payload_text(info.payload())),
            };
            let trace = std::backtrace::Backtrace::capture();
            if trace.status() == std::backtrace::BacktraceStatus::Captured {
                message.push_str(&format!("\nstack backtrace:\n{trace}"));
            }
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
        }));
        QuietPanics {
            previous: Some(previous),
            _turn: turn,
        }
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            std::panic::set_hook(previous);
        }
    }
}

/// The text of a panic payload (`&str` or `String`, else a placeholder).
fn payload_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(a panic without a message)"
    }
}

/// Runs `check` on `data` under `catch_unwind`: `Err` with the panic's message on a
/// failure. The caller installs [`QuietPanics`].
fn run_check(check: fn(&[u8]), data: &[u8]) -> Result<(), String> {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    catch_unwind(AssertUnwindSafe(|| check(data))).map_err(|payload| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| payload_text(payload.as_ref()).to_string())
    })
}

/// Runs `target`'s check once on `data`: `Err` with the panic's location and message when
/// it fails. Prints nothing.
pub fn run_once(target: &Target, data: &[u8]) -> Result<(), String> {
    let _quiet = QuietPanics::install();
    run_check(target.check, data)
}

/// What the workers share.
struct Shared {
    executions: AtomicU64,
    stop: AtomicBool,
    failure: Mutex<Option<Failure>>,
}

/// One worker: inputs from `seed + index` until the time is up or some worker failed.
fn work(target: &Target, opts: &RunOptions, index: usize, start: Instant, shared: &Shared) {
    let mut inputs = Inputs::new(
        opts.seed.wrapping_add(index as u64),
        opts.min_len,
        opts.max_len,
    );
    let mut data = Vec::with_capacity(opts.max_len);
    while !shared.stop.load(Ordering::Relaxed) && start.elapsed() < opts.duration {
        inputs.next_into(&mut data);
        let verdict = run_check(target.check, &data);
        shared.executions.fetch_add(1, Ordering::Relaxed);
        if let Err(message) = verdict {
            let mut first = shared.failure.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_none() {
                *first = Some(Failure {
                    input: data.clone(),
                    message,
                    worker: index,
                });
            }
            shared.stop.store(true, Ordering::Relaxed);
            return;
        }
    }
}

/// Fuzzes `target` as `opts` says (see the module doc), calling `tick(executions, elapsed)`
/// from the calling thread about ten times a second while the workers run.
///
/// # Errors
/// [`RunError::Threads`] when the worker threads cannot be started.
pub fn run(
    target: &Target,
    opts: &RunOptions,
    tick: &mut dyn FnMut(u64, Duration),
) -> Result<RunSummary, RunError> {
    let jobs = opts.jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("fuzz-{i}"))
        .build()
        .map_err(|e| RunError::Threads {
            jobs,
            message: e.to_string(),
        })?;
    let shared = Shared {
        executions: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
    };
    let _quiet = QuietPanics::install();
    let start = Instant::now();
    let elapsed = std::thread::scope(|s| {
        let workers = s.spawn(|| {
            pool.broadcast(|ctx| work(target, opts, ctx.index(), start, &shared));
            start.elapsed()
        });
        while !workers.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            tick(shared.executions.load(Ordering::Relaxed), start.elapsed());
        }
        // A worker cannot panic (every check runs under catch_unwind); if one did, the
        // time up to now stands in for the workers' own.
        workers.join().unwrap_or_else(|_| start.elapsed())
    });
    Ok(RunSummary {
        executions: shared.executions.load(Ordering::Relaxed),
        elapsed,
        failure: shared
            .failure
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails_on_zero_first_byte(data: &[u8]) {
        assert_ne!(data.first(), Some(&0), "first byte is zero");
    }

    const FLAKY: Target = Target {
        name: "flaky",
        check: fails_on_zero_first_byte,
        summary: "fails when the first byte is zero",
    };

    #[test]
    fn inputs_are_deterministic_and_in_range() {
        let (mut a, mut b) = (Inputs::new(7, 64, 100), Inputs::new(7, 64, 100));
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..50 {
            a.next_into(&mut x);
            b.next_into(&mut y);
            assert_eq!(x, y);
            assert!((64..=100).contains(&x.len()));
        }
    }

    #[test]
    fn a_failure_is_caught_with_its_input_and_message() {
        let opts = RunOptions {
            duration: Duration::from_secs(20),
            jobs: 2,
            seed: 1,
            ..RunOptions::default()
        };
        let summary = run(&FLAKY, &opts, &mut |_, _| {}).unwrap();
        let failure = summary.failure.expect("a zero first byte comes up");
        assert_eq!(failure.input[0], 0);
        assert!(
            failure.message.contains("first byte is zero"),
            "{}",
            failure.message
        );
        assert!(failure.message.contains("runner.rs"), "{}", failure.message);
        assert!(run_once(&FLAKY, &failure.input).is_err());
        assert!(run_once(&FLAKY, &[1, 2, 3]).is_ok());
    }

    #[test]
    fn a_passing_run_counts_executions_until_the_time_is_up() {
        let opts = RunOptions {
            duration: Duration::from_millis(200),
            jobs: 2,
            min_len: 1,
            max_len: 4,
            ..RunOptions::default()
        };
        let text = super::super::targets::find("text").unwrap();
        let summary = run(text, &opts, &mut |_, _| {}).unwrap();
        assert!(summary.failure.is_none());
        assert!(summary.executions > 0);
        assert!(summary.elapsed >= Duration::from_millis(200));
    }
}
