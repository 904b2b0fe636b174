//! `include_shader!` and `include_shaders!` on the fixture shaders (GLSL
//! with includes, WGSL, a variant), and the runtime API around them.

use std::path::PathBuf;

use smolv_build::{Manifest, Report};
use smolv_runtime::container::{ContainerError, DecodeSettings};
use smolv_runtime::reflect::ShaderStage;
use smolv_runtime::{Shader, ShaderSet, include_shader, include_shaders};
use smolv_tests::{spirv_val, words};

static LIT: &Shader = include_shader!("lit.frag");
static SHADOWS: &Shader = include_shader!("lit.frag@shadows");
static SKY: &Shader = include_shader!("sky.wgsl#fs_main");
static ALL: ShaderSet = include_shaders!();

fn artifacts() -> PathBuf {
    PathBuf::from(env!("OUT_DIR")).join("smolv")
}

fn manifest() -> Manifest {
    serde_json::from_str(&std::fs::read_to_string(artifacts().join("manifest.json")).unwrap()).unwrap()
}

fn report() -> Report {
    let path = PathBuf::from(env!("OUT_DIR")).join("smolv-report.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The optimizer's output for `name`, as the build wrote it, with debug
/// info removed when the build stripped it.
fn optimized_module(name: &str) -> Vec<u32> {
    let manifest = manifest();
    let module = manifest.modules.iter().find(|m| m.name == name).unwrap();
    let optimized = words(&std::fs::read(artifacts().join(&module.optimized_spirv)).unwrap());
    if !manifest.strip_debug {
        return optimized;
    }
    let options = smolv_runtime::EncodeOptions::new().strip_debug(true);
    let smolv = smolv_runtime::encode(&optimized[..], &options).unwrap();
    smolv_runtime::decode(&smolv, &Default::default()).unwrap()
}

#[test]
fn embedded_shaders_decode_to_the_optimized_modules_bit_for_bit() {
    for shader in [LIT, SHADOWS, SKY] {
        assert_eq!(shader.decode().unwrap(), optimized_module(shader.name()), "{}", shader.name());
    }
    for shader in ALL.iter() {
        assert_eq!(shader.decode().unwrap(), optimized_module(shader.name()), "{}", shader.name());
    }
}

#[test]
fn embedded_shaders_pass_spirv_val() {
    for shader in [LIT, SHADOWS, SKY].into_iter().chain(ALL.iter()) {
        let words = shader.decode().unwrap();
        spirv_val(&words, "vulkan1.2").unwrap_or_else(|e| panic!("{}: {e}", shader.name()));
    }
}

#[test]
fn embedded_bytes_are_aligned_and_sized_as_reported() {
    let report = report();
    println!("{:<20} {:>10} {:>10} {:>9}", "shader", "payload", "container", "overhead");
    for shader in [LIT, SHADOWS, SKY] {
        let bytes = shader.container_bytes();
        assert_eq!(bytes.as_ptr() as usize % 4, 0, "{} is not 4-byte aligned", shader.name());
        let row = report.modules.iter().find(|m| m.name == shader.name()).unwrap();
        assert_eq!(bytes.len(), row.container_bytes);
        let container = shader.container().unwrap();
        assert_eq!(container.payload().len(), row.compressed_bytes);
        // The overhead is the 56-byte header, the reflection and alignment padding.
        let overhead = bytes.len() - row.compressed_bytes;
        let reflection = container.reflection_bytes().len();
        assert_eq!(overhead, (56 + reflection).next_multiple_of(4));
        println!("{:<20} {:>10} {:>10} {:>9}", shader.name(), row.compressed_bytes, bytes.len(), overhead);
    }
    assert_eq!(ALL.bundle_bytes().as_ptr() as usize % 4, 0);
}

#[test]
fn reflection_is_available_without_decoding() {
    let info = LIT.reflection();
    assert_eq!(info.stage, ShaderStage::Fragment);
    assert_eq!(info.entry_point, "main");
    assert_eq!(info.spec_constants[0].name, "EXPOSURE");
    assert_eq!(SKY.reflection().entry_point, "fs_main");
    assert_eq!(SHADOWS.reflection().bindings.len(), LIT.reflection().bindings.len() + 1);
}

#[test]
fn sets_address_entry_points_and_variants_by_name() {
    assert_eq!(ALL.len(), 7);
    let sky = ALL.get("sky.wgsl#fs_main").unwrap();
    assert_eq!(sky.decode().unwrap(), SKY.decode().unwrap());
    assert_eq!(ALL.get("lit.frag@shadows").unwrap().decode().unwrap(), SHADOWS.decode().unwrap());
    let err = ALL.get("sky.wgsl#fs_mian").unwrap_err();
    assert!(matches!(err, ContainerError::NotFound { .. }));
    assert!(err.to_string().contains("did you mean \"sky.wgsl#fs_main\""), "{err}");
}

#[test]
fn decode_into_reuses_its_buffer() {
    let mut words = Vec::new();
    LIT.decode_into(&mut words).unwrap();
    let (pointer, capacity) = (words.as_ptr(), words.capacity());
    for _ in 0..3 {
        LIT.decode_into(&mut words).unwrap();
        assert_eq!((words.as_ptr(), words.capacity()), (pointer, capacity), "decode_into reallocated");
    }
}

#[test]
fn decode_cache_decodes_once() {
    let first = LIT.decode_cached().unwrap();
    let second = LIT.decode_cached().unwrap();
    assert_eq!(first.as_ptr(), second.as_ptr());
    assert_eq!(first, LIT.decode().unwrap().as_slice());
}

#[test]
fn sets_and_shaders_load_from_files_through_the_same_api() {
    let set = ShaderSet::open(artifacts().join("shaders.smvb")).unwrap();
    assert_eq!(set.len(), ALL.len());
    for (loaded, embedded) in set.iter().zip(ALL.iter()) {
        assert_eq!(loaded.name(), embedded.name());
        assert_eq!(loaded.decode().unwrap(), embedded.decode().unwrap());
    }
    let manifest = manifest();
    let dictionary = manifest.dictionary.as_ref().map(|d| std::fs::read(artifacts().join(d)).unwrap());
    let module = manifest.modules.iter().find(|m| m.name == "lit.frag").unwrap();
    let shader = Shader::open(artifacts().join(&module.artifact), dictionary).unwrap();
    assert_eq!(shader.decode().unwrap(), LIT.decode().unwrap());
    if manifest.dictionary.is_some() {
        let err = Shader::open(artifacts().join(&module.artifact), None).unwrap_err();
        assert!(matches!(err, ContainerError::DictionaryMismatch { .. }), "{err}");
    }
}

#[test]
fn content_hash_is_checked_unless_switched_off() {
    let manifest = manifest();
    let dictionary = manifest.dictionary.as_ref().map(|d| std::fs::read(artifacts().join(d)).unwrap());
    let mut bytes = LIT.container_bytes().to_vec();
    bytes[16] ^= 0xFF; // first byte of the recorded hash
    let tampered = Shader::from_container("lit.frag", bytes, dictionary).unwrap();
    assert!(matches!(tampered.decode(), Err(ContainerError::HashMismatch)));
    let settings = DecodeSettings { verify_hash: false, ..Default::default() };
    let mut words = Vec::new();
    tampered.decode_with(&settings, &mut words).unwrap();
    assert_eq!(words, LIT.decode().unwrap());
}

#[test]
fn a_corrupt_entry_does_not_affect_its_neighbours() {
    let mut bytes = ALL.bundle_bytes().to_vec();
    let lit = LIT.container_bytes();
    let at = bytes.windows(lit.len()).position(|w| w == lit).expect("lit.frag is in the bundle");
    let payload_at = at + lit.len() - LIT.container().unwrap().payload().len();
    for byte in &mut bytes[payload_at..at + lit.len()] {
        *byte = 0xAA;
    }
    let set = ShaderSet::from_vec(bytes).unwrap();
    assert!(set.get("lit.frag").unwrap().decode().is_err());
    assert_eq!(set.get("sky.wgsl#fs_main").unwrap().decode().unwrap(), SKY.decode().unwrap());
}
