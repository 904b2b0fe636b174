//! The whole graphics state and compute pipelines through the manager, on
//! lavapipe with validation on: each library is keyed by exactly the state
//! its part owns; a frame with 4× MSAA, a stencil mask, alpha-to-coverage,
//! sample shading and vertices written by a compute pass renders what it
//! should; geometry and tessellation stages work where the device has
//! them; state that needs a missing feature is refused. Each test ends by
//! destroying the device, so the layer reports any object left alive.
#![allow(unsafe_code)]

use std::sync::Arc;

use ash::vk;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::{
    AttachmentBlend, BlendEquation, DepthBias, DepthTest, DeviceFeatures, GraphicsProgram, GraphicsState,
    LibraryCounts, Multisample, PipelineManager, PipelineOptions, PipelineSlot, Stage, StencilFace, StencilState,
    VertexInput, VulkanError,
};
use smolv_tests::vulkan::Gpu;

/// Vertex inputs laid out from reflection: position, then colour.
const COLORED_VERT: &str = "#version 450\n\
layout(location = 0) in vec2 position;\nlayout(location = 1) in vec4 color;\n\
layout(location = 0) out vec4 v_color;\n\
void main() { v_color = color; gl_Position = vec4(position, 0.0, 1.0); }\n";

const COLORED_FRAG: &str = "#version 450\n\
layout(location = 0) in vec4 v_color;\nlayout(location = 0) out vec4 color;\n\
void main() { color = v_color; }\n";

/// Writes the frame's 12 vertices (position, colour: 6 floats each),
/// scaled by SCALE, which is 0 unless specialized: nothing draws unless
/// the compute pass ran with its spec constant.
const VERTICES_COMP: &str = "#version 450\n\
layout(local_size_x = 12) in;\n\
layout(set = 0, binding = 0) buffer Vertices { float data[]; } vertices;\n\
layout(constant_id = 0) const float SCALE = 0.0;\n\
const vec2 POSITIONS[12] = vec2[](\n\
  vec2(-1, -1), vec2(1, -1), vec2(-1, 1),\n\
  vec2(-1, -1), vec2(3, -1), vec2(-1, 3),\n\
  vec2(0.5, 0.5), vec2(1, 0.5), vec2(0.5, 1), vec2(1, 0.5), vec2(1, 1), vec2(0.5, 1));\n\
const vec4 COLORS[3] = vec4[](vec4(0, 1, 0, 1), vec4(1, 0, 0, 1), vec4(0, 0, 1, 0.5));\n\
void main() {\n\
  uint i = gl_GlobalInvocationID.x;\n\
  vec2 p = POSITIONS[i] * SCALE;\n\
  vec4 c = COLORS[min(i / 3u, 2u)];\n\
  float v[6] = float[](p.x, p.y, c.r, c.g, c.b, c.a);\n\
  for (uint k = 0u; k < 6u; k++) { vertices.data[i * 6u + k] = v[k]; }\n\
}\n";

/// A triangle over the image's centre, from `gl_VertexIndex`.
const INDEX_VERT: &str = "#version 450\n\
layout(location = 0) out vec4 v_color;\n\
void main() {\n  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
  v_color = vec4(1, 0, 0, 1);\n  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

/// Passes the triangle through, painting it green.
const GREEN_GEOM: &str = "#version 450\n\
layout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\n\
layout(location = 0) in vec4 v_in[];\nlayout(location = 0) out vec4 v_color;\n\
void main() {\n  for (int i = 0; i < 3; i++) {\n    v_color = vec4(0, 1, 0, 1) * v_in[i].a;\n\
    gl_Position = gl_in[i].gl_Position;\n    EmitVertex();\n  }\n  EndPrimitive();\n}\n";

const PASS_TESC: &str = "#version 450\n\
layout(vertices = 3) out;\n\
layout(location = 0) in vec4 v_in[];\nlayout(location = 0) out vec4 v_out[];\n\
void main() {\n  gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n\
  v_out[gl_InvocationID] = v_in[gl_InvocationID];\n\
  gl_TessLevelOuter[0] = 2.0; gl_TessLevelOuter[1] = 2.0; gl_TessLevelOuter[2] = 2.0;\n\
  gl_TessLevelInner[0] = 2.0;\n}\n";

