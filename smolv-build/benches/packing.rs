//! The packing step on real SPIR-V: every candidate packing's stored bytes
//! and its size after `xz -9`, for the shared corpus (280 modules) and a
//! subset of about 74 KB, the step's time cold and warm, and how fast each
//! packing decodes at run time (MB/s of SPIR-V out, through the same
//! embedded-set path `include_shaders!` uses) against the peers a user
//! would pick instead: copying raw SPIR-V, and zstd -19 with a dictionary
//! trained on the raw SPIR-V.
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

use smolv_build::{Config, Optimization, Packing, PackingReport, SizeGoal};
use smolv_runtime::__private::{EmbeddedEntry, RAW, SMOLV, SMOLV_LZ4, SMOLV_ZSTD, SMOLV_ZSTD_DICTIONARY, Unpacker};
use smolv_runtime::ShaderSet;

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

/// An embedded set as the macros would embed it, from a build's files:
/// the directory parsed into the table `include_shaders!` generates.
struct Embedded {
    unpacker: &'static Unpacker,
    data: &'static [u8],
    dictionary: &'static [u8],
    names: &'static str,
    entries: &'static [EmbeddedEntry],
    stream: (u32, u32),
}

fn read_embedded(out: &Path, codec: &str) -> Embedded {
    let dir = out.join("smolv/embedded");
    let leak = |path: PathBuf| -> &'static [u8] { std::fs::read(path).unwrap_or_default().leak() };
    let directory = leak(dir.join("set.smvd"));
    let u32_at = |at: usize| u32::from_le_bytes(directory[at..at + 4].try_into().unwrap());
    let mut names = String::new();
    let mut entries = Vec::new();
    let mut at = 20;
    for _ in 0..u32_at(8) {
        let name_len = usize::from(u16::from_le_bytes(directory[at + 20..at + 22].try_into().unwrap()));
        names.push_str(std::str::from_utf8(&directory[at + 22..at + 22 + name_len]).unwrap());
        let field = |i: usize| u32_at(at + 4 * i);
        let name_end = u32::try_from(names.len()).unwrap();
        entries.push(EmbeddedEntry::new(name_end, field(0), field(1), field(2), field(3), field(4)));
        at = (at + 22 + name_len).next_multiple_of(4);
    }
    let unpacker = match codec {
        "spirv" => &RAW,
        "smolv" => &SMOLV,
        "smolv-lz4" => &SMOLV_LZ4,
        "smolv-zstd" => &SMOLV_ZSTD,
        _ => &SMOLV_ZSTD_DICTIONARY,
    };
    Embedded {
        unpacker,
        data: leak(dir.join("set.data")),
        dictionary: leak(dir.join("set.zdict")),
        names: names.leak(),
        entries: entries.leak(),
        stream: (u32_at(12), u32_at(16)),
    }
}

/// The median of `run`'s times over about a second (at least 5 runs).
fn median(mut run: impl FnMut()) -> Duration {
    let mut times = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(1);
    while times.len() < 5 || Instant::now() < deadline {
        let start = Instant::now();
        run();
        times.push(start.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn decode_speed(name: &str, set: &Set) {
    println!("\n{name}: decode speed, MB/s of SPIR-V out (a fresh set each run: first access, then every shader)");
    println!("  {:<22} {:>10} {:>10}", "packing", "stored", "MB/s");
    let dir = tempfile::tempdir().unwrap();
    let mut reference: Option<Vec<Vec<u32>>> = None;
    for packing in Packing::NAMES.iter().filter(|&&p| p != "auto") {
        let out = dir.path().join(packing);
        let mut config = config(set, &out, Optimization::None, SizeGoal::Installed);
        config.cache_dir(dir.path().join("cache")).packing(Packing::parse(packing).unwrap());
        let report = config.try_compile().expect("build").packing.expect("a packing report");
        let e = read_embedded(&out, &report.codec);
        let fresh = || ShaderSet::embedded(e.unpacker, e.data, e.dictionary, e.names, e.entries, e.stream);
        let modules: Vec<Vec<u32>> = fresh().shaders().unwrap().iter().map(|s| s.decode().unwrap()).collect();
        let spirv: usize = modules.iter().map(|m| m.len() * 4).sum();
        match &reference {
            None => reference = Some(modules),
            Some(reference) => assert_eq!(reference, &modules, "{packing} decodes to other words"),
        }
        // A stream set unpacks once per set and keeps the stream for the
        // program's life, so each fresh set here leaks one stream.
        let time = median(|| {
            let set = fresh();
            for shader in set.shaders().unwrap() {
                std::hint::black_box(shader.decode().unwrap());
            }
        });
        println!("  {:<22} {:>10} {:>10.0}", packing, report.stored_bytes, spirv as f64 / time.as_secs_f64() / 1e6);
    }
    // The peers, on the same modules.
    let modules = reference.unwrap();
    let spirv: usize = modules.iter().map(|m| m.len() * 4).sum();
    let bytes: Vec<Vec<u8>> = modules.iter().map(|m| m.iter().flat_map(|w| w.to_le_bytes()).collect()).collect();
    let time = median(|| {
        for module in &modules {
            std::hint::black_box(module.clone());
        }
    });
    println!("  {:<22} {:>10} {:>10.0}", "peer: raw SPIR-V copy", spirv, spirv as f64 / time.as_secs_f64() / 1e6);
    let dictionary = zstd::dict::from_samples(&bytes, 110 << 10).unwrap();
    let mut compressor = zstd::bulk::Compressor::with_dictionary(19, &dictionary).unwrap();
    let packed: Vec<Vec<u8>> = bytes.iter().map(|b| compressor.compress(b).unwrap()).collect();
    let stored = packed.iter().map(Vec::len).sum::<usize>() + dictionary.len();
    let mut decompressor = zstd::bulk::Decompressor::with_dictionary(&dictionary).unwrap();
    let time = median(|| {
        for (module, raw) in packed.iter().zip(&bytes) {
            std::hint::black_box(decompressor.decompress(module, raw.len()).unwrap());
        }
    });
    println!("  {:<22} {:>10} {:>10.0}", "peer: zstd -19 + dict", stored, spirv as f64 / time.as_secs_f64() / 1e6);
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
    for (name, set) in &sets {
        decode_speed(name, set);
    }
}
