//! Whole-program oracle on real C code (issue 3): the zlib, bzip2 and Lua 5.4 modules that
//! `scripts/corpus.sh` builds into `target/corpus/*.ll`, each at clang `-O0`, `-O0 -g` and
//! `-O2` (`<name>.ll`, `<name>.g.ll`, `<name>.O2.ll`), are imported and exported in four
//! ways (unchanged, after mem2reg, after mem2reg+SCCP, after the default pipeline); every
//! export must pass `opt -passes=verify` and behave under `lli` exactly like the original
//! module of the same build:
//!
//! - Lua: every script in `tests/lua/` gives the same stdout, stderr (with the module's path,
//!   which Lua prints as its program name, normalised) and exit status;
//! - bzip2 and zlib's minigzip: a generated input (text and pseudo-random binary) compressed
//!   at several settings gives the original's compressed bytes exactly, decompressing those
//!   with the same transformed program gives the input back byte for byte, and a corrupted
//!   stream is rejected with the original's output and exit status;
//! - jq (16-byte struct values, VLAs): filters over a generated JSON document give the
//!   original's output, and malformed JSON and a malformed filter its errors and statuses;
//! - tcc (long double, bitfields): preprocessing and compiling a generated C file with long
//!   double constant arithmetic give the original's text and object file byte for byte, and
//!   a C syntax error its message and status.
//!
//! Every module must import without skipping a function (jq's 16-byte struct values are
//! first-class aggregates of the IR).
//!
//! The corpus and `opt`/`lli` are built and installed on first use (`tests/common`); with
//! `STRATA_SKIP_CORPUS=1` the tests print `SKIPPED: <test>: <reason>` instead when they are
//! missing. `lli` dominates their time: it compiles the whole module before `main` runs
//! (3 to 5 s for Lua, jq or tcc, about 20 s for SQLite, on the 2-core CI machine), so each
//! distinct file is compiled once into `lli`'s object cache and later runs load the object
//! (0.5 s for a Lua script instead of 3.5 s), an export byte-identical to an earlier variant
//! takes that variant's outcomes instead of running again, and the runs use one worker
//! thread per core. The imports and exports take a few seconds even in a debug build.
//! `STRATA_KEEP_TMP=1` keeps the exported modules.

mod common;
use common::{corpus_dir, export_checked, have, require, run_passes, temp_dir};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use strata::llvm::{import, ImportOptions};

/// The transformations under test: a label and the pass list (`None`: import and export).
const VARIANTS: [(&str, Option<&str>); 4] = [
    ("export", None),
    ("mem2reg", Some("mem2reg")),
    ("mem2reg+sccp", Some("mem2reg,sccp")),
    // The default pipeline as `--emit ll` runs it (phi-elim left out: LLVM IR is SSA).
    ("default", Some("verify,mem2reg,sccp,placement")),
];

/// The builds of a corpus program: clang `-O0`, `-O0 -g` and `-O2` (`scripts/corpus.sh`),
/// as module names (`lua`, `lua.g`, `lua.O2`). Every run of every workload runs on each
/// build (all three took 2,481 s of `cargo test -- --test-threads 1`, build included, on a
/// 2-core machine at load 8 to 12).
fn flavours(module: &str) -> [String; 3] {
    [
        module.to_string(),
        format!("{module}.g"),
        format!("{module}.O2"),
    ]
}

/// `Some(reason)` when the corpus tests cannot run here.
fn skip_reason(module: &str) -> Option<String> {
    let ll = corpus_dir().join(format!("{module}.ll"));
    if !ll.exists() {
        return Some(format!(
            "{} missing (run `bash scripts/corpus.sh`)",
            ll.display()
        ));
    }
    for tool in ["opt", "lli"] {
        if !have(tool) {
            return Some(format!(
                "`{tool}` not on PATH (run `bash scripts/install-clang.sh`)"
            ));
        }
    }
    None
}