/// Interpolates the patch, painting it blue.
const BLUE_TESE: &str = "#version 450\n\
layout(triangles, equal_spacing, ccw) in;\n\
layout(location = 0) in vec4 v_in[];\nlayout(location = 0) out vec4 v_color;\n\
void main() {\n  gl_Position = gl_TessCoord.x * gl_in[0].gl_Position + gl_TessCoord.y * gl_in[1].gl_Position\n\
    + gl_TessCoord.z * gl_in[2].gl_Position;\n  v_color = vec4(0, 0, 1, 1) * v_in[0].a;\n}\n";

/// Decoded modules and their reflections, by file name.
struct Modules(Vec<(String, Vec<u32>, Reflection)>);

impl Modules {
    fn compile() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let shaders = dir.path().join("shaders");
        std::fs::create_dir_all(&shaders).unwrap();
        let files = [
            ("colored.vert", COLORED_VERT),
            ("colored.frag", COLORED_FRAG),
            ("vertices.comp", VERTICES_COMP),
            ("index.vert", INDEX_VERT),
            ("green.geom", GREEN_GEOM),
            ("pass.tesc", PASS_TESC),
            ("blue.tese", BLUE_TESE),
        ];
        for (name, source) in files {
            std::fs::write(shaders.join(name), source).unwrap();
        }
        let mut config = smolv_build::Config::new();
        config.shader_dir(&shaders).out_dir(dir.path().join("out")).cargo_directives(false);
        config.try_compile().unwrap();
        let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
        Self(
            files
                .iter()
                .map(|(name, _)| {
                    let shader = set.get(name).unwrap();
                    ((*name).to_owned(), shader.decode().unwrap(), shader.reflection().unwrap())
                })
                .collect(),
        )
    }

    fn stage<'a>(&'a self, name: &str, specialization: &'a [(u32, Value)]) -> Stage<'a> {
        let (_, code, reflection) = self.0.iter().find(|(n, _, _)| n == name).unwrap();
        Stage { spirv: code, reflection, specialization }
    }
}

/// A manager on `gpu`, told (on top of `options`) that the device has
/// graphics pipeline libraries where `Gpu` enabled them.
fn manager(gpu: &Gpu, options: PipelineOptions) -> PipelineManager {
    let options = options.features(options.features.with_graphics_pipeline_library(gpu.graphics_pipeline_library));
    // SAFETY: `Gpu` enables dynamic rendering, graphics pipeline libraries
    // and the features in `gpu.features`; every test drops its managers
    // (after its renders, which wait for the queue) before the device.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options) }
}

fn with_features(gpu: &Gpu) -> PipelineOptions {
    PipelineOptions::new().features(DeviceFeatures::from_enabled(&gpu.features))
}

fn pipeline(
    manager: &PipelineManager,
    program: &GraphicsProgram<'_>,
    state: &GraphicsState,
) -> Result<Arc<PipelineSlot>, VulkanError> {
    // SAFETY: the modules come from smolv-build with their reflection; the
    // states use formats and sample counts lavapipe supports (checked in
    // `depth_stencil_format` for the depth/stencil one).
    unsafe { manager.get_program_pipeline(program, state) }
}

fn depth_stencil_format(gpu: &Gpu) -> vk::Format {
    [vk::Format::D32_SFLOAT_S8_UINT, vk::Format::D24_UNORM_S8_UINT]
        .into_iter()
        .find(|&format| {
            // SAFETY: a query on live handles.
            let properties = unsafe { gpu.instance.get_physical_device_format_properties(gpu.physical, format) };
            properties.optimal_tiling_features.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
        })
        .expect("a depth/stencil format")
}

fn diff(after: LibraryCounts, before: LibraryCounts) -> [usize; 4] {
    [
        after.vertex_input - before.vertex_input,
        after.pre_rasterization - before.pre_rasterization,
        after.fragment_shader - before.fragment_shader,
        after.fragment_output - before.fragment_output,
    ]
}

