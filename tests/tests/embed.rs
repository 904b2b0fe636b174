//! `include_shader!` and `include_shaders!` on the fixture shaders (GLSL
//! with includes, WGSL, a variant), and the runtime API around them.

use std::path::PathBuf;

use smolv_format::Manifest;
use smolv_runtime::__private::EmbeddedModule;
use smolv_runtime::container::{ContainerError, OpenError};
use smolv_runtime::reflect::ShaderStage;
use smolv_runtime::{
    Codec, DecodeOptions, Framing, Shader, ShaderErrorKind, ShaderSet, include_shader, include_shaders,
};
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

/// The optimizer's output for `name`, as the build wrote it, with debug
/// info removed when the build stripped it.
fn optimized_module(name: &str) -> Vec<u32> {
    let manifest = manifest();
    let module = manifest.modules.iter().find(|m| m.name == name).unwrap();
    let optimized = words(&std::fs::read(artifacts().join(&module.optimized_spirv)).unwrap());
    if !manifest.strip_debug {
        return optimized;
    }
    let mut options = smolv_runtime::EncodeOptions::new().strip_debug(true);
    if manifest.interface_names {
        let kept = names_of(&module.reflection);
        options = options.keep_names(move |name| kept.iter().any(|k| k == name));
    }
    let smolv = smolv_runtime::encode(&optimized[..], &options).unwrap();
    smolv_runtime::decode(&smolv, &Default::default()).unwrap()
}

/// The names a reflection read from `OpName`s.
fn names_of(reflection: &smolv_runtime::reflect::Reflection) -> Vec<String> {
    let bindings = reflection.bindings.iter().map(|b| &b.name);
    let spec_constants = reflection.spec_constants.iter().map(|s| &s.name);
    let variables = reflection.inputs.iter().chain(&reflection.outputs).map(|v| &v.name);
    bindings.chain(spec_constants).chain(variables).filter(|n| !n.is_empty()).cloned().collect()
}

#[test]
fn embedded_shaders_decode_to_the_optimized_modules_bit_for_bit() {
    for shader in [LIT, SHADOWS, SKY] {
        assert_eq!(shader.decode().unwrap(), optimized_module(shader.name()), "{}", shader.name());
    }
    for shader in ALL.shaders() {
        assert_eq!(shader.decode().unwrap(), optimized_module(shader.name()), "{}", shader.name());
    }
}

#[test]
fn embedded_shaders_pass_spirv_val() {
    for shader in [LIT, SHADOWS, SKY].into_iter().chain(ALL.shaders()) {
        let words = shader.decode().unwrap();
        spirv_val(&words, "vulkan1.2").unwrap_or_else(|e| panic!("{}: {e}", shader.name()));
    }
}

