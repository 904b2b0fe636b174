//! On a real Vulkan device (lavapipe here), with the validation layers on:
//! an ubershader with five spec-constant switches renders the same pixels
//! (a) with its spec constants set at pipeline creation and (b) from the
//! SPIR-V that `smolv_runtime::specialize` produced for the same values.
//! A value of the wrong type is refused the same way on every path, and an
//! array length that folds below 1 is an error, not invalid SPIR-V. Any
//! validation message fails the test.
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::reflect::{Reflection, ShaderStage, SpecConstantType};
use smolv_runtime::specialize::{SpecializeError, Specializer, Value};
use smolv_runtime::vulkan::{DeviceFeatures, GraphicsState, PipelineManager, PipelineOptions, Stage, VulkanError};
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

/// Compiles `shaders` (name, GLSL) with smolv-build, as a game would ship
/// them, and decodes them again.
fn compile(shaders: &[(&str, &str)]) -> Vec<(Vec<u32>, Reflection)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    for (name, source) in shaders {
        std::fs::write(dir.path().join("shaders").join(name), source).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    // The test device is Vulkan 1.3. Before SPIR-V 1.4, glslang's
    // `OpSpecConstantOp UConvert` for the 64-bit spec constants needs the
    // Kernel capability, which the validation layer rejects.
    config.target_env(smolv_build::TargetEnv::Vulkan1_3);
    config.try_compile().unwrap();
    let set = smolv_runtime::ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    shaders
        .iter()
        .map(|(name, _)| {
            let shader = set.get(name).unwrap();
            (shader.decode().unwrap(), shader.reflection().unwrap())
        })
        .collect()
}

/// The two shaders of the ubershader test.
fn shaders() -> (Vec<u32>, Vec<u32>) {
    let mut modules = compile(&[("fullscreen.vert", VERTEX), ("uber.frag", UBERSHADER)]).into_iter();
    let (vertex, _) = modules.next().unwrap();
    let (ubershader, _) = modules.next().unwrap();
    (vertex, ubershader)
}

/// Renders a full-screen triangle with a monolithic pipeline (the driver's
/// own specialization path) and reads the pixels back.
fn render(gpu: &Gpu, vertex: &Stage<'_>, fragment: &Stage<'_>) -> Vec<u8> {
    render_with(gpu, vertex, fragment, PipelineOptions::new().force_monolithic(true))
}

fn render_with(gpu: &Gpu, vertex: &Stage<'_>, fragment: &Stage<'_>, options: PipelineOptions) -> Vec<u8> {
    // The 64-bit constants' shaders declare Float64 and Int64: the manager
    // builds them only when told the device has those features enabled.
    let options = options.features(
        DeviceFeatures::from_enabled(&gpu.features).with_graphics_pipeline_library(gpu.graphics_pipeline_library),
    );
    // SAFETY: `Gpu` enables what the manager needs, and the manager is
    // dropped here, after `draw` waited for the queue.
    let manager =
        unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options) };
    let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
    // SAFETY: the modules come from smolv-build (compiled and validated);
    // their reflections name their entry points, and they use no
    // descriptors or push constants; RGBA8 is a colour format every device has.
    let slot = unsafe { manager.get_pipeline(vertex, fragment, &state) }.unwrap();
    gpu.draw(slot.current(), SIZE, |_| {})
}

#[test]
fn specialized_spirv_renders_the_same_pixels_as_pipeline_specialization() {
    let (vertex, ubershader) = shaders();
    let analysis = Specializer::analyze(&ubershader).unwrap();
    assert_eq!(analysis.spec_ids(), [0, 1, 2, 3, 4]);
    let vertex_reflection = Reflection::new(ShaderStage::Vertex, "main");
    let fragment_reflection = Reflection::new(ShaderStage::Fragment, "main");
    let vertex_stage = Stage { spirv: &vertex, reflection: &vertex_reflection, specialization: &[] };
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
        let ubershader_stage = Stage { spirv: &ubershader, reflection: &fragment_reflection, specialization: &values };
        let by_driver = render(&gpu, &vertex_stage, &ubershader_stage);
        // (b) the SPIR-V smolv specialized ahead of time, with no spec constants left
        let specialized = analysis.specialize(&values).unwrap();
        assert!(specialized.len() < ubershader.len());
        let specialized_stage = Stage { spirv: &specialized, reflection: &fragment_reflection, specialization: &[] };
        let by_smolv = render(&gpu, &vertex_stage, &specialized_stage);
        let worst = by_driver.iter().zip(&by_smolv).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
        assert!(worst <= 1, "{values:?}: pixels differ by up to {worst}/255");
        distinct.insert(by_driver);
    }
    assert_eq!(distinct.len(), assignments.len(), "every feature set renders differently");
    gpu.finish();
}

