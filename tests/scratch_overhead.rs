use std::sync::Arc;
use std::time::Instant;
use strata::engine::{world, Engine, PassSet, PipelineConfig};
use strata::fuzzing::generate::{seeded, GenOptions};
use strata::ir::SymbolTable;

#[test]
#[ignore]
fn breakdown() {
    let opts = GenOptions::default();
    let f = (0..10_000u64)
        .map(|i| seeded(i, &opts))
        .min_by_key(|f| (f.live_inst_count() as i64 - 100).abs())
        .unwrap();
    println!(
        "blocks {} insts {} values {}",
        f.blocks.len(),
        f.insts.len(),
        f.values.len()
    );
    let symbols = Arc::new(SymbolTable::default());
    let mut e = Engine::new(PipelineConfig::new(PassSet::empty()));
    let n = 20000;
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(f.clone());
    }
    println!("clone {:?}", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n {
        world::load_function(e.world_mut(), f.clone(), &symbols);
        std::hint::black_box(world::take_function(e.world_mut()));
    }
    println!("clone+load+take {:?}", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(e.run(f.clone(), &symbols));
    }
    println!("run {:?}", t.elapsed() / n);
    let mut sched = strata::engine::build_schedule(e.world_mut());
    let t = Instant::now();
    for _ in 0..n {
        sched.run(e.world_mut());
    }
    println!("schedule.run on empty world {:?}", t.elapsed() / n);
}

#[test]
#[ignore]
fn parse_speed() {
    let opts = GenOptions::default();
    let mut m = strata::ir::ModuleBuilder::new();
    let fs: Vec<_> = (0..2000u64)
        .map(|i| {
            let mut f = seeded(i, &opts);
            f.name = format!("g{i}");
            f
        })
        .collect();
    for f in &fs {
        m.declare_function(&f.name, f.signature.clone());
    }
    for f in fs {
        m.define_function(f);
    }
    let m = m.finish();
    let t = Instant::now();
    let text = strata::text::print_module(&m);
    println!("print {:?} ({} bytes)", t.elapsed(), text.len());
    let t = Instant::now();
    let toks = strata::text::lexer::tokenize(&text, "x");
    println!("lex {:?} ok={}", t.elapsed(), toks.is_ok());
    let t = Instant::now();
    let p = strata::text::parse_module(&text, "x").unwrap();
    let n: usize = p.functions.iter().map(|f| f.live_inst_count()).sum();
    println!(
        "parse {:?} {} insts, {:.2} M/s",
        t.elapsed(),
        n,
        n as f64 / t.elapsed().as_secs_f64() / 1e6
    );
}
