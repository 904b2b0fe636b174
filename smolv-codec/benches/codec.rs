//! Codec throughput over the shared corpus, with peers measured in the same run.
//!
//! `cargo bench -p smolv-codec --bench codec`
//!
//! Reads every module in `../shared/corpus/spirv` (or `SMOLV_CORPUS_DIR`);
//! without the corpus it falls back to `.spv` files under `SMOLV_BENCH_DIR`,
//! and then to a synthetic module set. Reports encode and decode throughput
//! in MB/s of SPIR-V, next to `memcpy` of the same bytes and zstd
//! decompression of the same SPIR-V, then prints the ratios. It measures
//! no C++ code: the one comparison with the C++ reference it prints is
//! labelled as quoted.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use smolv_codec::{DecodeOptions, EncodeOptions, decode_into, encode_into};

struct Workload {
    source: String,
    spirv: Vec<Vec<u32>>,
    smolv: Vec<Vec<u8>>,
    zstd: Vec<Vec<u8>>,
    total_bytes: usize,
}

impl Workload {
    fn load() -> Self {
        let (source, files) = find_spirv();
        let spirv: Vec<Vec<u32>> =
            files.into_iter().filter(|w| smolv_codec::encode(&w[..], &EncodeOptions::new()).is_ok()).collect();
        let smolv = spirv.iter().map(|w| smolv_codec::encode(&w[..], &EncodeOptions::new()).unwrap()).collect();
        let zstd = spirv.iter().map(|w| zstd::bulk::compress(&to_bytes(w), 19).unwrap()).collect();
        let total_bytes = spirv.iter().map(|w| w.len() * 4).sum();
        Self { source, spirv, smolv, zstd, total_bytes }
    }

    fn encode_all(&self, out: &mut Vec<u8>) {
        for module in &self.spirv {
            out.clear();
            encode_into(&module[..], &EncodeOptions::new(), out).unwrap();
            black_box(&out);
        }
    }

    fn decode_all(&self, out: &mut Vec<u32>) {
        for blob in &self.smolv {
            decode_into(blob, out, &DecodeOptions::new()).unwrap();
            black_box(&out);
        }
    }

    fn memcpy_all(&self, out: &mut Vec<u32>) {
        for module in &self.spirv {
            out.clear();
            out.extend_from_slice(module);
            black_box(&out);
        }
    }

    fn zstd_decompress_all(&self, decompressor: &mut zstd::bulk::Decompressor<'_>, out: &mut Vec<u8>) {
        for (blob, module) in self.zstd.iter().zip(&self.spirv) {
            out.clear();
            decompressor.decompress_to_buffer(blob, out).unwrap();
            debug_assert_eq!(out.len(), module.len() * 4);
            black_box(&out);
        }
    }
}

fn main() {
    let workload = Workload::load();
    eprintln!(
        "codec bench: {} modules, {:.2} MB of SPIR-V from {}",
        workload.spirv.len(),
        workload.total_bytes as f64 / 1e6,
        workload.source
    );
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("codec");
    group.throughput(Throughput::Bytes(workload.total_bytes as u64));
    let mut bytes_out = Vec::with_capacity(workload.total_bytes);
    let mut words_out = Vec::with_capacity(workload.total_bytes / 4);
    group.bench_function("encode", |b| b.iter(|| workload.encode_all(&mut bytes_out)));
    group.bench_function("decode", |b| b.iter(|| workload.decode_all(&mut words_out)));
    group.bench_function("memcpy (peer)", |b| b.iter(|| workload.memcpy_all(&mut words_out)));
    let mut decompressor = zstd::bulk::Decompressor::new().unwrap();
    group.bench_function("zstd -19 decompress (peer)", |b| {
        b.iter(|| workload.zstd_decompress_all(&mut decompressor, &mut bytes_out))
    });
    group.finish();
    criterion.final_summary();

    print_ratios(&workload);
}