fn cleanup(dir: &Path) {
    if std::env::var_os("STRATA_KEEP_TMP").is_none() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Imports `module`, runs `passes`, exports to `out` and checks it with `opt -passes=verify`.
fn build_variant(module: &str, passes: Option<&str>, out: &Path) {
    let ll = corpus_dir().join(format!("{module}.ll"));
    let src = std::fs::read_to_string(&ll).unwrap();
    let mut imp = import(&src, module, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // Every function imports (xxhash's SSE2 helpers too: vectors are IR values).
    assert!(
        imp.skipped.is_empty(),
        "{module}: skipped {:?}",
        imp.skipped
    );
    imp.verify()
        .unwrap_or_else(|e| panic!("{module}: invalid functions: {e}"));
    if let Some(p) = passes {
        run_passes(&mut imp, p, module);
    }
    export_checked(&imp, out);
}

/// The original module and its transformed exports, built in parallel threads.
struct Variants {
    /// (label, path): the original first, then one per [`VARIANTS`] entry.
    list: Vec<(String, PathBuf)>,
    /// For each entry of `list`, the index of the first entry whose file is byte for byte the
    /// same (itself when none is): `lli` runs each distinct file once and the copies take its
    /// outcomes. mem2reg+SCCP and the default pipeline export the same text (placement
    /// annotates blocks and changes no instruction), and at `-O2` mem2reg often finds no
    /// alloca, so about a quarter of the runs are repeats.
    same_as: Vec<usize>,
    /// `lli`'s object cache (`-object-cache-dir`), private to this test run: each distinct
    /// file is compiled by the JIT once (a few seconds for Lua, twenty for SQLite) and every
    /// later run of it loads the object instead.
    object_cache: PathBuf,
}

fn variants(module: &str, dir: &Path) -> Variants {
    let mut list = vec![(
        "original".to_string(),
        corpus_dir().join(format!("{module}.ll")),
    )];
    std::thread::scope(|s| {
        let handles: Vec<_> = VARIANTS
            .iter()
            .map(|&(label, passes)| {
                let out = dir.join(format!("{module}.{}.ll", label.replace('+', "-")));
                s.spawn(move || {
                    build_variant(module, passes, &out);
                    (label.to_string(), out)
                })
            })
            .collect();
        for h in handles {
            list.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
    });
    let texts: Vec<Vec<u8>> = list
        .iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect();
    let same_as = (0..texts.len())
        .map(|i| (0..=i).find(|&j| texts[j] == texts[i]).unwrap())
        .collect();
    Variants {
        list,
        same_as,
        object_cache: dir.join("object-cache"),
    }
}

impl Variants {
    /// How many entries repeat an earlier one's file.
    fn repeats(&self) -> usize {
        self.same_as
            .iter()
            .enumerate()
            .filter(|&(i, &j)| i != j)
            .count()
    }

    /// Runs `run(v, item)` for every variant `v` and item, one worker per core; the result of
    /// (v, item) is at `v * items + item`. A variant whose file repeats an earlier one's takes
    /// that one's results. Each distinct file's first item runs before any second one, so
    /// `lli` compiles it once into the object cache and later runs only read the cache.
    fn run_all<R: Clone + Send>(
        &self,
        items: usize,
        run: impl Fn(usize, usize) -> R + Sync,
    ) -> Vec<R> {
        let distinct: Vec<usize> = (0..self.list.len())
            .filter(|&v| self.same_as[v] == v)
            .collect();
        let first: Vec<(usize, usize)> = distinct.iter().map(|&v| (v, 0)).collect();
        let rest: Vec<(usize, usize)> = distinct
            .iter()
            .flat_map(|&v| (1..items).map(move |i| (v, i)))
            .collect();
        let mut results: Vec<Option<R>> = vec![None; self.list.len() * items];
        for wave in [first, rest] {
            let outcomes = parallel(&wave, |&(v, i)| run(v, i));
            for ((v, i), o) in wave.into_iter().zip(outcomes) {
                results[v * items + i] = Some(o);
            }
        }
        (0..self.list.len() * items)
            .map(|k| {
                let (v, i) = (k / items, k % items);
                results[self.same_as[v] * items + i].clone().unwrap()
            })
            .collect()
    }

    /// Runs variant `v` under `lli` (see [`lli`]), through the object cache.
    fn lli(&self, v: usize, args: &[String], stdin: &[u8], cwd: Option<&Path>) -> Outcome {
        lli(&self.list[v].1, &self.object_cache, args, stdin, cwd)
    }
}

/// One `lli` run's result.
#[derive(Clone, PartialEq, Eq)]
struct Outcome {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    status: i32,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let clip = |b: &[u8]| {
            let s = String::from_utf8_lossy(&b[..b.len().min(2000)]).into_owned();
            if b.len() > 2000 {
                format!("{s}... ({} bytes)", b.len())
            } else {
                s
            }
        };
        write!(
            f,
            "status {}, {} stdout bytes, stdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout.len(),
            clip(&self.stdout),
            clip(&self.stderr)
        )
    }
}

/// Runs `module` under `lli` with `args`, feeding it `stdin`, in `cwd` (or the test's
/// working directory). `lli` keeps the compiled object in `object_cache` under the module's
/// path and loads it on later runs (the cache checks nothing but the path, so the directory
/// must not outlive the files: each test run has its own).
fn lli(
    module: &Path,
    object_cache: &Path,
    args: &[String],
    stdin: &[u8],
    cwd: Option<&Path>,
) -> Outcome {
    use std::io::Write;
    let mut command = Command::new("lli");
    // `ENV:KEY=VALUE` arguments set the program's environment instead (see [`Run`]).
    let (env, args): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| a.starts_with("ENV:"));
    for e in env {
        if let Some((k, v)) = e["ENV:".len()..].split_once('=') {
            command.env(k, v);
        }
    }
    let mut cache_dir = std::ffi::OsString::from("-object-cache-dir=");
    cache_dir.push(object_cache);
    command
        .arg("-enable-cache-manager")
        .arg(cache_dir)
        .arg(module)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = command.spawn().expect("lli runs");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let o = child.wait_with_output().unwrap();
    let _ = writer.join();
    outcome(module, o)
}

/// The outcome of `o`, with `module`'s path and file name in stderr (Lua and bzip2 print
/// their program name there) replaced by `<module>`.
fn outcome(module: &Path, o: std::process::Output) -> Outcome {
    let path = module.display().to_string();
    let name = module.file_name().unwrap().to_string_lossy();
    let stderr = String::from_utf8_lossy(&o.stderr)
        .replace(&path, "<module>")
        .replace(&*name, "<module>")
        .into_bytes();
    Outcome {
        stdout: o.stdout,
        stderr,
        status: o.status.code().unwrap_or(-1),
    }
}

/// Runs `f` on every item with one worker per core; results in item order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                *results[i].lock().unwrap() = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap().unwrap())
        .collect()
}

