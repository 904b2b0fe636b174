//! Every language draws, through every path smolv ships to wgpu, the
//! picture wgpu's own path draws from the same source (docs/wgpu.md,
//! "Which way up"):
//!
//! - WGSL and WESL as `wgpu::include_wgsl!` does: `ShaderSource::Wgsl` of
//!   the file (of the `wesl` crate's linked WGSL for WESL);
//! - GLSL, HLSL and Slang as `wgpu::include_spirv!` does with their plain
//!   SPIR-V from glslc and slangc: `ShaderSource::SpirV`.
//!
//! build.rs compiles `tests/paths/` with smolv (shipped as WGSL, or as
//! SPIR-V with the `spirv` feature) and without it (`build/reference.rs`).
//! The shaders draw one triangle in the target's top-left part, coloured
//! by corner, so that a flip in y or x shows. This test draws each
//! language through the paths its build has: WGSL (`create_shader_module`
//! with `Shader::wgsl`), or SPIR-V read by naga (`create_shader_module`)
//! and SPIR-V passthrough (`create_shader_module_passthrough`); and checks
//! each frame against the reference's, and the reference against where
//! the shaders put the triangle.

#[allow(dead_code, reason = "the test uses the device, not the program's helpers")]
#[path = "../src/gpu.rs"]
mod gpu;
#[allow(dead_code, reason = "the test uses the collector, not all of it")]
#[path = "../src/validation.rs"]
mod validation;

use std::borrow::Cow;

use smolv_runtime::wgpu::ModuleSource;

smolv_runtime::include_shaders!(static SHADERS);

const WIDTH: u32 = 64; // 256 bytes a row: wgpu's copy alignment
const HEIGHT: u32 = 48;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// `OUT_DIR/reference/FILE`, as `include_spirv!` would take it.
macro_rules! spirv {
    ($file:literal) => {
        wgpu::ShaderSource::SpirV(wgpu::util::make_spirv_raw(include_bytes!(concat!(
            env!("OUT_DIR"),
            "/reference/",
            $file
        ))))
    };
}

/// One language's triangle: smolv's two shaders by name, and the
/// reference sources of the same two.
struct Language {
    name: &'static str,
    vertex: &'static str,
    fragment: &'static str,
    reference: [wgpu::ShaderSource<'static>; 2],
}

fn languages() -> Vec<Language> {
    let wgsl = |text: &'static str| wgpu::ShaderSource::Wgsl(Cow::Borrowed(text));
    let up_wgsl = include_str!("paths/up.wgsl");
    let up_wesl = include_str!(concat!(env!("OUT_DIR"), "/reference/up.wesl.wgsl"));
    vec![
        Language {
            name: "WGSL",
            vertex: "up.wgsl#vs_main",
            fragment: "up.wgsl#fs_main",
            reference: [wgsl(up_wgsl), wgsl(up_wgsl)],
        },
        Language {
            name: "WESL",
            vertex: "up.wesl#vs_main",
            fragment: "up.wesl#fs_main",
            reference: [wgsl(up_wesl), wgsl(up_wesl)],
        },
        Language {
            name: "GLSL",
            vertex: "up.vert",
            fragment: "up.frag",
            reference: [spirv!("up.vert.spv"), spirv!("up.frag.spv")],
        },
        Language {
            name: "HLSL",
            vertex: "up.vert.hlsl",
            fragment: "up.frag.hlsl",
            reference: [spirv!("up.vert.hlsl.spv"), spirv!("up.frag.hlsl.spv")],
        },
        Language {
            name: "Slang",
            vertex: "up.slang#vs_main",
            fragment: "up.slang#fs_main",
            reference: [spirv!("up.slang.vs_main.spv"), spirv!("up.slang.fs_main.spv")],
        },
    ]
}

/// The ways smolv hands a shader to wgpu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// The WGSL the build made, `ShaderSource::Wgsl`.
    Wgsl,
    /// The SPIR-V the build made, `ShaderSource::SpirV` (naga reads it).
    SpirvThroughNaga,
    /// The SPIR-V the build made, straight to the Vulkan driver.
    Passthrough,
}

/// The paths this build can take: it shipped WGSL, or SPIR-V with the
/// `spirv` feature (both run in CI: scripts/test.sh).
const PATHS: &[Path] =
    if cfg!(feature = "spirv") { &[Path::SpirvThroughNaga, Path::Passthrough] } else { &[Path::Wgsl] };