/// A fragment shader with a 64-bit integer and a 64-bit float spec
/// constant, each of which lands in the colour only if all 8 bytes arrive.
const WIDE: &str = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(location = 0) out vec4 color;
layout(constant_id = 0) const uint64_t PACKED = 0ul;
layout(constant_id = 1) const double SCALE = 0.0lf;
layout(constant_id = 2) const int SMALL = 0;
void main() {
    // The high word holds red, the low word green; SCALE is blue.
    float red = float(uint(PACKED >> 32ul)) / 255.0;
    float green = float(uint(PACKED & 0xFFFFFFFFul)) / 255.0;
    color = vec4(red, green, float(SCALE), float(SMALL) / 255.0);
}
"#;

/// A full-screen triangle with no outputs, for [`WIDE`].
const BARE_VERTEX: &str = "#version 450\n\
void main() {\n  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n";

#[test]
fn sixty_four_bit_spec_constants_reach_the_shader_whole() {
    let gpu = Gpu::new();
    assert!(gpu.shader_int64 && gpu.shader_float64, "lavapipe has shaderInt64 and shaderFloat64");
    let modules = compile(&[("bare.vert", BARE_VERTEX), ("wide.frag", WIDE)]);
    let [(vertex, vertex_reflection), (wide, wide_reflection)] = &modules[..] else { unreachable!() };
    let types: Vec<_> = wide_reflection.spec_constants.iter().map(|c| (c.id, c.ty)).collect();
    assert_eq!(
        types,
        [(0, SpecConstantType::U64), (1, SpecConstantType::F64), (2, SpecConstantType::I32)],
        "the reflection knows the widths too"
    );
    let vertex_stage = Stage { spirv: vertex, reflection: vertex_reflection, specialization: &[] };
    // Red 200 in the high word, green 100 in the low one; blue 0.5 as f64 bits.
    let values = [(0, Value::Bits((200 << 32) | 100)), (1, Value::Bits(0.5f64.to_bits())), (2, Value::I32(51))];
    let wide_stage = Stage { spirv: wide, reflection: wide_reflection, specialization: &values };
    let mut images = Vec::new();
    for options in [
        PipelineOptions::new().force_monolithic(true),
        PipelineOptions::default(),
        PipelineOptions::new().specialize_ahead(true),
    ] {
        let image = render_with(&gpu, &vertex_stage, &wide_stage, options);
        let center = &image[((SIZE / 2) * SIZE * 4 + (SIZE / 2) * 4) as usize..][..4];
        assert_eq!(center, [200, 100, 128, 51], "{options:?}");
        images.push(image);
    }
    assert!(images.iter().all(|image| *image == images[0]));
    gpu.finish();
}

/// The manager on `gpu` with `options` (and the device's features), for
/// tests that expect it to refuse before anything is created.
fn manager(gpu: &Gpu, options: PipelineOptions) -> PipelineManager {
    let options = options.features(
        DeviceFeatures::from_enabled(&gpu.features).with_graphics_pipeline_library(gpu.graphics_pipeline_library),
    );
    // SAFETY: `Gpu` enables what the manager needs, and the tests drop the
    // manager before the device.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options) }
}

