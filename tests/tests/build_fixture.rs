//! The fixture crate's own build: `build.rs` ran smolv-build over
//! `shaders/` (GLSL with includes, HLSL, WGSL with two entry points, and a
//! variant). These tests check what it left in `OUT_DIR`.

use std::path::PathBuf;

use smolv_build::Report;
use smolv_format::Manifest;
use smolv_runtime::DecodeOptions;
use smolv_runtime::container::{Bundle, Container, Dictionary};
use smolv_runtime::reflect::{DescriptorKind, ShaderStage, SpecConstantType};
use smolv_tests::spirv_val;

fn artifacts() -> PathBuf {
    PathBuf::from(env!("OUT_DIR")).join(smolv_format::ARTIFACT_DIR)
}

fn manifest() -> Manifest {
    let text = std::fs::read_to_string(artifacts().join(smolv_format::MANIFEST_FILE)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn report() -> Report {
    let text = std::fs::read_to_string(PathBuf::from(env!("OUT_DIR")).join("smolv-report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn bundle() -> Bundle<'static> {
    Bundle::open(artifacts().join(smolv_format::BUNDLE_FILE)).unwrap()
}

#[test]
fn every_language_entry_point_and_variant_becomes_a_module() {
    let names: Vec<String> = manifest().modules.into_iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        [
            "lit.frag",
            "lit.frag@shadows",
            "lit.vert",
            "particles.comp",
            "sky.wgsl#fs_main",
            "sky.wgsl#vs_main",
            "tonemap.frag.hlsl"
        ]
    );
    let bundle = bundle();
    assert_eq!(bundle.names().collect::<Vec<_>>(), names);
}

#[test]
fn every_shipped_module_passes_spirv_val() {
    let bundle = bundle();
    for name in bundle.names() {
        let words = bundle.decode(name).unwrap();
        spirv_val(&words, "vulkan1.2").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn containers_on_disk_match_the_bundle() {
    let manifest = manifest();
    let dictionary = manifest
        .dictionary
        .as_ref()
        .map(|file| Dictionary::new(std::fs::read(artifacts().join(file)).unwrap()).unwrap());
    let bundle = bundle();
    for module in &manifest.modules {
        let bytes = std::fs::read(artifacts().join(&module.artifact)).unwrap();
        let container = Container::parse(&bytes).unwrap();
        let mut words = Vec::new();
        container.decode_with(dictionary.as_ref(), &DecodeOptions::new(), &mut words).unwrap();
        assert_eq!(words, bundle.decode(&module.name).unwrap(), "{}", module.name);
        assert_eq!(container.reflection().unwrap(), module.reflection);
        assert_eq!(bytes.len(), module.container_bytes);
    }
}

#[test]
fn reflection_describes_the_shaders() {
    let manifest = manifest();
    let get = |name: &str| manifest.modules.iter().find(|m| m.name == name).unwrap().reflection.clone();

    let vert = get("lit.vert");
    assert_eq!(vert.stage, ShaderStage::Vertex);
    let inputs: Vec<(u32, u32)> = vert.inputs.iter().map(|v| (v.location, v.format)).collect();
    assert_eq!(inputs, [(0, 106), (1, 106), (2, 103)], "vec3, vec3, vec2");
    assert_eq!(vert.push_constants.len(), 1);
    assert_eq!(vert.push_constants[0].size, 64, "one mat4");

    let frag = get("lit.frag");
    assert_eq!(
        frag.bindings.iter().map(|b| (b.set, b.binding, b.kind)).collect::<Vec<_>>(),
        [(0, 0, DescriptorKind::UniformBuffer), (1, 0, DescriptorKind::CombinedImageSampler)]
    );
    assert_eq!(frag.spec_constants[0].id, 0);
    assert_eq!(frag.spec_constants[0].ty, SpecConstantType::F32);
    assert_eq!(frag.spec_constants[0].default, u64::from(1.0f32.to_bits()));
    assert_eq!(frag.outputs[0].format, 109, "vec4 output");

    let shadows = get("lit.frag@shadows");
    assert!(shadows.bindings.iter().any(|b| (b.set, b.binding) == (1, 1)), "the variant adds the shadow map");

    let particles = get("particles.comp");
    assert_eq!(particles.workgroup_size, Some([64, 1, 1]));
    assert_eq!(particles.bindings[0].kind, DescriptorKind::StorageBuffer);
    assert_eq!(particles.spec_constants[0].ty, SpecConstantType::U32);
    assert_eq!(particles.push_constants[0].size, 8);

    let sky = get("sky.wgsl#fs_main");
    assert_eq!(sky.stage, ShaderStage::Fragment);
    assert_eq!(sky.entry_point, "fs_main");
    assert_eq!(sky.bindings[0].kind, DescriptorKind::UniformBuffer);

    let hlsl = get("tonemap.frag.hlsl");
    assert_eq!(hlsl.stage, ShaderStage::Fragment);
    let kinds: Vec<DescriptorKind> = hlsl.bindings.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [DescriptorKind::SampledImage, DescriptorKind::Sampler]);
}

#[test]
fn report_matches_the_artifacts() {
    let report = report();
    let manifest = manifest();
    assert_eq!(report.modules.len(), manifest.modules.len());
    for (row, module) in report.modules.iter().zip(&manifest.modules) {
        assert_eq!(row.name, module.name);
        assert_eq!(row.container_bytes, module.container_bytes);
        assert!(row.optimized_bytes <= row.spirv_bytes, "{}: the optimizer grew the module", row.name);
        assert!(row.compressed_bytes < row.smolv_bytes && row.smolv_bytes < row.optimized_bytes, "{}", row.name);
    }
    assert_eq!(
        report.total_bundle_bytes,
        report.modules.iter().map(|m| m.compressed_bytes).sum::<usize>() + report.dictionary_bytes
    );
    println!("{}", report.to_text());
}