#[test]
fn each_library_is_keyed_by_exactly_the_state_its_part_owns() {
    let gpu = Gpu::new();
    let modules = Modules::compile();
    let depth_stencil = depth_stencil_format(&gpu);
    {
        let manager = manager(&gpu, with_features(&gpu));
        let program = GraphicsProgram::new(modules.stage("colored.vert", &[]), modules.stage("colored.frag", &[]));
        let base = GraphicsState {
            depth_format: depth_stencil,
            stencil_format: depth_stencil,
            depth_test: Some(DepthTest::default()),
            ..GraphicsState::default()
        };
        let first = pipeline(&manager, &program, &base).unwrap();
        assert_eq!(diff(manager.library_counts(), LibraryCounts::default()), [1, 1, 1, 1]);
        // Each change, and the parts that must get a new library ([vertex
        // input, pre-rasterization, fragment shader, fragment output]).
        let stencil = StencilState::both(StencilFace { pass_op: vk::StencilOp::REPLACE, ..StencilFace::default() });
        let changes: Vec<(&str, GraphicsState, [usize; 4])> = vec![
            (
                "topology",
                GraphicsState { topology: vk::PrimitiveTopology::TRIANGLE_STRIP, ..base.clone() },
                [1, 0, 0, 0],
            ),
            (
                "explicit vertex input",
                GraphicsState {
                    vertex_input: VertexInput::Explicit {
                        bindings: vec![
                            vk::VertexInputBindingDescription {
                                binding: 0,
                                stride: 8,
                                input_rate: vk::VertexInputRate::VERTEX,
                            },
                            vk::VertexInputBindingDescription {
                                binding: 1,
                                stride: 16,
                                input_rate: vk::VertexInputRate::INSTANCE,
                            },
                        ],
                        attributes: vec![
                            vk::VertexInputAttributeDescription {
                                location: 0,
                                binding: 0,
                                format: vk::Format::R32G32_SFLOAT,
                                offset: 0,
                            },
                            vk::VertexInputAttributeDescription {
                                location: 1,
                                binding: 1,
                                format: vk::Format::R32G32B32A32_SFLOAT,
                                offset: 0,
                            },
                        ],
                    },
                    ..base.clone()
                },
                [1, 0, 0, 0],
            ),
            ("cull mode", GraphicsState { cull_mode: vk::CullModeFlags::BACK, ..base.clone() }, [0, 1, 0, 0]),
            ("front face", GraphicsState { front_face: vk::FrontFace::CLOCKWISE, ..base.clone() }, [0, 1, 0, 0]),
            ("polygon mode", GraphicsState { polygon_mode: vk::PolygonMode::LINE, ..base.clone() }, [0, 1, 0, 0]),
            (
                "depth bias",
                GraphicsState {
                    depth_bias: Some(DepthBias { constant_factor: 1.0, clamp: 0.5, slope_factor: 2.0 }),
                    ..base.clone()
                },
                [0, 1, 0, 0],
            ),
            (
                "dynamic cull mode",
                GraphicsState { dynamic_states: vec![vk::DynamicState::CULL_MODE], ..base.clone() },
                [0, 1, 0, 0],
            ),
            ("stencil", GraphicsState { stencil: Some(stencil), ..base.clone() }, [0, 0, 1, 0]),
            (
                "depth compare",
                GraphicsState {
                    depth_test: Some(DepthTest { write: false, compare_op: vk::CompareOp::GREATER }),
                    ..base.clone()
                },
                [0, 0, 1, 0],
            ),
            (
                "dynamic stencil reference",
                GraphicsState {
                    stencil: Some(stencil),
                    dynamic_states: vec![vk::DynamicState::STENCIL_REFERENCE],
                    ..base.clone()
                },
                [0, 0, 1, 0],
            ),
            (
                "blend",
                GraphicsState { blend: vec![AttachmentBlend::PREMULTIPLIED_ALPHA], ..base.clone() },
                [0, 0, 0, 1],
            ),
            (
                "write mask",
                GraphicsState {
                    blend: vec![AttachmentBlend { equation: None, write_mask: vk::ColorComponentFlags::R }],
                    ..base.clone()
                },
                [0, 0, 0, 1],
            ),
            (
                "blend constants",
                GraphicsState {
                    blend: vec![AttachmentBlend {
                        equation: Some(BlendEquation {
                            src_color: vk::BlendFactor::CONSTANT_COLOR,
                            ..BlendEquation::ALPHA
                        }),
                        write_mask: vk::ColorComponentFlags::RGBA,
                    }],
                    blend_constants: [0.5; 4],
                    ..base.clone()
                },
                [0, 0, 0, 1],
            ),
            (
                "dynamic blend constants",
                GraphicsState { dynamic_states: vec![vk::DynamicState::BLEND_CONSTANTS], ..base.clone() },
                [0, 0, 0, 1],
            ),
            (
                "colour format",
                GraphicsState { color_formats: vec![vk::Format::B8G8R8A8_UNORM], ..base.clone() },
                [0, 0, 0, 1],
            ),
            (
                "4× MSAA",
                GraphicsState {
                    multisample: Multisample { samples: vk::SampleCountFlags::TYPE_4, ..Multisample::default() },
                    ..base.clone()
                },
                [0, 0, 0, 1],
            ),
            (
                "alpha to coverage",
                GraphicsState {
                    multisample: Multisample {
                        samples: vk::SampleCountFlags::TYPE_4,
                        alpha_to_coverage: true,
                        ..Multisample::default()
                    },
                    ..base.clone()
                },
                [0, 0, 0, 1],
            ),
            // Per-sample shading is read by the fragment-shader library too.
            (
                "sample shading",
                GraphicsState {
                    multisample: Multisample {
                        samples: vk::SampleCountFlags::TYPE_4,
                        sample_shading: Some(1.0),
                        ..Multisample::default()
                    },
                    ..base.clone()
                },
                [0, 0, 1, 1],
            ),
        ];
        for (what, state, expected) in changes {
            let before = manager.library_counts();
            let slot = pipeline(&manager, &program, &state).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(!Arc::ptr_eq(&slot, &first), "{what}: a new pipeline");
            assert_eq!(diff(manager.library_counts(), before), expected, "{what}: new libraries per part");
        }
        // State that no library reads is no new pipeline: without a depth
        // or stencil attachment the tests are off, whatever they say.
        let colour_only = GraphicsState::default();
        let plain = pipeline(&manager, &program, &colour_only).unwrap();
        let before = manager.library_counts();
        let ignored = GraphicsState { depth_test: Some(DepthTest::default()), stencil: Some(stencil), ..colour_only };
        assert!(Arc::ptr_eq(&plain, &pipeline(&manager, &program, &ignored).unwrap()));
        assert_eq!(manager.library_counts(), before);
    }
    gpu.finish();
}