/// The first line where two outputs differ, for the failure message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}: original {x:?}, transformed {y:?}", i + 1);
        }
    }
    format!(
        "lengths differ: original {} lines, transformed {} lines",
        a.lines().count(),
        b.lines().count()
    )
}

/// Generated compressor input: numbered text lines, a long run, then pseudo-random bytes.
fn compressor_input() -> Vec<u8> {
    let mut data = Vec::new();
    for i in 1..8000u64 {
        data.extend_from_slice(
            format!(
                "line {i}: the quick brown fox jumps over {} lazy dogs\n",
                i * i % 977
            )
            .as_bytes(),
        );
    }
    data.extend(std::iter::repeat_n(b'z', 20_000));
    let mut x: u32 = 12345;
    for _ in 0..120_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        data.push((x >> 16) as u8);
    }
    data.extend((0..=255u8).cycle().take(4096));
    data
}

/// Compressor round trip for `module` (`bzip2` or `zlib`): for each `(compress, decompress)`
/// argument pair, every variant must compress the input to the original's bytes, decompress
/// its own output to the input, and reject a corrupted stream like the original.
fn compressor_round_trip(program: &str, test: &str, settings: &[(&[&str], &[&str])]) {
    for module in flavours(program) {
        compressor_round_trip_of(&module, test, settings);
    }
}

