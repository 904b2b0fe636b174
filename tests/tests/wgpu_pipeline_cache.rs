//! `smolv_runtime::wgpu::PipelineCacheFile` on lavapipe through wgpu's
//! Vulkan backend, under wgpu's validation and the Khronos layer
//! (example-wgpu's collector): the first run finds no file, a pipeline
//! built with the cache fills it, the next run loads it, and a corrupt
//! file, a file of another driver and a file whose wgpu data names another
//! device are each ignored with their reason and the cache starts empty,
//! with no validation message in any case.
//!
//! The test reads and rewrites the file's bytes itself (the header's hash
//! at 24..56, over everything after byte 56), independently of
//! smolv-runtime, as a driver update or a forger would change them.

#[path = "../../example-wgpu/src/validation.rs"]
mod validation;

use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use smolv_runtime::wgpu::{CacheLoad, CacheRejected, PipelineCacheFile};

/// The smolv header's size, and where its BLAKE3 hash of the rest lies.
const HEADER: usize = 56;
const HASH: std::ops::Range<usize> = 24..56;

/// A compute shader with a storage buffer, so that the driver has a real
/// pipeline to compile.
const SHADER: &str = "@group(0) @binding(0) var<storage, read_write> values: array<f32>;\n\
                      @compute @workgroup_size(64)\n\
                      fn main(@builtin(global_invocation_id) id: vec3<u32>) { values[id.x] = values[id.x] * 2.0; }\n";

/// Waits for a future that native wgpu resolves without a runtime.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        std::thread::yield_now();
    }
}

/// A device on the first Vulkan adapter, with `PIPELINE_CACHE`, and every
/// uncaptured wgpu error collected.
fn device() -> wgpu::Device {
    validation::install();
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = wgpu::Backends::VULKAN;
    descriptor.flags = wgpu::InstanceFlags::VALIDATION | wgpu::InstanceFlags::DEBUG;
    let instance = wgpu::Instance::new(descriptor);
    let adapter =
        block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).expect("a Vulkan adapter");
    let info = adapter.get_info();
    assert!(
        adapter.features().contains(wgpu::Features::PIPELINE_CACHE),
        "{} ({:?}, {}) offers no wgpu::Features::PIPELINE_CACHE",
        info.name,
        info.backend,
        info.driver_info
    );
    let (device, _queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("wgpu_pipeline_cache"),
        required_features: wgpu::Features::PIPELINE_CACHE,
        ..Default::default()
    }))
    .expect("a device");
    device.on_uncaptured_error(Arc::new(|error| validation::push(format!("wgpu: {error}"))));
    device
}

/// Builds the compute pipeline with `cache`.
fn build(device: &wgpu::Device, cache: &PipelineCacheFile) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("double"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("double"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: Some(cache.cache()),
    })
}

#[allow(unsafe_code, reason = "PipelineCacheFile::open; the directory is this test's own")]
fn open(device: &wgpu::Device, dir: &Path) -> (PipelineCacheFile, CacheLoad) {
    // SAFETY: only this test writes `dir`: through `save`, or with bytes a
    // `save` wrote, changed on purpose to be refused. The one file that
    // passes smolv's checks with data `get_data` never returned (its wgpu
    // header names another device) relies on wgpu checking its own header
    // before the driver sees the data, which wgpu 30 does.
    unsafe { PipelineCacheFile::open(device, dir) }.expect("the device has PIPELINE_CACHE")
}

/// `file` with `change` applied after the header, and the hash made to
/// match again.
fn rehashed(file: &[u8], change: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut file = file.to_vec();
    change(&mut file[HEADER..]);
    let hash = blake3::hash(&file[HEADER..]);
    file[HASH].copy_from_slice(hash.as_bytes());
    file
}

/// Where `needle` starts in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).position(|w| w == needle).expect("present")
}

#[test]
fn the_pipeline_cache_persists_per_adapter_and_refuses_damaged_and_foreign_files_with_no_message() {
    let device = device();
    let info = device.adapter_info();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(PipelineCacheFile::file_name(&info));

    // The first run: no file.
    let (cache, load) = open(&device, dir.path());
    assert_eq!(load, CacheLoad::Missing);
    assert_eq!(cache.path(), path);
    let pipeline = build(&device, &cache);
    let saved = cache.save().expect("save");
    assert!(saved > 0, "wgpu returned no data");
    println!("{} ({}, {}): saved {saved} bytes of wgpu data", info.name, info.driver, info.driver_info);
    drop((pipeline, cache));
    let file = std::fs::read(&path).unwrap();
    assert_eq!(&file[..8], b"SMOLVWPC");
    assert!(file.len() > HEADER + saved, "the adapter record sits before wgpu's data");

    // The next run loads it, and builds with it.
    let (cache, load) = open(&device, dir.path());
    assert_eq!(load, CacheLoad::Loaded { bytes: saved });
    drop(build(&device, &cache));
    assert!(cache.save().expect("save again") > 0);
    drop(cache);
    let file = std::fs::read(&path).unwrap();

    // A flipped byte: the checksum.
    let mut corrupt = file.clone();
    *corrupt.last_mut().unwrap() ^= 0x40;
    std::fs::write(&path, &corrupt).unwrap();
    let (cache, load) = open(&device, dir.path());
    assert_eq!(load, CacheLoad::Ignored { reason: CacheRejected::Checksum(path.clone()) });
    drop(build(&device, &cache));
    drop(cache);

    // A driver update: the file records another driver info.
    // The record's last field: its u16 length, then its text.
    let driver_info = info.driver_info.as_bytes();
    assert!(!driver_info.is_empty() && driver_info.len() <= 256, "{info:?}");
    let mut field = u16::try_from(driver_info.len()).unwrap().to_le_bytes().to_vec();
    field.extend_from_slice(driver_info);
    let updated = rehashed(&file, |body| body[find(body, &field) + 2] ^= 0x01);
    std::fs::write(&path, &updated).unwrap();
    let (cache, load) = open(&device, dir.path());
    let CacheLoad::Ignored { reason: CacheRejected::OtherAdapter { path: at, found, this } } = load else {
        panic!("another driver's file must be ignored: {load:?}");
    };
    assert_eq!(at, path);
    assert!(this.contains(&format!("{:?}", info.driver_info)), "{this}");
    assert!(!found.contains(&format!("{:?}", info.driver_info)) && found != this, "{found}");
    drop(build(&device, &cache));
    drop(cache);

    // A forged file that passes smolv's checks but whose wgpu header names
    // another device (wgpu's adapter key, 17 bytes into its header): wgpu
    // raises an error, which the cache catches, and it starts empty.
    let forged = rehashed(&file, |body| {
        let wgpu_header = find(body, b"WGPUPLCH");
        body[wgpu_header + 17 + 3] ^= 0xFF;
    });
    std::fs::write(&path, &forged).unwrap();
    let (cache, load) = open(&device, dir.path());
    assert!(
        matches!(&load, CacheLoad::Ignored { reason: CacheRejected::WgpuRejected { path: at, .. } } if *at == path),
        "{load:?}"
    );
    drop(build(&device, &cache));
    // Saving replaces what was refused with this adapter's own data.
    assert!(cache.save().expect("save over the refused file") > 0);
    drop(cache);
    assert!(matches!(open(&device, dir.path()).1, CacheLoad::Loaded { .. }));

    drop(device);
    let messages = validation::take();
    assert!(messages.is_empty(), "validation messages:\n{}", messages.join("\n"));
}
