//! Decode throughput of every embedded-set packing, in MB/s of SPIR-V out,
//! against the peers a user would pick instead, all in one run.
//!
//! `cargo bench -p smolv-build --bench bundle`
//!
//! Packs the shared corpus (`SMOLV_CORPUS_DIR`, else `../shared/corpus` next
//! to the repository: `spirv/**`, 280 modules) once per packing with
//! smolv-build itself (`Config::packing`), so that the bytes are the ones a
//! build ships, then decodes each through the path `include_shaders!`
//! expands to: `ShaderSet::embedded` over the set's data, dictionary and
//! directory table. A set packed as one stream is unpacked on its first
//! access and then cached by the set, so every timed run builds a *fresh*
//! set: a row's time is first access plus decoding every module, which is
//! what a program pays once at start.
//!
//! The peers decode the same SPIR-V, from the same build:
//! - copying the raw words (what embedding raw SPIR-V costs at most);
//! - raw SPIR-V + zstd -19 per module with a dictionary trained on the raw
//!   SPIR-V (`zstd --train`'s default size), decompressed with one reused
//!   `zstd::bulk::Decompressor`: what a user does without SMOL-V;
//! - raw SPIR-V + LZ4 HC level 12 per module (liblz4, as smolv-build packs),
//!   decompressed with `lz4_flex`'s safe block decoder.
//!
//! Rows run interleaved, one run of each per round, so that a change in the
//! machine's load shifts every row alike; each row reports its median. Every
//! row's output is compared with the raw SPIR-V before anything is timed.
//!
//! Without the corpus it says so and exits 0, or fails when `CI` is set.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use smolv_build::{Config, Framing, Optimization, Packing};
use smolv_runtime::__private::{
    EmbeddedEntry, EmbeddedSet, RAW, RELATIVE_IDS, RELATIVE_IDS_LZ4, SMOLV, SMOLV_LZ4, SMOLV_ZSTD,
    SMOLV_ZSTD_DICTIONARY, Unpacker, leaked_embedded_set,
};
use smolv_runtime::ShaderSet;

/// Every packing of the embedded-set format (`docs/format.md`).
const PACKINGS: [(&str, Packing); 10] = [
    ("raw SPIR-V", Packing::Raw),
    ("relative ids", Packing::RelativeIds),
    ("relative-ids-lz4, per module", Packing::RelativeIdsLz4 { framing: Framing::PerModule }),
    ("relative-ids-lz4, one stream", Packing::RelativeIdsLz4 { framing: Framing::Stream }),
    ("smolv", Packing::Smolv),
    ("smolv-lz4, per module", Packing::Lz4 { framing: Framing::PerModule }),
    ("smolv-lz4, one stream", Packing::Lz4 { framing: Framing::Stream }),
    ("smolv-zstd, per module", Packing::Zstd { framing: Framing::PerModule }),
    ("smolv-zstd, one stream", Packing::Zstd { framing: Framing::Stream }),
    ("smolv-zstd-dictionary", Packing::ZstdDictionary),
];

/// Rounds after the checking one: enough for a stable median. Each run of a
/// stream row leaks its unpacked stream (an embedded set is a `static` and
/// keeps it for the program's life), about 1.5 MB here, so this also bounds
/// what the bench holds.
const MAX_ROUNDS: usize = 31;
const MIN_ROUNDS: usize = 5;
/// Time for the timed rounds; with the packing builds (warm: a few seconds)
/// the bench stays well under a minute.
const BUDGET: Duration = Duration::from_secs(25);

/// The dictionary size `zstd --train` writes by default (110 KiB), which a
/// user without SMOL-V would take.
const PEER_DICTIONARY: usize = 112_640;

#[allow(clippy::disallowed_methods, reason = "SMOLV_CORPUS_DIR, where the corpus is")]
fn corpus() -> Option<PathBuf> {
    let root = std::env::var_os("SMOLV_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let spirv = root.join("spirv");
    spirv.is_dir().then_some(spirv)
}

/// smolv-build's cache in this target directory (Cargo marks it with
/// `CACHEDIR.TAG`), so that only the first run pays for LZ4 HC and zstd -19.
fn cache_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().find(|dir| dir.join("CACHEDIR.TAG").is_file()).map(|target| target.join("smolv-cache"))
}