/// [`compressor_round_trip`] of one build.
fn compressor_round_trip_of(module: &str, test: &str, settings: &[(&[&str], &[&str])]) {
    if !require(test, skip_reason(module)) {
        return;
    }
    let started = std::time::Instant::now();
    let dir = temp_dir("corpus", module);
    let variants = variants(module, &dir);
    let built = started.elapsed();
    let input = compressor_input();
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    // Compression: every variant at every setting.
    let n = settings.len();
    let jobs: Vec<(usize, usize)> = (0..variants.list.len())
        .flat_map(|v| (0..n).map(move |s| (v, s)))
        .collect();
    let compressed = variants.run_all(n, |v, s| variants.lli(v, &own(settings[s].0), &input, None));
    let mut failures = Vec::new();
    let original: Vec<&Outcome> = compressed[..settings.len()].iter().collect();
    for (s, o) in original.iter().enumerate() {
        assert_eq!(o.status, 0, "{module} original {:?}: {o:?}", settings[s].0);
        assert!(o.stdout.len() > 1000 && o.stdout.len() < input.len());
    }
    for (&(v, s), o) in jobs.iter().zip(&compressed) {
        if o != original[s] {
            failures.push(format!(
                "{module} {} compress {:?}: output differs from the original's ({} vs {} bytes, status {} vs {})",
                variants.list[v].0,
                settings[s].0,
                o.stdout.len(),
                original[s].stdout.len(),
                o.status,
                original[s].status
            ));
        }
    }

    // Decompression of each variant's own output, and of a corrupted stream.
    let mut corrupt = original[0].stdout.clone();
    let mid = corrupt.len() / 2;
    for b in &mut corrupt[mid..mid + 64] {
        *b ^= 0x5a;
    }
    // Item `s < n` decompresses the variant's own output at setting `s`; item `n` the
    // corrupted stream.
    let djobs: Vec<(usize, Option<usize>)> = (0..variants.list.len())
        .flat_map(|v| (0..n).map(move |s| (v, Some(s))).chain([(v, None)]))
        .collect();
    let decompressed = variants.run_all(n + 1, |v, s| {
        if s < n {
            let own_output = &compressed[v * n + s].stdout;
            variants.lli(v, &own(settings[s].1), own_output, None)
        } else {
            variants.lli(v, &own(settings[0].1), &corrupt, None)
        }
    });
    let corrupt_original = &decompressed[n];
    assert_ne!(
        corrupt_original.status, 0,
        "{module}: the original accepted a corrupted stream"
    );
    for (&(v, s), o) in djobs.iter().zip(&decompressed) {
        let label = &variants.list[v].0;
        match s {
            Some(s) => {
                if o.status != 0 || o.stdout != input {
                    failures.push(format!(
                        "{module} {label} decompress {:?}: status {}, {} bytes, round trip {}",
                        settings[s].1,
                        o.status,
                        o.stdout.len(),
                        if o.stdout == input {
                            "identical"
                        } else {
                            "differs"
                        }
                    ));
                }
            }
            None => {
                if o != corrupt_original {
                    failures.push(format!(
                        "{module} {label} corrupted stream: got {o:?}\nexpected {corrupt_original:?}"
                    ));
                }
            }
        }
    }
    report(test, &variants, built, jobs.len() + djobs.len(), started);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cleanup(&dir);
}

/// The test's timing line: variants built, runs judged and `lli` processes started.
fn report(
    test: &str,
    variants: &Variants,
    built: std::time::Duration,
    runs: usize,
    started: std::time::Instant,
) {
    let all = variants.list.len();
    let repeats = variants.repeats();
    eprintln!(
        "{test}: {} variants built in {built:.1?}, {runs} runs judged, {} under lli \
         ({repeats} of {all} files repeat an earlier one), {:.1?} in all",
        all - 1,
        runs / all * (all - repeats),
        started.elapsed()
    );
}