#[test]
fn a_float_for_an_int_constant_is_refused_on_every_path() {
    let (vertex, ubershader) = shaders();
    // `BANDS` (id 3) is an `int`: the float's bits are not a value for it.
    let values = [(3, Value::F32(1.0))];
    let analysis = Specializer::analyze(&ubershader).unwrap();
    assert_eq!(analysis.specialize(&values), Err(SpecializeError::WrongType(3, "a 32-bit signed integer")));
    let reflection = (Reflection::new(ShaderStage::Vertex, "main"), Reflection::new(ShaderStage::Fragment, "main"));
    let vertex_stage = Stage { spirv: &vertex, reflection: &reflection.0, specialization: &[] };
    let fragment = Stage { spirv: &ubershader, reflection: &reflection.1, specialization: &values };
    let gpu = Gpu::new();
    let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
    for options in [
        PipelineOptions::new().force_monolithic(true),
        PipelineOptions::new(),
        PipelineOptions::new().specialize_ahead(true),
        PipelineOptions::new().specialize_ahead(true).force_monolithic(true),
    ] {
        let manager = manager(&gpu, options);
        // SAFETY: smolv-build's output, described by its reflection; refused before the driver.
        let error = unsafe { manager.get_pipeline(&vertex_stage, &fragment, &state) }.unwrap_err();
        assert!(
            matches!(&error, VulkanError::SpecConstantValue { id: 3, ty, value: Value::F32(_) } if ty == "a 32-bit signed integer"),
            "{options:?}: {error:?}"
        );
        assert_eq!(manager.library_counts().total(), 0, "{options:?}: nothing was created");
    }
    gpu.finish();
}

/// A fragment shader with an array sized by an `OpSpecConstantOp`.
const SIZED: &str = r#"#version 450
layout(location = 0) out vec4 color;
layout(constant_id = 0) const int TAPS = 3;
const int LAST = TAPS - 1;
void main() {
    float weights[LAST];
    for (int i = 0; i < LAST; ++i) {
        weights[i] = float(i) * 0.25;
    }
    color = vec4(weights[LAST - 1], 0.0, 0.0, 1.0);
}
"#;

#[test]
fn an_array_length_that_folds_below_one_is_a_specialize_error() {
    let modules = compile(&[("sized.frag", SIZED)]);
    let analysis = Specializer::analyze(&modules[0].0).unwrap();
    assert!(analysis.specialize(&[(0, Value::I32(3))]).is_ok(), "length 2");
    assert!(analysis.specialize(&[(0, Value::I32(2))]).is_ok(), "length 1");
    for (taps, length) in [(1, 0), (0, -1), (-5, -6)] {
        let error = analysis.specialize(&[(0, Value::I32(taps))]).unwrap_err();
        assert!(matches!(error, SpecializeError::ArrayLength { length: l, .. } if l == length), "{taps}: {error:?}");
        assert!(error.to_string().contains("at least 1"), "{error}");
    }
}

#[test]
fn specializing_ahead_refuses_values_that_fold_an_array_length_below_one() {
    let modules = compile(&[("bare.vert", BARE_VERTEX), ("sized.frag", SIZED)]);
    let [(vertex, vertex_reflection), (sized, sized_reflection)] = &modules[..] else { unreachable!() };
    let vertex_stage = Stage { spirv: vertex, reflection: vertex_reflection, specialization: &[] };
    let gpu = Gpu::new();
    let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
    for options in [
        PipelineOptions::new().specialize_ahead(true),
        PipelineOptions::new().specialize_ahead(true).force_monolithic(true),
    ] {
        let manager = manager(&gpu, options);
        let values = [(0, Value::I32(1))];
        let fragment = Stage { spirv: sized, reflection: sized_reflection, specialization: &values };
        // SAFETY: smolv-build's output, described by its reflection; refused before the driver.
        let error = unsafe { manager.get_pipeline(&vertex_stage, &fragment, &state) }.unwrap_err();
        assert!(
            matches!(error, VulkanError::Specialize(SpecializeError::ArrayLength { length: 0, .. })),
            "{options:?}: {error:?}"
        );
        // Values that keep the length positive draw.
        let values = [(0, Value::I32(3))];
        let fragment = Stage { spirv: sized, reflection: sized_reflection, specialization: &values };
        // SAFETY: as above.
        let slot = unsafe { manager.get_pipeline(&vertex_stage, &fragment, &state) }.unwrap();
        let image = gpu.draw(slot.current(), SIZE, |_| {});
        let center = &image[((SIZE / 2) * SIZE * 4 + (SIZE / 2) * 4) as usize..][..4];
        assert_eq!(center, [64, 0, 0, 255], "{options:?}: weights[1] = 0.25");
    }
    gpu.finish();
}