/// An embedded set as `include_shaders!` embeds it: the directory turned
/// into the macro's table, every buffer leaked to `'static` as the macro's
/// statics are.
struct Embedded {
    unpacker: &'static Unpacker,
    data: &'static [u8],
    dictionary: &'static [u8],
    names: &'static str,
    entries: &'static [EmbeddedEntry],
    /// What the set unpacks once (a stream or a dictionary): length and check.
    once: (u32, u32),
    /// Each module's (offset, length) in `data`: for the raw set, its SPIR-V.
    ranges: Vec<(usize, usize)>,
}

impl Embedded {
    fn fresh(&self) -> ShaderSet {
        leaked_embedded_set(EmbeddedSet::new(
            self.unpacker,
            self.data,
            self.dictionary,
            self.names,
            self.entries,
            self.once,
        ))
    }
}

/// Builds the corpus with `packing` and reads back what the macros would
/// embed (`OUT_DIR/smolv/embedded/`).
fn build(corpus: &Path, out: &Path, packing: Packing) -> Embedded {
    let mut config = Config::new();
    config
        .shader_dir(corpus)
        .out_dir(out)
        .cargo_directives(false)
        .strip_debug(true)
        .optimization(Optimization::None)
        .packing(packing);
    if let Some(cache) = cache_dir() {
        config.cache_dir(cache);
    }
    let report = config.try_compile().unwrap_or_else(|e| panic!("building {}: {e}", packing.name()));
    let report = report.packing.expect("a packing report");
    assert_eq!(report.packing, packing.name(), "smolv-build did not pack as forced");
    let codec = report.codec;
    let dir = out.join("smolv/embedded");
    let leak = |name: &str| -> &'static [u8] { std::fs::read(dir.join(name)).unwrap_or_default().leak() };
    let directory = leak("set.smvd");
    assert!(directory.len() >= 20 && &directory[..5] == b"SMVD\x01", "{}: not an SMVD v1 directory", packing.name());
    let u32_at = |at: usize| u32::from_le_bytes(directory[at..at + 4].try_into().unwrap());
    let (mut names, mut entries, mut ranges) = (String::new(), Vec::new(), Vec::new());
    let mut at = 20;
    for _ in 0..u32_at(8) {
        // offset, packed length, unpacked length, SPIR-V length, check; then
        // the name's length, the name, and padding to 4.
        let field = |i: usize| u32_at(at + 4 * i);
        let name_len = usize::from(u16::from_le_bytes(directory[at + 20..at + 22].try_into().unwrap()));
        names.push_str(std::str::from_utf8(&directory[at + 22..at + 22 + name_len]).unwrap());
        let name_end = u32::try_from(names.len()).unwrap();
        entries.push(EmbeddedEntry::new(name_end, field(0), field(1), field(2), field(3), field(4)));
        ranges.push((usize::try_from(field(0)).unwrap(), usize::try_from(field(1)).unwrap()));
        at = (at + 22 + name_len).next_multiple_of(4);
    }
    assert_eq!(at, directory.len(), "{}: trailing bytes after the directory", packing.name());
    let unpacker = match codec.as_str() {
        "spirv" => &RAW,
        "spirv-relative-ids" => &RELATIVE_IDS,
        "spirv-relative-ids-lz4" => &RELATIVE_IDS_LZ4,
        "smolv" => &SMOLV,
        "smolv-lz4" => &SMOLV_LZ4,
        "smolv-zstd" => &SMOLV_ZSTD,
        "smolv-zstd-dictionary" => &SMOLV_ZSTD_DICTIONARY,
        other => panic!("unknown codec {other}"),
    };
    Embedded {
        unpacker,
        data: leak("set.data"),
        dictionary: leak("set.zdict"),
        names: names.leak(),
        entries: entries.leak(),
        once: (u32_at(12), u32_at(16)),
        ranges,
    }
}

/// One run of a row: how long its first access took (zero for the peers,
/// which have none) and the whole run.
#[derive(Clone, Copy)]
struct Sample {
    first_access: Duration,
    total: Duration,
}

/// A row's run. Given a sink, it also hands over every module's output as
/// little-endian bytes, for the check before timing; timed runs pass none.
type Run = Box<dyn FnMut(Option<&mut Vec<Vec<u8>>>) -> Sample>;