#[test]
fn bzip2_round_trips_identically_after_import_export_and_passes() {
    compressor_round_trip(
        "bzip2",
        "bzip2_round_trips_identically_after_import_export_and_passes",
        &[
            (&["-c"], &["-d", "-c"]),
            (&["-1", "-c"], &["-d", "-s", "-c"]),
        ],
    );
}

#[test]
fn minigzip_round_trips_identically_after_import_export_and_passes() {
    compressor_round_trip(
        "zlib",
        "minigzip_round_trips_identically_after_import_export_and_passes",
        &[(&[], &["-d"]), (&["-1"], &["-d"]), (&["-h"], &["-d"])],
    );
}

/// The Lua scripts in `tests/lua/`, with the exit status the original interpreter gives.
fn lua_scripts() -> Vec<(PathBuf, i32)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lua");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lua"))
        .collect();
    scripts.sort();
    scripts
        .into_iter()
        .map(|p| {
            let status = match p.file_stem().unwrap().to_str().unwrap() {
                "meta" => 3,
                "uncaught" => 1,
                _ => 0,
            };
            (p, status)
        })
        .collect()
}

#[test]
fn lua_scripts_behave_identically_after_import_export_and_passes() {
    let scripts = lua_scripts();
    assert!(scripts.len() >= 4, "tests/lua/*.lua");
    // Each script runs by file name from its run's directory, so messages carry no
    // absolute path.
    let runs: Vec<Run> = scripts
        .iter()
        .map(|(path, _)| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(path).unwrap();
            Run {
                args: vec![name.clone()],
                stdin: Vec::new(),
                files: vec![(name, text)],
            }
        })
        .collect();
    let statuses: Vec<i32> = scripts.iter().map(|&(_, status)| status).collect();
    workload(
        "lua",
        "lua_scripts_behave_identically_after_import_export_and_passes",
        &runs,
        &statuses,
    );
}

/// One run of a workload: arguments, stdin, and the files it reads (written to its working
/// directory). `{out}` in an argument is replaced by a file name private to the run, whose
/// contents after the run are appended to its stdout. An argument `ENV:KEY=VALUE` is not
/// passed: it sets `KEY` in the program's environment.
struct Run {
    args: Vec<String>,
    stdin: Vec<u8>,
    files: Vec<(String, String)>,
}

