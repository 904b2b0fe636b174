//! The picture, drawn once into a 128×96 RGBA8 target: a WGSL sky, a textured quad (GLSL vertex,
//! Slang fragment shader), a small flat quad (another override value, GLSL fragment shader) and a
//! ring (WESL fragment shader).

use std::error::Error;

use smolv_runtime::wgpu::{
    LayoutOptions, ModuleSource, Overrides, ProgramLayout, RenderState, ShaderModules, VertexBuffers,
};
use wgpu::util::DeviceExt;

use crate::gpu::Gpu;
use crate::shaders::{
    self, checker, checker_slang_fs_main as checker_fs, quad_vert, ring, ring_wesl_fs_main as ring_fs, sky,
    sky_wgsl_fs_main as sky_fs, sky_wgsl_vs_main as sky_vs, tint, tint_frag,
};

pub(crate) const WIDTH: u32 = 128;
pub(crate) const HEIGHT: u32 = 96;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The shaders of the four pipelines (the generated `NAME`s: a misspelt shader does not compile).
pub(crate) const SKY_VS: &str = sky_vs::NAME;
pub(crate) const SKY_FS: &str = sky_fs::NAME;
pub(crate) const QUAD_VS: &str = quad_vert::NAME;
pub(crate) const CHECKER_FS: &str = checker_fs::NAME;
pub(crate) const TINT_FS: &str = tint_frag::NAME;
pub(crate) const RING_FS: &str = ring_fs::NAME;
const FRAME_SHADERS: [&str; 6] = [SKY_VS, SKY_FS, QUAD_VS, CHECKER_FS, TINT_FS, RING_FS];

/// Where the frame's shader modules come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Modules {
    /// smolv's shaders, every one through `create_shader_module` (naga).
    Smolv,
    /// As [`Modules::Smolv`], but the tint quad's fragment module is
    /// SPIR-V passthrough, straight to the driver.
    PassthroughTint,
    /// wgpu's own paths on the original sources, no smolv: the reference
    /// picture (`reference.rs`).
    Reference,
}

/// Everything the frame needs besides the pipelines.
pub(crate) struct Scene {
    modules: ShaderModules<'static>,
    layouts: [ProgramLayout; 4],
    vertex_buffers: VertexBuffers,
    sky_group: wgpu::BindGroup,
    texture_group: wgpu::BindGroup,
    big_placement: wgpu::BindGroup,
    small_placement: wgpu::BindGroup,
    ring_placement: wgpu::BindGroup,
    quad: wgpu::Buffer,
    target: wgpu::Texture,
    readback: wgpu::Buffer,
    source: Modules,
    /// The tint quad's fragment module when passed through.
    passthrough: Option<wgpu::ShaderModule>,
    pipelines: Option<[wgpu::RenderPipeline; 4]>,
}