struct Row {
    name: String,
    /// Data plus dictionary: what the payload costs, counted alike for
    /// every row (the packings' names and tables are printed apart).
    stored: usize,
    run: Run,
    samples: Vec<Sample>,
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A packing's row: a fresh set, its first access, then every module
/// decoded (and xxHash32-checked) into one reused buffer.
fn packing_row(name: &str, set: Embedded) -> Row {
    let stored = set.data.len() + set.dictionary.len();
    let mut out = Vec::new();
    let run = move |mut sink: Option<&mut Vec<Vec<u8>>>| {
        let start = Instant::now();
        let fresh = set.fresh();
        let shaders = fresh.shaders();
        let first_access = start.elapsed();
        for shader in shaders {
            shader.decode_into(&mut out).expect("decode");
            black_box(&out);
            if let Some(sink) = sink.as_deref_mut() {
                sink.push(le_bytes(&out));
            }
        }
        let total = start.elapsed();
        drop(fresh);
        Sample { first_access, total }
    };
    Row { name: name.to_owned(), stored, run: Box::new(run), samples: Vec::new() }
}

/// The peers, on the raw set's modules (`spirv`, little-endian bytes).
fn peer_rows(spirv: &'static [Vec<u8>]) -> Vec<Row> {
    let total: usize = spirv.iter().map(Vec::len).sum();
    let words: &'static [Vec<u32>] = spirv
        .iter()
        .map(|m| m.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
        .collect::<Vec<_>>()
        .leak();
    let mut rows = Vec::new();

    let mut out: Vec<u32> = Vec::new();
    let copy = move |mut sink: Option<&mut Vec<Vec<u8>>>| {
        let start = Instant::now();
        for module in words {
            out.clear();
            out.extend_from_slice(module);
            black_box(&out);
            if let Some(sink) = sink.as_deref_mut() {
                sink.push(le_bytes(&out));
            }
        }
        Sample { first_access: Duration::ZERO, total: start.elapsed() }
    };
    rows.push(Row { name: "peer: copy raw SPIR-V".into(), stored: total, run: Box::new(copy), samples: Vec::new() });

    // Both peers write bytes into a reused `Vec<u8>`, which a program would
    // still have to turn into aligned words for Vulkan: that favours them.
    let dictionary = zstd::dict::from_samples(spirv, PEER_DICTIONARY).expect("zstd dictionary training");
    let mut compressor = zstd::bulk::Compressor::with_dictionary(19, &dictionary).unwrap();
    let packed: Vec<Vec<u8>> = spirv.iter().map(|m| compressor.compress(m).unwrap()).collect();
    let stored = packed.iter().map(Vec::len).sum::<usize>() + dictionary.len();
    let mut dctx = zstd::bulk::Decompressor::with_dictionary(&dictionary).unwrap();
    let mut out: Vec<u8> = Vec::new();
    let zstd_peer = move |mut sink: Option<&mut Vec<Vec<u8>>>| {
        let start = Instant::now();
        for (frame, raw) in packed.iter().zip(spirv) {
            out.clear();
            out.reserve(raw.len());
            let len = dctx.decompress_to_buffer(frame, &mut out).expect("zstd");
            assert_eq!(len, raw.len());
            black_box(&out);
            if let Some(sink) = sink.as_deref_mut() {
                sink.push(out.clone());
            }
        }
        Sample { first_access: Duration::ZERO, total: start.elapsed() }
    };
    let name = format!("peer: raw + zstd -19 + {} KiB dict", dictionary.len() >> 10);
    rows.push(Row { name, stored, run: Box::new(zstd_peer), samples: Vec::new() });

    let hc = Some(lz4::block::CompressionMode::HIGHCOMPRESSION(12));
    let packed: Vec<Vec<u8>> = spirv.iter().map(|m| lz4::block::compress(m, hc, false).unwrap()).collect();
    let stored = packed.iter().map(Vec::len).sum();
    let mut out: Vec<u8> = Vec::new();
    let lz4_peer = move |mut sink: Option<&mut Vec<Vec<u8>>>| {
        let start = Instant::now();
        for (block, raw) in packed.iter().zip(spirv) {
            // Growing only zero-fills the new part; shrinking is free.
            out.resize(raw.len(), 0);
            let len = lz4_flex::block::decompress_into(block, &mut out).expect("lz4");
            assert_eq!(len, raw.len());
            black_box(&out);
            if let Some(sink) = sink.as_deref_mut() {
                sink.push(out.clone());
            }
        }
        Sample { first_access: Duration::ZERO, total: start.elapsed() }
    };
    rows.push(Row { name: "peer: raw + LZ4 HC 12".into(), stored, run: Box::new(lz4_peer), samples: Vec::new() });
    rows
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

#[allow(clippy::disallowed_methods, reason = "CI, which must have every tool")]
fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(corpus) = corpus() else {
        let message =
            "bundle bench: the SMOL-V corpus is missing (set SMOLV_CORPUS_DIR, or put it in ../shared/corpus)";
        assert!(std::env::var_os("CI").is_none(), "{message}; CI must have it");
        println!("{message}; nothing measured");
        return;
    };

    let started = Instant::now();
    let out = tempfile::tempdir().expect("a temporary directory");
    let sets: Vec<(&str, Embedded)> = PACKINGS
        .iter()
        .enumerate()
        .map(|(i, &(name, packing))| (name, build(&corpus, &out.path().join(i.to_string()), packing)))
        .collect();
    let built = started.elapsed();

    // The reference: the raw set's SPIR-V, read straight from its data.
    let raw = &sets[0].1;
    let spirv: &'static [Vec<u8>] =
        raw.ranges.iter().map(|&(at, len)| raw.data[at..at + len].to_vec()).collect::<Vec<_>>().leak();
    let spirv_len: usize = spirv.iter().map(Vec::len).sum();
    let tables = raw.names.len() + size_of_val(raw.entries);

    let mut rows: Vec<Row> = sets.into_iter().map(|(name, set)| packing_row(name, set)).collect();
    rows.extend(peer_rows(spirv));

    for row in &mut rows {
        let mut decoded = Vec::new();
        (row.run)(Some(&mut decoded));
        assert!(decoded == spirv, "{} does not decode to the raw set's words", row.name);
    }

    let timing = Instant::now();
    let mut rounds = 0;
    while rounds < MIN_ROUNDS || (rounds < MAX_ROUNDS && timing.elapsed() < BUDGET) {
        for row in &mut rows {
            let sample = (row.run)(None);
            row.samples.push(sample);
        }
        rounds += 1;
    }

    println!(
        "bundle bench: {} modules of {}, {spirv_len} B of SPIR-V (debug info stripped by smolv-build, not re-optimized)",
        spirv.len(),
        std::fs::canonicalize(&corpus).unwrap_or(corpus).display()
    );
    println!("  MB/s = bytes of SPIR-V out / a run's time, median of {rounds} rounds that run every row in turn;");
    println!("  before timing, every row was checked to decode to exactly the raw set's words");
    println!("  packings: smolv-build's bytes, decoded through ShaderSet::embedded as include_shaders! expands;");
    println!("    each run = a fresh set (first access unpacks a stream) + every module decoded into one reused");
    println!("    Vec<u32> with its xxHash32 check (raw: copied, magic checked)");
    println!("  peers: the same SPIR-V, one reused context and buffer, no check");
    // smolv-build compresses with the full zstd, and Cargo builds one zstd
    // for the bench's whole graph: the runtime's `zstd-fast`.
    println!("  zstd build, packings and peer alike: fast (`zstd-fast`; a game's default `zstd` is the thin build)");
    println!("  stored = data + dictionary; the packings also carry {tables} B of names and tables");
    println!("  packing builds took {:.1} s (cached in the target directory after the first run)", built.as_secs_f64());
    println!();
    println!("  {:<36} {:>10} {:>8} {:>14} {:>12}", "row", "stored B", "of raw", "first access", "MB/s out");
    for row in &rows {
        let total = median(row.samples.iter().map(|s| s.total).collect());
        let first = median(row.samples.iter().map(|s| s.first_access).collect());
        let first =
            if row.name.starts_with("peer") { "-".to_owned() } else { format!("{:.3} ms", first.as_secs_f64() * 1e3) };
        println!(
            "  {:<36} {:>10} {:>7.1}% {:>14} {:>12.0}",
            row.name,
            row.stored,
            100.0 * row.stored as f64 / spirv_len as f64,
            first,
            spirv_len as f64 / total.as_secs_f64() / 1e6
        );
    }
}