/// Owned copies of `args`.
fn args(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// Runs every [`Run`] under the original module and each transformed export; each must give
/// the original's stdout (plus `{out}` file), stderr and status. `expect_status` gives the
/// original's status per run, so a workload that silently stops working fails.
fn workload(program: &str, test: &str, runs: &[Run], expect_status: &[i32]) {
    for module in flavours(program) {
        workload_of(&module, test, runs, expect_status);
    }
}

/// [`workload`] of one build.
fn workload_of(module: &str, test: &str, runs: &[Run], expect_status: &[i32]) {
    if !require(test, skip_reason(module)) {
        return;
    }
    let started = std::time::Instant::now();
    let dir = temp_dir("corpus", module);
    let variants = variants(module, &dir);
    let built = started.elapsed();
    let jobs: Vec<(usize, usize)> = (0..variants.list.len())
        .flat_map(|v| (0..runs.len()).map(move |r| (v, r)))
        .collect();
    let outcomes = variants.run_all(runs.len(), |v, r| {
        let cwd = dir.join(format!("run-{v}-{r}"));
        std::fs::create_dir_all(&cwd).unwrap();
        for (name, text) in &runs[r].files {
            std::fs::write(cwd.join(name), text).unwrap();
        }
        let args: Vec<String> = runs[r]
            .args
            .iter()
            .map(|a| a.replace("{out}", "out.bin"))
            .collect();
        let mut o = variants.lli(v, &args, &runs[r].stdin, Some(&cwd));
        if runs[r].args.iter().any(|a| a.contains("{out}")) {
            o.stdout.extend_from_slice(b"\n--- {out} ---\n");
            o.stdout
                .extend(std::fs::read(cwd.join("out.bin")).unwrap_or_default());
        }
        o
    });
    for (r, &status) in expect_status.iter().enumerate() {
        assert_eq!(
            outcomes[r].status, status,
            "{module} original, run {:?}: {:?}",
            runs[r].args, outcomes[r]
        );
    }
    let mut failures = Vec::new();
    for (&(v, r), o) in jobs.iter().zip(&outcomes) {
        let expected = &outcomes[r];
        if o != expected {
            let what = if o.stdout != expected.stdout {
                format!("stdout: {}", first_difference(&expected.stdout, &o.stdout))
            } else if o.stderr != expected.stderr {
                format!("stderr: {}", first_difference(&expected.stderr, &o.stderr))
            } else {
                format!("status {} vs original {}", o.status, expected.status)
            };
            failures.push(format!(
                "{module} {} {:?}: {what}",
                variants.list[v].0, runs[r].args
            ));
        }
    }
    report(test, &variants, built, jobs.len(), started);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cleanup(&dir);
}

/// A generated JSON document: an array of records with integers, floats (0.1 steps, which
/// print through jq's dtoa), strings with escapes and Unicode, nested objects and arrays.
fn json_input() -> Vec<u8> {
    let mut s = String::from("[");
    for i in 0..400u32 {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            r#"{{"id":{i},"name":"item-{}\t\u00e9\"{}","score":{}.{},"ratio":{},"tags":[{}],"meta":{{"even":{},"parent":{},"deep":{{"k":[{i},null,true]}}}}}}"#,
            i * 7919 % 1000,
            i % 13,
            i * 37 % 100,
            i % 10,
            (i as f64) / 7.0,
            (0..i % 4)
                .map(|t| format!("\"t{}\"", (i + t) % 5))
                .collect::<Vec<_>>()
                .join(","),
            i % 2 == 0,
            if i % 3 == 0 { "null".to_string() } else { (i / 3).to_string() },
        ));
    }
    s.push(']');
    s.into_bytes()
}

#[test]
fn jq_filters_behave_identically_after_import_export_and_passes() {
    let json = json_input();
    let runs = vec![
        Run {
            args: args(&[
                "-c",
                "map(select(.score > 50)) | sort_by(.name) | .[:15], (group_by(.tags | length) | map({n: length, s: (map(.score) | add)})), ([.[] | .ratio * 3 + 0.1] | .[:40]), (map(.meta.parent) | unique | length), ([paths(type == \"boolean\")] | length), (.[7] | to_entries | map(\"\\(.key)=\\(.value | tojson)\") | join(\"&\")), (.[3].name | @base64, @json, ascii_upcase, explode), (reduce .[] as $r ({}; .[$r.tags[0] // \"none\"] += 1)), ([limit(5; .[] | .id * .id)] | @csv), (.[:3] | tostream | select(length == 2) | .[0] | join(\".\")?), ([.[].score] | min, max, (add / length)), (.[9] | del(.meta) | keys_unsorted), ([range(0; 30)] | map(. * 1.5) | map(tostring) | join(\" \"))",
            ]),
            stdin: json.clone(),
            files: Vec::new(),
        },
        Run {
            args: args(&["-S", "--arg", "x", "fünf", ".[40:43] + [{x: $x, n: (1e300 * 10), m: -0.0, e: 1.5e-7}]"]),
            stdin: json.clone(),
            files: Vec::new(),
        },
        Run {
            args: args(&["."]),
            stdin: br#"{"a": [1, 2,, 3]}"#.to_vec(),
            files: Vec::new(),
        },
        Run {
            args: args(&[".[] | (.id +"]),
            stdin: json.clone(),
            files: Vec::new(),
        },
    ];
    workload(
        "jq",
        "jq_filters_behave_identically_after_import_export_and_passes",
        &runs,
        &[0, 0, 4, 3],
    );
}

