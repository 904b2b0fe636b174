//! The game's graphics programs: which embedded shaders, which spec
//! constants, which vertex layout and which render target each one uses,
//! and how long their pipelines took to build.

use std::time::{Duration, Instant};

use ash::vk;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, PipelineSlot};

use crate::error::GameError;
use crate::shaders::Shaders;

/// Format of the off-screen scene the world is drawn into before post-processing.
pub(crate) const SCENE_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;

/// The programs, in the order a frame draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Program {
    Background,
    Rocks,
    Ship,
    Bullets,
    Particles,
    Post,
    Hud,
}

/// Vertex buffer layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VertexLayout {
    /// Vertices made up from `gl_VertexIndex`.
    None,
    /// Quad corners + one sprite instance (transform, colour).
    Sprite,
    /// Quad corners + one particle from the simulation buffer.
    Particle,
    /// One HUD rectangle instance (rect, colour).
    Hud,
}

/// Bytes per sprite instance: position, rotation, scale, colour.
pub(crate) const SPRITE_BYTES: usize = 32;
/// Bytes per HUD rectangle: corners, colour.
pub(crate) const HUD_BYTES: usize = 32;

struct ProgramSpec {
    vertex: &'static str,
    fragment: &'static str,
    specialization: &'static [(u32, Value)],
    layout: VertexLayout,
    /// Drawn into the scene (true) or onto the output image (false).
    scene: bool,
    blend: bool,
}

impl Program {
    pub(crate) const ALL: [Program; 7] =
        [Self::Background, Self::Rocks, Self::Ship, Self::Bullets, Self::Particles, Self::Post, Self::Hud];

    fn spec(self) -> ProgramSpec {
        let sprite = |fragment, shape| ProgramSpec {
            vertex: "sprite.vert",
            fragment,
            specialization: shape,
            layout: VertexLayout::Sprite,
            scene: true,
            blend: true,
        };
        match self {
            Self::Background => ProgramSpec {
                vertex: "background.wgsl#vs_main",
                fragment: "background.wgsl#fs_main",
                specialization: &[],
                layout: VertexLayout::None,
                scene: true,
                blend: false,
            },
            // sprite.frag's SHAPE constant (id 0), folded in at load time.
            Self::Ship => sprite("sprite.frag", &[(0, Value::I32(0))]),
            Self::Rocks => sprite("sprite.frag", &[(0, Value::I32(1))]),
            Self::Bullets => sprite("sprite.frag@additive", &[(0, Value::I32(2))]),
            Self::Particles => ProgramSpec {
                vertex: "particle.vert",
                fragment: "particle.slang#fs_main",
                specialization: &[],
                layout: VertexLayout::Particle,
                scene: true,
                blend: true,
            },
            Self::Post => ProgramSpec {
                vertex: "fullscreen.vert",
                fragment: "post.frag",
                specialization: &[],
                layout: VertexLayout::None,
                scene: false,
                blend: false,
            },
            Self::Hud => ProgramSpec {
                vertex: "hud.wgsl#vs_main",
                fragment: "hud.wgsl#fs_main",
                specialization: &[],
                layout: VertexLayout::Hud,
                scene: false,
                blend: true,
            },
        }
    }
}

/// Feature sets of the post-processing ubershader (`post.frag`): each is a
/// set of spec constants, specialized into the SPIR-V when its pipeline is
/// built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PostPreset {
    /// Bloom, vignette, chromatic aberration, ACES tone mapping.
    Arcade,
    /// Bloom, vignette, scanlines, Reinhard tone mapping.
    Retro,
    /// No effects.
    Clean,
}

impl PostPreset {
    /// The next preset, for the window's `P` key.
    pub(crate) fn next(self) -> Self {
        match self {
            Self::Arcade => Self::Retro,
            Self::Retro => Self::Clean,
            Self::Clean => Self::Arcade,
        }
    }