/// The manifest's JSON, for the embedded-set fields.
fn manifest_json() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(artifacts().join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn embedded_bytes_are_aligned_and_sized_as_reported() {
    let json = manifest_json();
    for shader in [LIT, SHADOWS, SKY] {
        let bytes = shader.stored_bytes();
        assert_eq!(bytes.as_ptr() as usize % 4, 0, "{} is not 4-byte aligned", shader.name());
        let module = json["modules"].as_array().unwrap().iter().find(|m| m["name"] == shader.name()).unwrap();
        let data = std::fs::read(artifacts().join(module["embedded"]["data"].as_str().unwrap())).unwrap();
        assert_eq!(bytes, &data[..], "{}", shader.name());
        assert_eq!(shader.spirv_len() as u64, module["embedded"]["spirv_bytes"].as_u64().unwrap());
    }
    assert_eq!(ALL.stored_len() as u64, json["embedded"]["stored_bytes"].as_u64().unwrap());
    let packing = ALL.packing();
    assert_eq!(packing.codec.map(Codec::name), json["embedded"]["codec"].as_str());
    assert_eq!(packing.framing == Framing::Stream, json["embedded"]["layout"] == "stream");
}

#[test]
fn reflection_is_read_from_the_spirv_as_the_build_saw_it() {
    let info = LIT.reflection().unwrap();
    assert_eq!(info.stage, ShaderStage::Fragment);
    assert_eq!(info.entry_point, "main");
    assert_eq!(info.spec_constants[0].name, "EXPOSURE");
    assert_eq!(SKY.reflection().unwrap().entry_point, "fs_main");
    assert_eq!(SHADOWS.reflection().unwrap().bindings.len(), LIT.reflection().unwrap().bindings.len() + 1);
    // Every embedded module reflects exactly as the build's reflection in
    // the manifest: names included, unless debug info was stripped without
    // `keep_interface_names`.
    let manifest = manifest();
    for shader in ALL.shaders() {
        let module = manifest.modules.iter().find(|m| m.name == shader.name()).unwrap();
        let mut expected = module.reflection.clone();
        if !manifest.interface_names {
            expected.bindings.iter_mut().for_each(|b| b.name.clear());
            expected.spec_constants.iter_mut().for_each(|s| s.name.clear());
            expected.inputs.iter_mut().chain(&mut expected.outputs).for_each(|v| v.name.clear());
        }
        assert_eq!(shader.reflection().unwrap(), expected, "{}", shader.name());
    }
}

#[test]
fn a_damaged_embedded_module_is_an_error_never_a_panic_or_wrong_words() {
    let json = manifest_json();
    let module = json["modules"].as_array().unwrap().iter().find(|m| m["name"] == "lit.frag").unwrap();
    let embedded = &module["embedded"];
    let number = |field: &str| u32::try_from(embedded[field].as_u64().unwrap()).unwrap();
    let check = u32::try_from(embedded["check"].as_u64().unwrap()).unwrap();
    let dictionary: &'static [u8] = match json["embedded"]["dictionary"].as_str() {
        Some(path) => std::fs::read(artifacts().join(path)).unwrap().leak(),
        None => &[],
    };
    let expected = LIT.decode().unwrap();
    // Raw modules (and modules with relative ids) are words checked at
    // compile time (see `spirv_module`' tests), so no damaged one can reach
    // a binary: such a build damages the module as SMOL-V instead.
    let (unpacker, packed, unpacked_len) = match json["embedded"]["codec"].as_str().unwrap() {
        "spirv" | "spirv-relative-ids" => {
            let smolv = smolv_runtime::encode(&expected[..], &Default::default()).unwrap();
            let len = u32::try_from(smolv.len()).unwrap();
            (&smolv_runtime::__private::SMOLV_MODULE, smolv, len)
        }
        codec => {
            let unpacker = match codec {
                "smolv" => &smolv_runtime::__private::SMOLV_MODULE,
                "smolv-lz4" => &smolv_runtime::__private::SMOLV_LZ4_MODULE,
                "spirv-relative-ids-lz4" => &smolv_runtime::__private::RELATIVE_IDS_LZ4_MODULE,
                _ => &smolv_runtime::__private::SMOLV_ZSTD_MODULE,
            };
            (unpacker, LIT.stored_bytes().to_vec(), number("unpacked_bytes"))
        }
    };
    // A dictionary ships packed; the set's directory records its unpacked
    // length and check.
    let packed_dictionary = if dictionary.is_empty() {
        (0, 0)
    } else {
        let directory = std::fs::read(artifacts().join(json["embedded"]["directory"].as_str().unwrap())).unwrap();
        let u32_at = |at: usize| u32::from_le_bytes(directory[at..at + 4].try_into().unwrap());
        (u32_at(12), u32_at(16))
    };
    let shader = |bytes: Vec<u8>| -> &'static Shader {
        let module = EmbeddedModule::new(
            "lit.frag",
            unpacker,
            bytes.leak(),
            dictionary,
            packed_dictionary,
            unpacked_len,
            number("spirv_bytes"),
            check,
        );
        Box::leak(Box::new(Shader::embedded(Box::leak(Box::new(module)))))
    };
    assert_eq!(shader(packed.clone()).decode().unwrap(), expected);
    // Every codec checks what it decodes against the module's hash.
    let mut rejected = 0;
    for bit in 0..packed.len() * 8 {
        let mut flipped = packed.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        match shader(flipped).decode() {
            Ok(words) => assert_eq!(words, expected, "bit {bit} decoded to other words"),
            Err(_) => rejected += 1,
        }
    }
    for len in 0..packed.len() {
        assert!(shader(packed[..len].to_vec()).decode().is_err(), "truncated to {len}");
    }
    println!("{rejected} of {} single-bit flips rejected, the rest decode to the same words", packed.len() * 8);
    assert!(rejected > 0);
}

#[test]
fn damaged_relative_ids_with_lz4_are_an_error_never_a_panic_or_wrong_words() {
    let expected = LIT.decode().unwrap();
    let spirv_bytes: Vec<u8> = expected.iter().flat_map(|w| w.to_le_bytes()).collect();
    let relative: Vec<u8> =
        smolv_runtime::relative_ids::encode(&expected).unwrap().iter().flat_map(|w| w.to_le_bytes()).collect();
    let packed =
        lz4::block::compress(&relative, Some(lz4::block::CompressionMode::HIGHCOMPRESSION(12)), false).unwrap();
    let len = u32::try_from(relative.len()).unwrap();
    let check = xxhash_rust::xxh32::xxh32(&spirv_bytes, 0);
    let shader = |bytes: Vec<u8>| -> &'static Shader {
        let module = EmbeddedModule::new(
            "lit.frag",
            &smolv_runtime::__private::RELATIVE_IDS_LZ4_MODULE,
            bytes.leak(),
            &[],
            (0, 0),
            len,
            len,
            check,
        );
        Box::leak(Box::new(Shader::embedded(Box::leak(Box::new(module)))))
    };
    assert_eq!(shader(packed.clone()).decode().unwrap(), expected);
    for bit in 0..packed.len() * 8 {
        let mut flipped = packed.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        if let Ok(words) = shader(flipped).decode() {
            assert_eq!(words, expected, "bit {bit} decoded to other words");
        }
    }
    for len in 0..packed.len() {
        assert!(shader(packed[..len].to_vec()).decode().is_err(), "truncated to {len}");
    }
}