/// A C file for tcc that makes its constant folder compute in long double (arithmetic,
/// comparisons, conversions to and from every integer width and to float and double), with
/// bitfields, VLAs and struct copies for its code generator.
fn tcc_input() -> String {
    let mut s = String::from(
        "struct bits { unsigned a : 3, b : 7; signed c : 5; long double x; };\n\
         typedef struct { long double re, im; } cplx;\n\
         static cplx mul(cplx p, cplx q) { cplx r = { p.re * q.re - p.im * q.im, p.re * q.im + p.im * q.re }; return r; }\n\
         int vla(int n) { int v[n]; for (int i = 0; i < n; i++) v[i] = i * i; return v[n - 1]; }\n\
         int use_bits(struct bits *b) { b->a = 5; b->c = -3; return b->a + b->b + b->c; }\n",
    );
    for i in 1..60u32 {
        s.push_str(&format!(
            "long double ld{i} = {i}.0L / 3.0L + {i}e-{}L * 7.25L - (long double){i}u;\n\
             double d{i} = (double)({i}.1L * {i}.1L);\n\
             float f{i} = (float)(1.0L / {i}.0L);\n\
             long long ll{i} = (long long)(1e18L / {i}.5L);\n\
             unsigned long long ull{i} = (unsigned long long)(18446744073709551615.0L / {i}.0L);\n\
             int cmp{i}(void) {{ return ({i}.0L / 7.0L > 0.14285714285714285714L * {i}) + 2 * ({i}.5L == {i}.5L); }}\n\
             struct bits b{i} = {{ {}, {}, {}, {i}.75L / 4 }};\n",
            i % 30 + 1,
            i % 8,
            i % 128,
            (i % 32) as i32 - 16
        ));
    }
    s.push_str("int main(void) { cplx a = { 1.5L, -2.0L }; cplx r = mul(a, a); return vla(5) + (int)r.re + use_bits(&b3); }\n");
    s
}

#[test]
fn tcc_compiles_identically_after_import_export_and_passes() {
    let runs = vec![
        Run {
            args: args(&["-nostdinc", "-c", "input.c", "-o", "{out}"]),
            stdin: Vec::new(),
            files: vec![("input.c".to_string(), tcc_input())],
        },
        Run {
            args: args(&["-nostdinc", "-E", "input.c"]),
            stdin: Vec::new(),
            files: vec![(
                "input.c".to_string(),
                "#define SQ(x) ((x) * (x))\n#define CAT(a, b) a ## b\n#if SQ(3) == 9 && defined(__STDC__)\nlong double CAT(x, 1) = SQ(1.5L);\n#else\n#error no\n#endif\n__LINE__ __FILE__ #stringify\n".to_string(),
            )],
        },
        Run {
            args: args(&["-nostdinc", "-c", "bad.c", "-o", "{out}"]),
            stdin: Vec::new(),
            files: vec![("bad.c".to_string(), "int f(void) { long double x = 1.0L; return x +; }\n".to_string())],
        },
    ];
    workload(
        "tcc",
        "tcc_compiles_identically_after_import_export_and_passes",
        &runs,
        &[0, 0, 1],
    );
}

/// Input files for xxhsum, one per XXH3 length class: empty, 3 bytes, 81, 171 and about
/// 589 kB (the streaming path and its SSE2 accumulator).
fn xxhash_files() -> Vec<(String, String)> {
    let lines = |n: u32| (1..=n).map(|i| format!("{i}\n")).collect::<String>();
    vec![
        ("e.txt".into(), String::new()),
        ("a.txt".into(), "abc".into()),
        ("b.txt".into(), lines(30)),
        ("c.txt".into(), lines(60)),
        ("d.txt".into(), lines(100_000)),
    ]
}