#[test]
fn state_that_needs_a_missing_feature_is_refused_before_the_driver() {
    let gpu = Gpu::new();
    let modules = Modules::compile();
    {
        // A manager told of no features, as for a device that has none.
        let manager = manager(&gpu, PipelineOptions::default());
        let program = GraphicsProgram::new(modules.stage("colored.vert", &[]), modules.stage("colored.frag", &[]));
        let refused = |state: GraphicsState| match pipeline(&manager, &program, &state) {
            Err(VulkanError::FeatureNotEnabled { feature, .. }) => feature,
            other => panic!("expected FeatureNotEnabled, got {other:?}"),
        };
        assert_eq!(
            refused(GraphicsState { polygon_mode: vk::PolygonMode::LINE, ..GraphicsState::default() }),
            "fillModeNonSolid"
        );
        assert_eq!(
            refused(GraphicsState { depth_bounds: Some([0.0, 0.5]), ..GraphicsState::default() }),
            "depthBounds"
        );
        assert_eq!(
            refused(GraphicsState {
                multisample: Multisample {
                    samples: vk::SampleCountFlags::TYPE_4,
                    sample_shading: Some(0.5),
                    ..Multisample::default()
                },
                ..GraphicsState::default()
            }),
            "sampleRateShading"
        );
        let geometry = GraphicsProgram {
            geometry: Some(modules.stage("green.geom", &[])),
            ..GraphicsProgram::new(modules.stage("index.vert", &[]), modules.stage("colored.frag", &[]))
        };
        assert!(matches!(
            pipeline(&manager, &geometry, &GraphicsState::default()),
            Err(VulkanError::FeatureNotEnabled { feature: "geometryShader", .. })
        ));
        // Mistakes the manager catches whatever the features.
        let swapped = GraphicsProgram::new(modules.stage("colored.frag", &[]), modules.stage("colored.vert", &[]));
        assert!(matches!(pipeline(&manager, &swapped, &GraphicsState::default()), Err(VulkanError::WrongStage { .. })));
        let two_blends = GraphicsState { blend: vec![AttachmentBlend::OPAQUE; 2], ..GraphicsState::default() };
        assert!(matches!(
            pipeline(&manager, &program, &two_blends),
            Err(VulkanError::BlendCount { blends: 2, attachments: 1 })
        ));
        let unknown =
            GraphicsState { dynamic_states: vec![vk::DynamicState::LINE_STIPPLE_EXT], ..GraphicsState::default() };
        assert!(matches!(pipeline(&manager, &program, &unknown), Err(VulkanError::DynamicStateUnsupported(_))));
        assert_eq!(manager.library_counts(), LibraryCounts::default(), "nothing reached the driver");
        // Lavapipe 22.3 has no depth bounds; where a device has them, the
        // state builds.
        let bounds = GraphicsState {
            depth_format: vk::Format::D32_SFLOAT,
            depth_test: Some(DepthTest::default()),
            depth_bounds: Some([0.0, 0.5]),
            ..GraphicsState::default()
        };
        let with_features = self::manager(&gpu, with_features(&gpu));
        let result = pipeline(&with_features, &program, &bounds);
        if gpu.features.depth_bounds == vk::TRUE {
            result.unwrap();
        } else {
            assert!(matches!(result, Err(VulkanError::FeatureNotEnabled { feature: "depthBounds", .. })));
        }
    }
    gpu.finish();
}