#[test]
fn sets_address_entry_points_and_variants_by_name() {
    assert_eq!(ALL.shaders().len(), 7);
    let sky = ALL.get("sky.wgsl#fs_main").unwrap();
    assert_eq!(sky.decode().unwrap(), SKY.decode().unwrap());
    assert_eq!(ALL.get("lit.frag@shadows").unwrap().decode().unwrap(), SHADOWS.decode().unwrap());
    let err = ALL.get("sky.wgsl#fs_mian").unwrap_err();
    assert_eq!(err.name, "sky.wgsl#fs_mian");
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
    // Raw SPIR-V is served from the embedded bytes themselves, zero-copy.
    for shader in ALL.shaders().iter().chain([LIT, SHADOWS, SKY]) {
        let served = shader.decode_cached().unwrap().as_ptr() as usize;
        let stored = shader.stored_bytes().as_ptr() as usize;
        assert_eq!(served == stored, ALL.packing().codec == Some(Codec::Spirv), "{}", shader.name());
    }
}

#[test]
fn sets_and_shaders_load_from_files_through_the_same_api() {
    let set = ShaderSet::open(artifacts().join("shaders.smvb")).unwrap();
    assert_eq!(set.shaders().len(), ALL.shaders().len());
    for (loaded, embedded) in set.iter().zip(ALL.iter()) {
        assert_eq!(loaded.name(), embedded.name());
        assert_eq!(loaded.decode().unwrap(), embedded.decode().unwrap());
        assert_eq!(loaded.reflection().unwrap(), embedded.reflection().unwrap());
    }
    let manifest = manifest();
    let dictionary = manifest.dictionary.as_ref().map(|d| std::fs::read(artifacts().join(d)).unwrap());
    let module = manifest.modules.iter().find(|m| m.name == "lit.frag").unwrap();
    let shader = Shader::open(artifacts().join(&module.artifact), dictionary).unwrap();
    assert_eq!(shader.decode().unwrap(), LIT.decode().unwrap());
    if manifest.dictionary.is_some() {
        let err = Shader::open(artifacts().join(&module.artifact), None).unwrap_err();
        assert!(matches!(err, OpenError::Invalid { source: ContainerError::DictionaryMismatch { .. }, .. }), "{err}");
    }
}

#[test]
fn content_hash_is_checked_unless_switched_off() {
    let manifest = manifest();
    let dictionary = manifest.dictionary.as_ref().map(|d| std::fs::read(artifacts().join(d)).unwrap());
    let module = manifest.modules.iter().find(|m| m.name == "lit.frag").unwrap();
    let mut bytes = std::fs::read(artifacts().join(&module.artifact)).unwrap();
    bytes[16] ^= 0xFF; // first byte of the recorded hash
    let tampered = Shader::from_container("lit.frag", bytes, dictionary).unwrap();
    let error = tampered.decode().unwrap_err();
    assert_eq!(error.kind(), ShaderErrorKind::HashMismatch, "{error}");
    assert!(matches!(error.container_error(), Some(ContainerError::HashMismatch)), "{error}");
    let settings = DecodeOptions::new().verify_hash(false);
    let mut words = Vec::new();
    tampered.decode_with(&settings, &mut words).unwrap();
    assert_eq!(words, LIT.decode().unwrap());
}

#[test]
fn a_corrupt_entry_does_not_affect_its_neighbours() {
    let mut bytes = std::fs::read(artifacts().join("shaders.smvb")).unwrap();
    let manifest = manifest();
    let module = manifest.modules.iter().find(|m| m.name == "lit.frag").unwrap();
    let lit = std::fs::read(artifacts().join(&module.artifact)).unwrap();
    let at = bytes.windows(lit.len()).position(|w| w == lit).expect("lit.frag is in the bundle");
    let payload = smolv_runtime::container::Container::parse(&lit).unwrap().payload().len();
    let payload_at = at + lit.len() - payload;
    for byte in &mut bytes[payload_at..at + lit.len()] {
        *byte = 0xAA;
    }
    let set = ShaderSet::from_vec(bytes).unwrap();
    assert!(set.get("lit.frag").unwrap().decode().is_err());
    assert_eq!(set.get("sky.wgsl#fs_main").unwrap().decode().unwrap(), SKY.decode().unwrap());
}