    /// `post.frag`'s constants: BLOOM (0), VIGNETTE (1), SCANLINES (2),
    /// CHROMATIC (3) and TONEMAP (4: 0 none, 1 Reinhard, 2 ACES).
    fn constants(self) -> [(u32, Value); 5] {
        let (bloom, vignette, scanlines, chromatic, tonemap) = match self {
            Self::Arcade => (true, true, false, true, 2),
            Self::Retro => (true, true, true, false, 1),
            Self::Clean => (false, false, false, false, 0),
        };
        [
            (0, Value::Bool(bloom)),
            (1, Value::Bool(vignette)),
            (2, Value::Bool(scanlines)),
            (3, Value::Bool(chromatic)),
            (4, Value::I32(tonemap)),
        ]
    }
}

fn graphics_state(spec: &ProgramSpec, output_format: vk::Format) -> GraphicsState {
    let attribute =
        |location, binding, format, offset| vk::VertexInputAttributeDescription { location, binding, format, offset };
    let corners = vk::VertexInputBindingDescription { binding: 0, stride: 8, input_rate: vk::VertexInputRate::VERTEX };
    let instances = |binding, stride| vk::VertexInputBindingDescription {
        binding,
        stride,
        input_rate: vk::VertexInputRate::INSTANCE,
    };
    let (vertex_bindings, vertex_attributes) = match spec.layout {
        VertexLayout::None => (Vec::new(), Vec::new()),
        VertexLayout::Sprite => (
            vec![corners, instances(1, SPRITE_BYTES as u32)],
            vec![
                attribute(0, 0, vk::Format::R32G32_SFLOAT, 0),
                attribute(1, 1, vk::Format::R32G32B32A32_SFLOAT, 0),
                attribute(2, 1, vk::Format::R32G32B32A32_SFLOAT, 16),
            ],
        ),
        VertexLayout::Particle => (
            vec![corners, instances(1, crate::game::Particle::BYTES as u32)],
            vec![
                attribute(0, 0, vk::Format::R32G32_SFLOAT, 0),
                attribute(1, 1, vk::Format::R32G32B32A32_SFLOAT, 0),
                attribute(2, 1, vk::Format::R32G32B32A32_SFLOAT, 16),
                attribute(3, 1, vk::Format::R32G32_SFLOAT, 32),
            ],
        ),
        VertexLayout::Hud => (
            vec![instances(0, HUD_BYTES as u32)],
            vec![
                attribute(0, 0, vk::Format::R32G32B32A32_SFLOAT, 0),
                attribute(1, 0, vk::Format::R32G32B32A32_SFLOAT, 16),
            ],
        ),
    };
    GraphicsState {
        color_formats: vec![if spec.scene { SCENE_FORMAT } else { output_format }],
        vertex_bindings,
        vertex_attributes,
        alpha_blend: spec.blend,
        ..GraphicsState::default()
    }
}

/// How long the game's pipelines took, for the table it prints.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PipelineTimings {
    /// Graphics pipelines built at load.
    pub(crate) count: usize,
    /// Whether they came from pipeline libraries.
    pub(crate) libraries: bool,
    /// Libraries + fast link of every pipeline (None when monolithic).
    pub(crate) fast_link: Option<Duration>,
    /// From the first request until every link-time-optimized pipeline had
    /// arrived from the background worker (None when monolithic).
    pub(crate) optimized: Option<Duration>,
    /// The same pipelines built monolithically by a second manager.
    pub(crate) monolithic: Duration,
}

/// A program's pipeline and how it was asked for.
pub(crate) struct ProgramPipeline {
    pub(crate) program: Program,
    pub(crate) slot: std::sync::Arc<PipelineSlot>,
    pub(crate) layout: smolv_runtime::vulkan::ProgramLayout,
}

/// Builds (or finds) the pipeline of `program`.
pub(crate) fn pipeline(
    manager: &PipelineManager,
    shaders: &Shaders,
    program: Program,
    post: PostPreset,
    output_format: vk::Format,
) -> Result<ProgramPipeline, GameError> {
    let spec = program.spec();
    let post_constants = post.constants();
    let fragment_constants = if program == Program::Post { &post_constants[..] } else { spec.specialization };
    let vertex = shaders.stage(spec.vertex, &[])?;
    let fragment = shaders.stage(spec.fragment, fragment_constants)?;
    // SAFETY: the modules were compiled and validated by smolv-build at
    // build time and come with their own reflection; the states use the
    // scene format and the output format the renderer draws to, and vertex
    // formats every Vulkan device supports (R32G32[B32A32]_SFLOAT).
    let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &graphics_state(&spec, output_format)) }?;
    let layout = manager.program_layout(&vertex, &fragment)?;
    Ok(ProgramPipeline { program, slot, layout })
}