#[test]
fn geometry_and_tessellation_stages_render_where_the_device_has_them() {
    let gpu = Gpu::new();
    let modules = Modules::compile();
    let centre = |pixels: &[u8]| {
        let at = (16 * 32 + 8) * 4;
        [pixels[at], pixels[at + 1], pixels[at + 2]]
    };
    {
        for options in [with_features(&gpu), with_features(&gpu).force_monolithic(true)] {
            let manager = manager(&gpu, options);
            let plain = GraphicsProgram::new(modules.stage("index.vert", &[]), modules.stage("colored.frag", &[]));
            let slot = pipeline(&manager, &plain, &GraphicsState::default()).unwrap();
            assert_eq!(centre(&gpu.draw(slot.current(), 32, |_| {})), [255, 0, 0], "the vertex shader's red");
            assert_eq!(gpu.features.geometry_shader, vk::TRUE, "lavapipe has geometry shaders");
            let geometry = GraphicsProgram { geometry: Some(modules.stage("green.geom", &[])), ..plain };
            let slot = pipeline(&manager, &geometry, &GraphicsState::default()).unwrap();
            assert_eq!(centre(&gpu.draw(slot.current(), 32, |_| {})), [0, 255, 0], "the geometry stage ran");
            assert_eq!(gpu.features.tessellation_shader, vk::TRUE, "lavapipe has tessellation shaders");
            let tessellation = GraphicsProgram {
                tessellation: Some([modules.stage("pass.tesc", &[]), modules.stage("blue.tese", &[])]),
                ..plain
            };
            let patches = GraphicsState {
                topology: vk::PrimitiveTopology::PATCH_LIST,
                patch_control_points: 3,
                ..GraphicsState::default()
            };
            assert!(matches!(
                pipeline(&manager, &tessellation, &GraphicsState::default()),
                Err(VulkanError::PatchTopology)
            ));
            let slot = pipeline(&manager, &tessellation, &patches).unwrap();
            assert_eq!(centre(&gpu.draw(slot.current(), 32, |_| {})), [0, 0, 255], "the tessellation stages ran");
        }
    }
    gpu.finish();
}