impl Scene {
    pub(crate) fn new(gpu: &Gpu, source: Modules) -> Result<Self, Box<dyn Error>> {
        let device = &gpu.device;
        // Each program's layout, from its modules (`MODULES`, in stage order).
        let (options, pair) =
            (LayoutOptions::new(), |[a, b]: [&str; 2]| Ok::<_, Box<dyn Error>>([shaders::get(a)?, shaders::get(b)?]));
        let layouts = [
            sky::wgpu::create_layout(device, pair(sky::MODULES)?, &options)?,
            checker::wgpu::create_layout(device, pair(checker::MODULES)?, &options)?,
            tint::wgpu::create_layout(device, pair(tint::MODULES)?, &options)?,
            ring::wgpu::create_layout(device, pair(ring::MODULES)?, &options)?,
        ];
        let uniform = |bytes: &[u8]| gpu.buffer(None, bytes, wgpu::BufferUsages::UNIFORM);
        let sky = uniform(sky_fs::Sky::new([0.1, 0.2, 0.5, 1.0], [0.9, 0.6, 0.3, 1.0]).as_bytes());
        let sky_group = sky::wgpu::BindGroup0 { sky: sky.as_entire_buffer_binding() }.create(device, &layouts[0])?;
        // The placements: `quad.vert`'s set 1, a uniform buffer each.
        let placement = |offset: [f32; 2]| uniform(quad_vert::Placement::new(offset).as_bytes());
        let (big, small, ringed) = (placement([-0.2, 0.0]), placement([0.5, -0.4]), placement([0.6, 0.5]));
        let big_placement =
            checker::wgpu::BindGroup1 { placement: big.as_entire_buffer_binding() }.create(device, &layouts[1])?;
        let small_placement =
            tint::wgpu::BindGroup1 { placement: small.as_entire_buffer_binding() }.create(device, &layouts[2])?;
        let ring_placement =
            ring::wgpu::BindGroup1 { placement: ringed.as_entire_buffer_binding() }.create(device, &layouts[3])?;

        let checker = checker_texture(gpu);
        let view = checker.create_view(&wgpu::TextureViewDescriptor::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor::default()); // nearest
        let texture_group =
            checker::wgpu::BindGroup0 { checker: &view, nearest: &sampler }.create(device, &layouts[1])?;

        let corners = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)];
        let vertices: Vec<quad_vert::Vertex> =
            corners.iter().map(|&(x, y)| quad_vert::Vertex::new([x, y], [(x + 1.0) * 0.5, (1.0 - y) * 0.5])).collect();
        let quad = gpu.buffer(Some("quad"), bytemuck::cast_slice(&vertices), wgpu::BufferUsages::VERTEX);
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let target = device.create_texture(&texture("target", WIDTH, HEIGHT, usage));
        let readback = gpu.readback("readback", u64::from(WIDTH * 4 * HEIGHT));
        let mut scene = Self {
            modules: ShaderModules::new(),
            layouts,
            vertex_buffers: VertexBuffers::new(&[quad_vert::VERTEX_LAYOUT])?,
            sky_group,
            texture_group,
            big_placement,
            small_placement,
            ring_placement,
            quad,
            target,
            readback,
            source,
            passthrough: None,
            pipelines: None,
        };
        scene.build(gpu)?;
        Ok(scene)
    }

    /// Where each shader's module came from: `sky.wgsl#fs_main: WGSL`.
    pub(crate) fn sources() -> Result<Vec<String>, Box<dyn Error>> {
        FRAME_SHADERS
            .iter()
            .map(|name| {
                let wgsl = matches!(ModuleSource::of(shaders::get(name)?)?, ModuleSource::Wgsl(_));
                Ok(format!("{name}: {}", if wgsl { "WGSL" } else { "SPIR-V" }))
            })
            .collect()
    }

    /// (Re)builds the three pipelines from the current modules.
    fn build(&mut self, gpu: &Gpu) -> Result<(), Box<dyn Error>> {
        let device = &gpu.device;
        if self.source == Modules::PassthroughTint && self.passthrough.is_none() {
            // SAFETY: smolv-build validated tint.frag for Vulkan; it needs no missing feature, its one
            // output matches the target, and the layout is its reflection's (the layer checks it all).
            #[allow(unsafe_code)]
            let module =
                unsafe { smolv_runtime::wgpu::create_shader_module_passthrough(device, shaders::get(TINT_FS)?)? };
            self.passthrough = Some(module);
        }
        let vertex_buffers = self.vertex_buffers.layouts();
        let quad = Overrides::of(shaders::get(QUAD_VS)?)?;
        let (mut big, mut small) = (quad.clone(), quad);
        // By spec id, not name: release builds strip names (unless `keep_interface_names`).
        let (big, small) = (big.set(0, 0.5f32)?.constants(), small.set(0, 0.25f32)?.constants());
        let mut modules = Vec::new();
        for name in FRAME_SHADERS {
            modules.push(match self.source {
                Modules::Reference => crate::reference::module(device, name)?,
                Modules::Smolv | Modules::PassthroughTint => self.modules.get(device, shaders::get(name)?)?.clone(),
            });
        }
        let tint_fs = self.passthrough.clone().unwrap_or_else(|| modules[4].clone());
        // The programs' render pipelines name each module's entry point.
        let (targets, layouts, fs) = ([Some(FORMAT.into())], &self.layouts, &modules);
        let primitive = wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::TriangleStrip, ..Default::default() };
        let state = |label, buffers, vertex_constants| RenderState {
            label: Some(label),
            buffers,
            targets: &targets,
            vertex_constants,
            primitive,
            ..Default::default()
        };
        let sky = sky::wgpu::render_pipeline(device, &layouts[0], &fs[0], &fs[1], &state("sky", &[], &[]));
        let checker_state = state("checker", &vertex_buffers, &big);
        let checker = checker::wgpu::render_pipeline(device, &layouts[1], &fs[2], &fs[3], &checker_state);
        let tint =
            tint::wgpu::render_pipeline(device, &layouts[2], &fs[2], &tint_fs, &state("tint", &vertex_buffers, &small));
        let ring =
            ring::wgpu::render_pipeline(device, &layouts[3], &fs[2], &fs[5], &state("ring", &vertex_buffers, &small));
        self.pipelines = Some([sky, checker, tint, ring]);
        Ok(())
    }

    /// Remakes the modules hot reload changed, and the pipelines if any
    /// did; returns what changed and what failed.
    #[cfg(feature = "hot-reload")]
    pub(crate) fn refresh(&mut self, gpu: &Gpu) -> Result<smolv_runtime::wgpu::Refreshed, Box<dyn Error>> {
        let refreshed = self.modules.refresh(&gpu.device);
        if !refreshed.changed.is_empty() {
            if refreshed.changed.iter().any(|name| name == TINT_FS) {
                self.passthrough = None; // made again from the new words
            }
            self.build(gpu)?;
        }
        Ok(refreshed)
    }

    /// Draws the frame and reads it back as RGBA8 rows.
    pub(crate) fn draw(&self, gpu: &Gpu) -> Result<Vec<u8>, Box<dyn Error>> {
        let [sky, checker, tint, ring] = self.pipelines.as_ref().ok_or("no pipelines")?;
        let view = self.target.create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(sky);
            sky::wgpu::set_bind_groups(&mut pass, &self.sky_group);
            pass.draw(0..3, 0..1);
            pass.set_vertex_buffer(0, self.quad.slice(..));
            pass.set_pipeline(checker);
            checker::wgpu::set_bind_groups(&mut pass, &self.texture_group, &self.big_placement);
            pass.set_immediates(0, bytemuck::cast_slice(&[1.0f32, 0.9, 0.6, 1.0]));
            pass.draw(0..4, 0..1);
            pass.set_pipeline(tint);
            tint::wgpu::set_bind_groups(&mut pass, &self.small_placement);
            pass.draw(0..4, 0..1);
            pass.set_pipeline(ring);
            ring::wgpu::set_bind_groups(&mut pass, &self.ring_placement);
            pass.draw(0..4, 0..1);
        }
        let layout = wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(WIDTH * 4), rows_per_image: None };
        let rows = wgpu::TexelCopyBufferInfo { buffer: &self.readback, layout };
        encoder.copy_texture_to_buffer(self.target.as_image_copy(), rows, self.target.size());
        gpu.queue.submit([encoder.finish()]);
        gpu.read(&self.readback, "readback buffer")
    }
}

/// The descriptor of a 2D RGBA8 texture.
fn texture(
    label: &'static str,
    width: u32,
    height: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::TextureDescriptor<'static> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage,
        view_formats: &[],
    }
}

/// A 4×4 checkerboard of cream and teal.
fn checker_texture(gpu: &Gpu) -> wgpu::Texture {
    let texels: Vec<u8> = (0..16)
        .flat_map(|i| if (i % 4 + i / 4) % 2 == 0 { [250, 240, 220, 255] } else { [20, 140, 140, 255] })
        .collect();
    let descriptor = texture("checker", 4, 4, wgpu::TextureUsages::TEXTURE_BINDING);
    // With COPY_DST added, the texels written in one copy.
    gpu.device.create_texture_with_data(&gpu.queue, &descriptor, wgpu::util::TextureDataOrder::LayerMajor, &texels)
}