/// Every program's shaders, for descriptor set creation.
pub(crate) fn reflections(
    shaders: &Shaders,
    program: Program,
) -> Result<[&smolv_runtime::reflect::Reflection; 2], GameError> {
    let spec = program.spec();
    Ok([&shaders.get(spec.vertex)?.reflection, &shaders.get(spec.fragment)?.reflection])
}

/// What loading the pipelines cost so far: the fast links are timed, the
/// background link-time optimization is being watched on a thread of its
/// own, so the first frame never waits for it.
pub(crate) struct LoadTimings {
    count: usize,
    /// Libraries + fast links, or the monolithic builds.
    built: Duration,
    /// Yields the time from the first request until every optimized
    /// pipeline had arrived (None when monolithic, or if they never did).
    optimized: Option<std::thread::JoinHandle<Option<Duration>>>,
}

/// Builds every program's pipeline with `manager`, timing it.
pub(crate) fn build_all(
    manager: &PipelineManager,
    shaders: &Shaders,
    post: PostPreset,
    output_format: vk::Format,
) -> Result<(Vec<ProgramPipeline>, LoadTimings), GameError> {
    let start = Instant::now();
    let pipelines = Program::ALL
        .iter()
        .map(|&program| pipeline(manager, shaders, program, post, output_format))
        .collect::<Result<Vec<_>, _>>()?;
    let built = start.elapsed();
    let optimized = manager.uses_libraries().then(|| {
        let slots: Vec<_> = pipelines.iter().map(|p| std::sync::Arc::clone(&p.slot)).collect();
        std::thread::spawn(move || {
            let deadline = start + Duration::from_secs(60);
            while !slots.iter().all(|s| s.is_optimized()) {
                if Instant::now() > deadline {
                    return None;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            Some(start.elapsed())
        })
    });
    let count = pipelines.len();
    Ok((pipelines, LoadTimings { count, built, optimized }))
}

impl LoadTimings {
    /// The timings for the table: waits for the watcher, and builds the
    /// same pipelines monolithically with a second manager as the peer
    /// (after the run, so that it competes with nothing).
    ///
    /// Both sides are measured cold. `main` turns Mesa's on-disk shader
    /// cache off before the driver loads (`MESA_SHADER_CACHE_DISABLE`);
    /// with it on, the peer, built second from the same shaders, would load
    /// the machine code the library side had just compiled instead of
    /// compiling it, and in a second run both sides would. The context
    /// likewise turns off the validation layer's cache of validated SPIR-V,
    /// which the second side would otherwise hit. The peer has a manager of
    /// its own (no libraries, analyses or pipelines to share) and no
    /// `VkPipelineCache`, like the library side.
    pub(crate) fn finish(
        self,
        device: &ash::Device,
        limits: &vk::PhysicalDeviceLimits,
        shaders: &Shaders,
        post: PostPreset,
        output_format: vk::Format,
    ) -> Result<PipelineTimings, GameError> {
        let mut timings = PipelineTimings { count: self.count, ..PipelineTimings::default() };
        let Some(watcher) = self.optimized else {
            timings.monolithic = self.built;
            return Ok(timings);
        };
        timings.libraries = true;
        timings.fast_link = Some(self.built);
        timings.optimized = watcher.join().ok().flatten();
        // SAFETY: the renderer's device and limits; the manager is dropped
        // at the end of this function, and no pipeline of it is ever used.
        let monolithic = unsafe {
            PipelineManager::new(
                device.clone(),
                vk::PipelineCache::null(),
                limits,
                PipelineOptions { force_monolithic: true, specialize_ahead: true, ..PipelineOptions::default() },
            )
        };
        let start = Instant::now();
        for &program in &Program::ALL {
            pipeline(&monolithic, shaders, program, post, output_format)?;
        }
        timings.monolithic = start.elapsed();
        // Nothing has used them; dropping the manager destroys them.
        Ok(timings)
    }
}