/// Host-visible buffers, images and views one test frame needs.
struct Frame {
    memories: Vec<vk::DeviceMemory>,
    images: Vec<vk::Image>,
    views: Vec<vk::ImageView>,
}

impl Frame {
    fn image(
        &mut self,
        gpu: &Gpu,
        format: vk::Format,
        samples: vk::SampleCountFlags,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
    ) -> (vk::Image, vk::ImageView) {
        // `destroy` frees everything.
        let (image, memory, view) = gpu.image(format, SIZE, samples, usage, aspect);
        self.memories.push(memory);
        self.images.push(image);
        self.views.push(view);
        (image, view)
    }

    fn destroy(self, gpu: &Gpu) {
        // SAFETY: the queue is idle; nothing uses these any more.
        unsafe {
            for view in self.views {
                gpu.device.destroy_image_view(view, None);
            }
            for image in self.images {
                gpu.device.destroy_image(image, None);
            }
            for memory in self.memories {
                gpu.device.free_memory(memory, None);
            }
        }
    }
}

const SIZE: u32 = 32;

fn range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(1)
}

fn barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    layouts: (vk::ImageLayout, vk::ImageLayout),
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
        .old_layout(layouts.0)
        .new_layout(layouts.1)
        .image(image)
        .subresource_range(range(aspect))
}