/// xxHash (SSE2 intrinsics, `restrict` in `always_inline` helpers, noalias scope metadata):
/// `xxhsum` with each algorithm over the files, checking a sum file, and its self-test.
/// The SSE2 helpers are skipped by import (vectors, README) and exported verbatim.
#[test]
fn xxhsum_behaves_identically_after_import_export_and_passes() {
    let files = xxhash_files();
    let names = ["e.txt", "a.txt", "b.txt", "c.txt", "d.txt"];
    let mut runs: Vec<Run> = (0..4)
        .map(|h| Run {
            args: [format!("-H{h}")]
                .into_iter()
                .chain(names.iter().map(|n| n.to_string()))
                .collect(),
            stdin: Vec::new(),
            files: files.clone(),
        })
        .collect();
    let mut with_sums = files.clone();
    with_sums.push((
        "sums".into(),
        "e3b98ee7fb2c3eec  a.txt\nbad0000000000000  b.txt\n".into(),
    ));
    runs.push(Run {
        args: args(&["-c", "sums"]),
        stdin: Vec::new(),
        files: with_sums,
    });
    workload(
        "xxhash",
        "xxhsum_behaves_identically_after_import_export_and_passes",
        &runs,
        &[0, 0, 0, 0, 1],
    );
}

/// A JSON document for Jansson: 2,000 objects with Unicode escapes (a surrogate pair),
/// reals with exponents, the extreme 64-bit integers and the smallest double.
fn jansson_input() -> Vec<u8> {
    let mut s = String::from(
        "{\"title\": \"jansson \\u00e9\\u4e2d\\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\t\", \"items\": [\n",
    );
    for i in 0..2000i64 {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            "{{\"id\": {i}, \"name\": \"item-{i}\", \"price\": {}.{:03}e{}, \"neg\": -{}, \
             \"flags\": [true, false, null, {}, \"t{}\"], \"nested\": {{\"a\": {{\"b\": [{}, {i}.5, [], {{}}]}}}}}}",
            (i * 37) % 1000,
            i % 1000,
            i % 21 - 10,
            i * 7919,
            i % 7,
            i % 13,
            i * i
        ));
    }
    s.push_str("\n], \"big\": 9223372036854775807, \"small\": -9223372036854775808, \"tiny\": 4.9e-324, \"count\": 2000}\n");
    s.into_bytes()
}

/// Jansson (read-modify-write atomics: `atomicrmw volatile` reference counts, `load`/`store
/// atomic`): its json_process driver parses and re-encodes a generated document compactly
/// and with indentation, sorted keys, ASCII escapes and a set real precision (through
/// environment variables the driver reads), and rejects malformed JSON.
#[test]
fn jansson_behaves_identically_after_import_export_and_passes() {
    let json = jansson_input();
    let run = |env: &[(&str, &str)], stdin: Vec<u8>| Run {
        // The driver reads its options from the environment.
        args: std::iter::once("--env".to_string())
            .chain(env.iter().map(|(k, v)| format!("ENV:{k}={v}")))
            .collect(),
        stdin,
        files: Vec::new(),
    };
    let runs = vec![
        run(&[], json.clone()),
        run(
            &[
                ("JSON_INDENT", "2"),
                ("JSON_SORT_KEYS", "1"),
                ("JSON_ENSURE_ASCII", "1"),
                ("JSON_REAL_PRECISION", "6"),
            ],
            json,
        ),
        run(&[], br#"{"a": [1, 2,, 3]}"#.to_vec()),
    ];
    workload(
        "jansson",
        "jansson_behaves_identically_after_import_export_and_passes",
        &runs,
        &[0, 0, 1],
    );
}

/// SQLite (the largest functions of the corpus: `sqlite3VdbeExec`, the Lemon parser's
/// `yy_reduce`; relaxed atomics): its shell runs a script of schema, a recursive CTE
/// inserting 4,000 rows, joins, window functions, JSON, date and string functions, output
/// modes, and an error on a missing table (status 1).
#[test]
fn sqlite_behaves_identically_after_import_export_and_passes() {
    let sql = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/sqlite_workload.sql"),
    )
    .unwrap();
    let runs = vec![Run {
        args: Vec::new(),
        stdin: sql,
        files: Vec::new(),
    }];
    workload(
        "sqlite",
        "sqlite_behaves_identically_after_import_export_and_passes",
        &runs,
        &[1],
    );
}