/// Times each operation again, interleaved, and prints MB/s and the ratios
/// against the peers, so the comparison comes from one run on one machine.
fn print_ratios(workload: &Workload) {
    let mut bytes_out = Vec::with_capacity(workload.total_bytes);
    let mut words_out = Vec::with_capacity(workload.total_bytes / 4);
    let mut decompressor = zstd::bulk::Decompressor::new().unwrap();
    let mut best = [Duration::MAX; 4];
    let deadline = Instant::now() + Duration::from_secs(4);
    while Instant::now() < deadline {
        for (which, slot) in best.iter_mut().enumerate() {
            let start = Instant::now();
            match which {
                0 => workload.encode_all(&mut bytes_out),
                1 => workload.decode_all(&mut words_out),
                2 => workload.memcpy_all(&mut words_out),
                _ => workload.zstd_decompress_all(&mut decompressor, &mut bytes_out),
            }
            *slot = (*slot).min(start.elapsed());
        }
    }
    let mbps = |d: Duration| workload.total_bytes as f64 / d.as_secs_f64() / 1e6;
    let [encode, decode, memcpy, zstd] = best.map(mbps);
    println!();
    println!("SMOL-V codec, single thread, best of repeated passes over {} modules:", workload.spirv.len());
    println!("  {:<28} {:>10.0} MB/s", "encode (SPIR-V in)", encode);
    println!("  {:<28} {:>10.0} MB/s", "decode (SPIR-V out)", decode);
    println!("  {:<28} {:>10.0} MB/s", "memcpy (peer)", memcpy);
    println!("  {:<28} {:>10.0} MB/s", "zstd -19 decompress (peer)", zstd);
    println!("  encode / memcpy:           {:.3}", encode / memcpy);
    println!("  decode / memcpy:           {:.3}", decode / memcpy);
    println!("  decode / zstd decompress:  {:.2}", decode / zstd);
    println!("  targets: decode >= 1500 MB/s, encode >= 1100 MB/s");
    println!(
        "  quoted, not measured here: measured by hand on this corpus, back to back on one machine, \
         the Rust codec encodes at 1.60× and decodes at 1.24× the C++ reference (g++ -O2; docs/benchmarks.md)"
    );
}

#[allow(clippy::disallowed_methods, reason = "the benchmark's own knobs")]
fn find_spirv() -> (String, Vec<Vec<u32>>) {
    let corpus = std::env::var_os("SMOLV_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let mut dirs = vec![corpus.join("spirv")];
    if let Some(dir) = std::env::var_os("SMOLV_BENCH_DIR") {
        dirs.push(PathBuf::from(dir));
    }
    for dir in dirs {
        let modules = spirv_files_under(&dir);
        if !modules.is_empty() {
            return (dir.display().to_string(), modules);
        }
    }
    ("a synthetic module set (no corpus found)".to_owned(), synthetic_modules())
}

fn spirv_files_under(dir: &Path) -> Vec<Vec<u32>> {
    let mut modules = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.len().is_multiple_of(4)
                && bytes.starts_with(&0x0723_0203u32.to_le_bytes())
            {
                modules.push(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect());
            }
        }
    }
    modules
}

/// Grows the documentation module with many typed arithmetic instructions,
/// so that the fallback still exercises the common instruction shapes.
fn synthetic_modules() -> Vec<Vec<u32>> {
    (0..64)
        .map(|seed| {
            let mut module = smolv_codec::doc_example_module();
            let body_end = module.len() - 2; // before OpReturn, OpFunctionEnd
            let mut extra = Vec::new();
            for i in 0..(500 + seed * 20) {
                // %id = OpIAdd %void %4 %4 (shape only; the codec does not type-check)
                extra.extend_from_slice(&[0x0005_0080, 2, 100 + i, 4, 4]);
            }
            module[3] = 100 + 500 + seed * 20 + 1; // id bound
            module.splice(body_end..body_end, extra);
            module
        })
        .collect()
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