#[test]
fn msaa_stencil_and_a_compute_pass_render_through_the_manager() {
    let gpu = Gpu::new();
    let modules = Modules::compile();
    let depth_stencil = depth_stencil_format(&gpu);
    let samples = vk::SampleCountFlags::TYPE_4;
    assert!(gpu.properties.limits.framebuffer_color_sample_counts.contains(samples));
    assert!(gpu.properties.limits.framebuffer_stencil_sample_counts.contains(samples));
    let pixels;
    {
        let manager = manager(&gpu, with_features(&gpu));
        // The compute pass: its layout from reflection, SCALE specialized,
        // created on the background worker.
        let scale = [(0, Value::F32(1.0))];
        let compute = modules.stage("vertices.comp", &scale);
        // SAFETY: a module from smolv-build with its reflection.
        let compute_slot = unsafe { manager.request_compute(&compute) }.unwrap();
        // SAFETY: as above.
        assert!(Arc::ptr_eq(&compute_slot, &unsafe { manager.request_compute(&compute) }.unwrap()));
        // SAFETY: as above.
        let not_compute = unsafe { manager.get_compute(&modules.stage("colored.vert", &[])) };
        assert!(matches!(not_compute, Err(VulkanError::WrongStage { .. })));
        let compute_layout = manager.compute_layout(&compute).unwrap();

        let program = GraphicsProgram::new(modules.stage("colored.vert", &[]), modules.stage("colored.frag", &[]));
        let base = GraphicsState {
            color_formats: vec![vk::Format::R8G8B8A8_UNORM],
            depth_format: depth_stencil,
            stencil_format: depth_stencil,
            multisample: Multisample { samples, ..Multisample::default() },
            ..GraphicsState::default()
        };
        // The mask: writes stencil 1 and no colour (its green must not show).
        let mark = GraphicsState {
            stencil: Some(StencilState::both(StencilFace {
                pass_op: vk::StencilOp::REPLACE,
                reference: 1,
                ..StencilFace::default()
            })),
            blend: vec![AttachmentBlend { equation: None, write_mask: vk::ColorComponentFlags::empty() }],
            depth_bias: Some(DepthBias { constant_factor: 1.0, clamp: 0.0, slope_factor: 1.0 }),
            ..base.clone()
        };
        // Red where the stencil holds 1, shaded per sample where the device can.
        let fill = GraphicsState {
            stencil: Some(StencilState::both(StencilFace {
                compare_op: vk::CompareOp::EQUAL,
                reference: 1,
                ..StencilFace::default()
            })),
            multisample: Multisample {
                samples,
                sample_shading: (gpu.features.sample_rate_shading == vk::TRUE).then_some(1.0),
                ..Multisample::default()
            },
            depth_test: Some(DepthTest { write: false, compare_op: vk::CompareOp::LESS_OR_EQUAL }),
            ..base.clone()
        };
        // Half-transparent blue turned into half the samples' coverage.
        let coverage = GraphicsState {
            multisample: Multisample { samples, alpha_to_coverage: true, ..Multisample::default() },
            cull_mode: vk::CullModeFlags::NONE,
            ..base.clone()
        };
        let slots = [&mark, &fill, &coverage].map(|state| pipeline(&manager, &program, state).unwrap());
        let counts = manager.library_counts();
        assert_eq!(
            (counts.vertex_input, counts.pre_rasterization),
            (1, 2),
            "one vertex-input library for all three; depth bias makes the mask's pre-rasterization its own"
        );

        let vertex_bytes = 12 * 6 * 4;
        let (vertices, vertex_memory) = gpu.buffer_with(
            &vec![0; vertex_bytes],
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::VERTEX_BUFFER,
        );
        let mut frame = Frame { memories: Vec::new(), images: Vec::new(), views: Vec::new() };
        let color = vk::ImageAspectFlags::COLOR;
        let ds_aspect = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
        let (msaa, msaa_view) =
            frame.image(&gpu, vk::Format::R8G8B8A8_UNORM, samples, vk::ImageUsageFlags::COLOR_ATTACHMENT, color);
        let (resolved, resolved_view) = frame.image(
            &gpu,
            vk::Format::R8G8B8A8_UNORM,
            vk::SampleCountFlags::TYPE_1,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            color,
        );
        let (ds, ds_view) =
            frame.image(&gpu, depth_stencil, samples, vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT, ds_aspect);
        let bytes = (SIZE * SIZE * 4) as usize;
        let (readback, readback_memory) = gpu.buffer_with(&vec![0; bytes], vk::BufferUsageFlags::TRANSFER_DST);
        let d = &gpu.device;
        // SAFETY: recording and submitting commands on objects this test
        // owns; the queue is waited for before anything is read or freed.
        unsafe {
            let pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&[vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::STORAGE_BUFFER,
                        descriptor_count: 1,
                    }]),
                    None,
                )
                .unwrap();
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&compute_layout.set_layouts),
                )
                .unwrap()[0];
            let info = [vk::DescriptorBufferInfo { buffer: vertices, offset: 0, range: vk::WHOLE_SIZE }];
            d.update_descriptor_sets(
                &[vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&info)],
                &[],
            );
            let command = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default().command_pool(gpu.pool).command_buffer_count(1),
                )
                .unwrap()[0];
            d.begin_command_buffer(command, &vk::CommandBufferBeginInfo::default()).unwrap();
            d.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, compute_slot.wait().unwrap());
            d.cmd_bind_descriptor_sets(command, vk::PipelineBindPoint::COMPUTE, compute_slot.layout(), 0, &[set], &[]);
            d.cmd_dispatch(command, 1, 1, 1);
            let after_compute = vk::MemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COMPUTE_SHADER)
                .src_access_mask(vk::AccessFlags2::SHADER_STORAGE_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT)
                .dst_access_mask(vk::AccessFlags2::VERTEX_ATTRIBUTE_READ);
            let attachment =
                (vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT, vk::AccessFlags2::COLOR_ATTACHMENT_WRITE);
            let depth_stages =
                vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS;
            let images = [
                barrier(
                    msaa,
                    color,
                    (vk::ImageLayout::UNDEFINED, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
                    (vk::PipelineStageFlags2::TOP_OF_PIPE, vk::AccessFlags2::NONE),
                    attachment,
                ),
                barrier(
                    resolved,
                    color,
                    (vk::ImageLayout::UNDEFINED, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
                    (vk::PipelineStageFlags2::TOP_OF_PIPE, vk::AccessFlags2::NONE),
                    attachment,
                ),
                barrier(
                    ds,
                    ds_aspect,
                    (vk::ImageLayout::UNDEFINED, vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
                    (vk::PipelineStageFlags2::TOP_OF_PIPE, vk::AccessFlags2::NONE),
                    (
                        depth_stages,
                        vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                    ),
                ),
            ];
            d.cmd_pipeline_barrier2(
                command,
                &vk::DependencyInfo::default().memory_barriers(&[after_compute]).image_memory_barriers(&images),
            );
            let area =
                vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: SIZE, height: SIZE } };
            let colors = [vk::RenderingAttachmentInfo::default()
                .image_view(msaa_view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                .resolve_image_view(resolved_view)
                .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)];
            let depth_stencil_attachment = vk::RenderingAttachmentInfo::default()
                .image_view(ds_view)
                .image_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .clear_value(vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 } });
            d.cmd_begin_rendering(
                command,
                &vk::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(1)
                    .color_attachments(&colors)
                    .depth_attachment(&depth_stencil_attachment)
                    .stencil_attachment(&depth_stencil_attachment),
            );
            let viewport = vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: SIZE as f32,
                height: SIZE as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            d.cmd_set_viewport(command, 0, &[viewport]);
            d.cmd_set_scissor(command, 0, &[area]);
            d.cmd_bind_vertex_buffers(command, 0, &[vertices], &[0]);
            for (slot, first) in slots.iter().zip([0, 3, 6]) {
                d.cmd_bind_pipeline(command, vk::PipelineBindPoint::GRAPHICS, slot.current());
                d.cmd_draw(command, if first == 6 { 6 } else { 3 }, 1, first, 0);
            }
            d.cmd_end_rendering(command);
            let to_copy = barrier(
                resolved,
                color,
                (vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL, vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
                attachment,
                (vk::PipelineStageFlags2::COPY, vk::AccessFlags2::TRANSFER_READ),
            );
            d.cmd_pipeline_barrier2(command, &vk::DependencyInfo::default().image_memory_barriers(&[to_copy]));
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers::default().aspect_mask(color).layer_count(1))
                .image_extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 });
            d.cmd_copy_image_to_buffer(command, resolved, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, readback, &[region]);
            d.end_command_buffer(command).unwrap();
            let commands = [command];
            d.queue_submit(gpu.queue, &[vk::SubmitInfo::default().command_buffers(&commands)], vk::Fence::null())
                .unwrap();
            d.queue_wait_idle(gpu.queue).unwrap();
            let mapped = d.map_memory(readback_memory, 0, bytes as u64, vk::MemoryMapFlags::empty()).unwrap();
            pixels = std::slice::from_raw_parts(mapped.cast::<u8>(), bytes).to_vec();
            d.unmap_memory(readback_memory);
            d.free_command_buffers(gpu.pool, &commands);
            d.destroy_descriptor_pool(pool, None);
            for (buffer, memory) in [(vertices, vertex_memory), (readback, readback_memory)] {
                d.destroy_buffer(buffer, None);
                d.free_memory(memory, None);
            }
        }
        frame.destroy(&gpu);
    }
    let at = |x: u32, y: u32| {
        let i = ((y * SIZE + x) * 4) as usize;
        [pixels[i], pixels[i + 1], pixels[i + 2]]
    };
    // Inside the mask (upper left in the image): the fill's red; below the
    // diagonal, outside it: nothing, as the stencil kept the fill out.
    assert_eq!(at(4, 4), [255, 0, 0], "the stencil let the fill in");
    assert_eq!(at(20, 14), [0, 0, 0], "the stencil kept the fill out");
    assert!(pixels.chunks(4).all(|p| p[1] == 0), "the mask's write mask kept its green out");
    // Pixels the diagonal crosses are partly covered: resolved from 4
    // samples, they are neither red nor black.
    let edge = (0..SIZE).filter(|&x| (1..255).contains(&at(x, SIZE - 1 - x)[0])).count();
    assert!(edge > SIZE as usize / 2, "only {edge} partly covered pixels on the diagonal: no MSAA?");
    // Alpha 0.5 with alpha-to-coverage: about half the samples are blue.
    let blue = at(28, 28)[2];
    assert!((64..=192).contains(&blue), "alpha to coverage gave blue {blue}");
    gpu.finish();
}
