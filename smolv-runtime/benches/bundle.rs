//! Bundle decode throughput and per-shader latency, against zstd alone.
//!
//! `cargo bench -p smolv-runtime --bench bundle`
//!
//! Packs every module of `../shared/corpus/spirv` (or a synthetic set) into
//! one bundle the way smolv-build does (SMOL-V, zstd -19, a shared
//! dictionary), then measures in the same run:
//! - decoding the whole bundle, in MB of SPIR-V per second, with and
//!   without the content-hash check;
//! - p50 and p99 latency of decoding the smallest and the largest shader;
//! - zstd decompression of the same payloads alone (the peer).
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use smolv_runtime::ShaderSet;
use smolv_runtime::container::{BundleBuilder, Container, ContainerBuilder, DecodeSettings, Dictionary};
use smolv_runtime::reflect::{Reflection, ShaderStage};

fn corpus_modules() -> Vec<(String, Vec<u32>)> {
    let root = std::env::var_os("SMOLV_CORPUS_DIR")
        .map(Into::into)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
        .join("spirv");
    let mut modules = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for path in std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()) {
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                if bytes.len().is_multiple_of(4) && bytes.starts_with(&0x0723_0203u32.to_le_bytes()) {
                    let words = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
                    modules.push((path.strip_prefix(&root).unwrap().display().to_string(), words));
                }
            }
        }
    }
    if modules.is_empty() {
        modules = (0..64).map(|i| (format!("synthetic{i}"), synthetic(i))).collect();
    }
    modules.retain(|(_, w)| smolv_runtime::encode(&w[..], &Default::default()).is_ok());
    modules.sort();
    modules
}

fn synthetic(seed: u32) -> Vec<u32> {
    let mut module = smolv_runtime::doc_example_module();
    let at = module.len() - 2;
    let body: Vec<u32> = (0..300 + seed * 10).flat_map(|i| [0x0005_0080, 2, 100 + i, 4, 4]).collect();
    module[3] = 100 + 300 + seed * 10 + 1;
    module.splice(at..at, body);
    module
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let modules = corpus_modules();
    let total_bytes: usize = modules.iter().map(|(_, w)| w.len() * 4).sum();
    let smolv: Vec<Vec<u8>> =
        modules.iter().map(|(_, w)| smolv_runtime::encode(&w[..], &Default::default()).unwrap()).collect();
    let dictionary = Dictionary::new(zstd::dict::from_samples(&smolv, 16 << 10).unwrap()).unwrap();
    let reflection = Reflection::new(ShaderStage::Fragment, "main");
    let mut builder = BundleBuilder::new().dictionary(dictionary.clone());
    for (name, words) in &modules {
        builder.push(name.clone(), ContainerBuilder::new(words, &reflection).dictionary(&dictionary).build().unwrap());
    }
    let bundle = builder.build();
    let set = ShaderSet::from_vec(bundle.clone()).unwrap();
    let payloads: Vec<Vec<u8>> =
        set.iter().unwrap().map(|s| Container::parse(s.stored_bytes()).unwrap().payload().to_vec()).collect();

    let mut words = Vec::with_capacity(total_bytes / 4);
    let checked = DecodeSettings::default();
    let unchecked = DecodeSettings { verify_hash: false, ..Default::default() };
    let mut scratch = Vec::with_capacity(total_bytes);
    let mut dctx = zstd::bulk::Decompressor::with_dictionary(dictionary.as_bytes()).unwrap();
    let mut best = [Duration::MAX; 3];
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        for (which, slot) in best.iter_mut().enumerate() {
            let start = Instant::now();
            match which {
                0 => set.iter().unwrap().for_each(|s| s.decode_with(&checked, &mut words).unwrap()),
                1 => set.iter().unwrap().for_each(|s| s.decode_with(&unchecked, &mut words).unwrap()),
                _ => payloads.iter().for_each(|p| {
                    scratch.clear();
                    dctx.decompress_to_buffer(p, &mut scratch).unwrap();
                }),
            }
            black_box(&words);
            *slot = (*slot).min(start.elapsed());
        }
    }
    let mbps = |d: Duration| total_bytes as f64 / d.as_secs_f64() / 1e6;

    let by_size = |i: usize| modules[i].1.len();
    let smallest = (0..modules.len()).min_by_key(|&i| by_size(i)).unwrap();
    let largest = (0..modules.len()).max_by_key(|&i| by_size(i)).unwrap();
    let latency = |index: usize, runs: usize| {
        let shader = set.get(&modules[index].0).unwrap();
        let mut out = Vec::new();
        let mut samples: Vec<Duration> = (0..runs)
            .map(|_| {
                let start = Instant::now();
                shader.decode_into(&mut out).unwrap();
                start.elapsed()
            })
            .collect();
        (percentile(&mut samples, 0.5), percentile(&mut samples, 0.99))
    };
    let (small_p50, small_p99) = latency(smallest, 5000);
    let (large_p50, large_p99) = latency(largest, 300);

    println!(
        "bundle of {} shaders: {:.2} MB of SPIR-V in {} bytes ({:.1}%, dictionary {} bytes)",
        modules.len(),
        total_bytes as f64 / 1e6,
        bundle.len(),
        100.0 * bundle.len() as f64 / total_bytes as f64,
        dictionary.as_bytes().len()
    );
    println!("  decode whole bundle, hash checked     {:>8.0} MB/s of SPIR-V", mbps(best[0]));
    println!("  decode whole bundle, no hash check    {:>8.0} MB/s of SPIR-V", mbps(best[1]));
    println!("  zstd decompression alone (peer)       {:>8.0} MB/s of SPIR-V-equivalent", mbps(best[2]));
    println!(
        "  bundle decode / zstd alone:           {:.2} (checked), {:.2} (unchecked)",
        best[2].as_secs_f64() / best[0].as_secs_f64(),
        best[2].as_secs_f64() / best[1].as_secs_f64()
    );
    println!("  smallest shader ({} bytes): p50 {:?}, p99 {:?}", by_size(smallest) * 4, small_p50, small_p99);
    println!("  largest shader ({} bytes): p50 {:?}, p99 {:?}", by_size(largest) * 4, large_p50, large_p99);
}
