//! The packing step on real SPIR-V: every candidate packing's stored bytes
//! and its size after `xz -9`, for the shared corpus (280 modules) and a
//! subset of about 74 KB, and the step's time cold and warm.
//!
//! `cargo bench -p smolv-build --bench packing`
//!
//! Reads the corpus from `SMOLV_CORPUS_DIR`, else `../shared/corpus` next to
//! the repository. Sizes are of the optimized (`spirv-opt -Os`, when
//! installed), stripped modules, as a release build ships them; raw SPIR-V
//! is the peer every packing is compared with. Times are of builds of the
//! unoptimized modules, where the packing step (SMOL-V, LZ4 HC, zstd -19,
//! dictionary training, xz estimates) is nearly all the work: cold with an
//! empty cache, warm with the same cache again.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use smolv_build::report::PackingReport;
use smolv_build::{Config, Optimization, SizeGoal};

#[allow(clippy::disallowed_methods, reason = "SMOLV_CORPUS_DIR, where the corpus is")]
fn corpus() -> Option<PathBuf> {
    let root = std::env::var_os("SMOLV_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let spirv = root.join("spirv");
    spirv.is_dir().then_some(spirv)
}

/// Unity's smallest modules, until they add up to `bytes` of SPIR-V.
fn subset(corpus: &Path, bytes: u64) -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(corpus.join("unity"))
        .unwrap()
        .flatten()
        .map(|e| (e.metadata().unwrap().len(), e.path()))
        .collect();
    files.sort();
    let mut total = 0;
    files
        .into_iter()
        .take_while(|(len, _)| {
            let more = total < bytes;
            total += len;
            more
        })
        .map(|(_, path)| path)
        .collect()
}

enum Set {
    Dir(PathBuf),
    Files(Vec<PathBuf>),
}

fn config(set: &Set, out: &Path, optimization: Optimization, goal: SizeGoal) -> Config {
    let mut config = Config::new();
    config
        .out_dir(out)
        .cache_dir(out.join("cache"))
        .cargo_directives(false)
        .strip_debug(true)
        .optimization(optimization)
        .size_goal(goal);
    match set {
        Set::Dir(dir) => {
            config.shader_dir(dir);
        }
        Set::Files(files) => files.iter().for_each(|file| {
            config.shader(file);
        }),
    }
    config
}

fn timed(config: &Config) -> (Duration, PackingReport) {
    let start = Instant::now();
    let report = config.try_compile().expect("build");
    (start.elapsed(), report.packing.expect("a packing report"))
}

fn sizes(name: &str, set: &Set) {
    let dir = tempfile::tempdir().unwrap();
    let (_, packing) = timed(&config(set, dir.path(), Optimization::Size, SizeGoal::Download));
    println!("\n{name}: {} B of optimized, stripped SPIR-V", packing.spirv_bytes);
    println!(
        "  {:<16} {:>10} {:>10} {:>10} {:>14} {:>14}",
        "packing", "stored", "xz -9", "decoder", "installed tot.", "download tot."
    );
    for c in &packing.candidates {
        println!(
            "  {:<16} {:>10} {:>10} {:>10} {:>14} {:>14}",
            c.packing,
            c.stored_bytes,
            c.stored_xz_bytes.unwrap_or(0),
            c.decoder_bytes,
            c.installed_bytes,
            c.download_bytes.unwrap_or(0)
        );
    }
    let installed = packing.candidates.iter().min_by_key(|c| c.installed_bytes).map_or("?", |c| c.packing.as_str());
    println!("  chosen: installed goal {installed}, download goal {}", packing.packing);
}

fn times(name: &str, set: &Set) {
    for goal in [SizeGoal::Installed, SizeGoal::Download] {
        let dir = tempfile::tempdir().unwrap();
        let config = config(set, dir.path(), Optimization::None, goal);
        let (cold, packing) = timed(&config);
        let (warm, _) = timed(&config);
        println!(
            "{name}, goal {}: cold build {:.2} s, warm {:.3} s ({}); {}",
            goal.name(),
            cold.as_secs_f64(),
            warm.as_secs_f64(),
            packing.packing,
            packing.summary()
        );
    }
}

fn main() {
    let Some(corpus) = corpus() else {
        println!("packing bench: the SMOL-V corpus is missing; set SMOLV_CORPUS_DIR");
        return;
    };
    let sets = [
        ("74 KB subset (unity)", Set::Files(subset(&corpus, 88_000))),
        ("corpus (280 modules)", Set::Dir(corpus.clone())),
    ];
    for (name, set) in &sets {
        sizes(name, set);
    }
    println!();
    for (name, set) in &sets {
        times(name, set);
    }
}