fn smolv_module(device: &wgpu::Device, name: &str, path: Path) -> wgpu::ShaderModule {
    let shader: &smolv_runtime::Shader = SHADERS.get(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let source = ModuleSource::of(shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    let shipped = if matches!(source, ModuleSource::Wgsl(_)) { Path::Wgsl } else { Path::SpirvThroughNaga };
    let expected = if path == Path::Wgsl { Path::Wgsl } else { Path::SpirvThroughNaga };
    assert_eq!(shipped, expected, "{name} did not ship for {path:?}");
    match path {
        Path::Wgsl | Path::SpirvThroughNaga => {
            smolv_runtime::wgpu::create_shader_module(device, shader).unwrap_or_else(|e| panic!("{name}: {e}"))
        }
        // SAFETY: smolv-build validated the SPIR-V for Vulkan (spirv-val);
        // the shaders use no feature or binding, and the validation layer
        // checks the module and pipeline below.
        #[allow(unsafe_code)]
        Path::Passthrough => unsafe { smolv_runtime::wgpu::create_shader_module_passthrough(device, shader) }
            .unwrap_or_else(|e| panic!("{name}: {e}")),
    }
}

/// Draws the triangle with `vertex` and `fragment` into a cleared target
/// and reads it back as RGBA8 rows.
fn draw(gpu: &gpu::Gpu, vertex: &wgpu::ShaderModule, fragment: &wgpu::ShaderModule) -> Vec<u8> {
    let device = &gpu.device;
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[],
        immediate_size: 0,
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("up"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: vertex,
            entry_point: None,
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: fragment,
            entry_point: None,
            compilation_options: Default::default(),
            targets: &[Some(FORMAT.into())],
        }),
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    });
    let size = wgpu::Extent3d { width: WIDTH, height: HEIGHT, depth_or_array_layers: 1 };
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(WIDTH * 4 * HEIGHT),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("up"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
            })],
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        pass.draw(0..3, 0..1);
    }
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(WIDTH * 4), rows_per_image: None },
        },
        size,
    );
    gpu.queue.submit([encoder.finish()]);
    readback.map_async(wgpu::MapMode::Read, .., |result| result.expect("map the readback buffer"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("the GPU finishes");
    let pixels = readback.get_mapped_range(..).expect("mapped").to_vec();
    readback.unmap();
    pixels
}

/// The RGB of the pixel at `x`, `y` (`y` from the first row).
fn at(pixels: &[u8], x: u32, y: u32) -> [u8; 3] {
    let i = ((y * WIDTH + x) * 4) as usize;
    [pixels[i], pixels[i + 1], pixels[i + 2]]
}

/// Where the shaders put the triangle, in wgpu's coordinates (`y` up):
/// corners (-0.75, 0.125) red, (0.25, 0.125) green and (-0.75, 0.875)
/// blue, so rows 3 to 21 of 48 and columns 8 to 40 of 64, and nothing in
/// the bottom half.
fn assert_the_triangle_is_up(language: &str, pixels: &[u8]) {
    let dominant = |[r, g, b]: [u8; 3]| {
        if r > g.saturating_add(60) && r > b.saturating_add(60) {
            'r'
        } else if g > r.saturating_add(60) && g > b.saturating_add(60) {
            'g'
        } else if b > r.saturating_add(60) && b > g.saturating_add(60) {
            'b'
        } else {
            '?'
        }
    };
    let corners = [(9, 5), (9, 20), (34, 20)].map(|(x, y)| dominant(at(pixels, x, y)));
    assert_eq!(
        corners,
        ['b', 'r', 'g'],
        "{language}: the reference triangle's corners (blue top left, red and green below)"
    );
    for y in HEIGHT / 2..HEIGHT {
        for x in 0..WIDTH {
            assert_eq!(
                at(pixels, x, y),
                [0, 0, 0],
                "{language}: the reference draws nothing in the bottom half ({x}, {y})"
            );
        }
    }
}

/// The largest difference of any channel of any pixel.
fn largest_difference(a: &[u8], b: &[u8]) -> u8 {
    a.iter().zip(b).map(|(p, q)| p.abs_diff(*q)).max().unwrap_or(0)
}

#[test]
fn every_language_draws_through_every_path_what_wgpus_own_path_draws() {
    let gpu = gpu::Gpu::new().expect("a wgpu device on the Vulkan backend");
    let mut failures = Vec::new();
    for language in languages() {
        let [vertex, fragment] = language.reference.map(|source| {
            gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(language.name), source })
        });
        let reference = draw(&gpu, &vertex, &fragment);
        assert_the_triangle_is_up(language.name, &reference);
        for &path in PATHS {
            let vertex = smolv_module(&gpu.device, language.vertex, path);
            let fragment = smolv_module(&gpu.device, language.fragment, path);
            let frame = draw(&gpu, &vertex, &fragment);
            let difference = largest_difference(&frame, &reference);
            eprintln!("{} through {path:?}: largest channel difference {difference}", language.name);
            if difference > 2 {
                let flipped = (0..HEIGHT / 2).any(|y| (0..WIDTH).any(|x| at(&frame, x, HEIGHT - 1 - y) != [0, 0, 0]));
                failures.push(format!(
                    "{} through {path:?}: differs by {difference} (drawn in the bottom half: {flipped})",
                    language.name
                ));
            }
        }
    }
    let messages = validation::take();
    assert!(messages.is_empty(), "validation messages: {messages:#?}");
    assert!(failures.is_empty(), "{failures:#?}");
}
