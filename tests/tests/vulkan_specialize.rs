//! On a real Vulkan device (lavapipe here), with the validation layers on:
//! an ubershader with five spec-constant switches renders the same pixels
//! (a) with its spec constants set at pipeline creation and (b) from the
//! SPIR-V that `smolv_runtime::specialize` produced for the same values.
//! Any validation message fails the test.

use ash::vk;
use smolv_runtime::container::ContentHash;
use smolv_runtime::reflect::{Reflection, ShaderStage};
use smolv_runtime::specialize::{Specializer, Value};
use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
use smolv_tests::vulkan::Gpu;

const SIZE: u32 = 64;

const VERTEX: &str = "#version 450\nlayout(location = 0) out vec2 uv;\n\
void main() {\n  uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

const UBERSHADER: &str = r#"#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(constant_id = 0) const bool STRIPES = true;
layout(constant_id = 1) const bool CIRCLE = false;
layout(constant_id = 2) const int PALETTE = 1;
layout(constant_id = 3) const int BANDS = 4;
layout(constant_id = 4) const bool INVERT = false;

void main() {
    vec3 c = vec3(uv, 0.25);
    if (STRIPES) {
        c.b = step(0.5, fract(uv.x * float(BANDS)));
    }
    if (CIRCLE) {
        float d = length(uv - 0.5);
        c *= d < 0.3 ? 1.0 : 0.25;
    }
    switch (PALETTE) {
        case 0: c = c.bgr; break;
        case 1: c = vec3(dot(c, vec3(0.3, 0.6, 0.1))); break;
        default: c = c * c; break;
    }
    for (int i = 0; i < BANDS; ++i) {
        c.r += 0.02;
    }
    if (INVERT) {
        c = 1.0 - c;
    }
    color = vec4(clamp(c, 0.0, 1.0), 1.0);
}
"#;

/// Compiles the two shaders with smolv-build, as a game would ship them.
fn shaders() -> (Vec<u32>, Vec<u32>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join("shaders/fullscreen.vert"), VERTEX).unwrap();
    std::fs::write(dir.path().join("shaders/uber.frag"), UBERSHADER).unwrap();
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = smolv_runtime::ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    (set.get("fullscreen.vert").unwrap().decode().unwrap(), set.get("uber.frag").unwrap().decode().unwrap())
}

/// Renders a full-screen triangle with a monolithic pipeline (the driver's
/// own specialization path) and reads the pixels back.
fn render(gpu: &Gpu, vertex: &Stage<'_>, fragment: &Stage<'_>) -> Vec<u8> {
    let options = PipelineOptions { force_monolithic: true, ..PipelineOptions::default() };
    let manager = PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), options);
    let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
    let slot = manager.get_pipeline(vertex, fragment, &state).unwrap();
    gpu.draw(slot.current(), SIZE, |_| {})
}

#[test]
fn specialized_spirv_renders_the_same_pixels_as_pipeline_specialization() {
    let (vertex, ubershader) = shaders();
    let analysis = Specializer::analyze(&ubershader).unwrap();
    assert_eq!(analysis.spec_ids(), [0, 1, 2, 3, 4]);
    let vertex_reflection = Reflection::new(ShaderStage::Vertex, "main");
    let fragment_reflection = Reflection::new(ShaderStage::Fragment, "main");
    let vertex_stage = Stage {
        spirv: &vertex,
        reflection: &vertex_reflection,
        code_hash: ContentHash::of_spirv(&vertex).short(),
        specialization: &[],
    };
    let gpu = Gpu::new();
    // stripes, circle, palette, bands, invert
    let assignments: [(bool, bool, i32, i32, bool); 5] = [
        (true, false, 1, 4, false),
        (false, true, 0, 2, true),
        (true, true, 2, 7, false),
        (false, false, 0, 0, false),
        (true, true, 1, 3, true),
    ];
    let mut distinct = std::collections::BTreeSet::new();
    for (stripes, circle, palette, bands, invert) in assignments {
        let values = [
            (0, Value::Bool(stripes)),
            (1, Value::Bool(circle)),
            (2, Value::I32(palette)),
            (3, Value::I32(bands)),
            (4, Value::Bool(invert)),
        ];
        // (a) the ubershader, specialized by the driver at pipeline creation
        let ubershader_stage = Stage {
            spirv: &ubershader,
            reflection: &fragment_reflection,
            code_hash: ContentHash::of_spirv(&ubershader).short(),
            specialization: &values,
        };
        let by_driver = render(&gpu, &vertex_stage, &ubershader_stage);
        // (b) the SPIR-V smolv specialized ahead of time, with no spec constants left
        let specialized = analysis.specialize(&values).unwrap();
        assert!(specialized.len() < ubershader.len());
        let specialized_stage = Stage {
            spirv: &specialized,
            reflection: &fragment_reflection,
            code_hash: ContentHash::of_spirv(&specialized).short(),
            specialization: &[],
        };
        let by_smolv = render(&gpu, &vertex_stage, &specialized_stage);
        let worst = by_driver.iter().zip(&by_smolv).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
        assert!(worst <= 1, "{values:?}: pixels differ by up to {worst}/255");
        distinct.insert(by_driver);
    }
    assert_eq!(distinct.len(), assignments.len(), "every feature set renders differently");
    gpu.assert_validation_clean();
}
