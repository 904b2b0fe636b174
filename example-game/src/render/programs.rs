//! The game's graphics programs: shaders, spec constants, vertex layout and render target of
//! each, and how long their pipelines took to build.

use std::mem::offset_of;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ash::vk;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::{
    AttachmentBlend, CacheLoad, ComputeSlot, GraphicsState, LibraryCounts, PipelineManager, PipelineOptions,
    PipelineSlot, VertexInput,
};

use crate::error::GameError;
use crate::shader_types::interface::VertexAttribute;
use crate::shader_types::particles_comp::Particle;
use crate::shader_types::{
    hud_wgsl_vs_main, particle_vert, particles_comp, post_frag, sprite_frag, sprite_frag_additive, sprite_vert,
};
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

/// A quad corner of the sprite and particle programs, per vertex from the corner buffer.
pub(crate) type Corner = [f32; 2];
/// The vertex shaders' location that the corner buffer feeds.
const CORNER_LOCATION: u32 = 0;

pub(super) struct ProgramSpec {
    pub(super) vertex: &'static str,
    pub(super) fragment: &'static str,
    specialization: Vec<(u32, Value)>,
    layout: VertexLayout,
    /// Drawn into the scene (true) or onto the output image (false).
    scene: bool,
    blend: bool,
}

impl Program {
    pub(crate) const ALL: [Program; 7] =
        [Self::Background, Self::Rocks, Self::Ship, Self::Bullets, Self::Particles, Self::Post, Self::Hud];

    /// The program's shaders and state; `post` gives `post.frag`'s constants.
    pub(super) fn spec(self, post: PostPreset) -> ProgramSpec {
        // sprite.frag's SHAPE constant, folded in at load time.
        let sprite =
            |fragment, specialization| ("sprite.vert", fragment, specialization, VertexLayout::Sprite, true, true);
        let (vertex, fragment, specialization, layout, scene, blend) = match self {
            Self::Background => {
                ("background.wgsl#vs_main", "background.wgsl#fs_main", Vec::new(), VertexLayout::None, true, false)
            }
            Self::Ship => sprite("sprite.frag", sprite_frag::SpecConstants { shape: 0 }.values().to_vec()),
            Self::Rocks => sprite("sprite.frag", sprite_frag::SpecConstants { shape: 1 }.values().to_vec()),
            Self::Bullets => {
                sprite("sprite.frag@additive", sprite_frag_additive::SpecConstants { shape: 2 }.values().to_vec())
            }
            Self::Particles => {
                ("particle.vert", "particle.slang#fs_main", Vec::new(), VertexLayout::Particle, true, true)
            }
            Self::Post => ("fullscreen.vert", "post.frag", post.constants().to_vec(), VertexLayout::None, false, false),
            Self::Hud => ("hud.wgsl#vs_main", "hud.wgsl#fs_main", Vec::new(), VertexLayout::Hud, false, true),
        };
        ProgramSpec { vertex, fragment, specialization, layout, scene, blend }
    }
}

/// Feature sets of the post-processing ubershader (`post.frag`): sets of spec constants.
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
        let all = <Self as clap::ValueEnum>::value_variants();
        all[(self as usize + 1) % all.len()]
    }

    /// `post.frag`'s constants (TONEMAP: 0 none, 1 Reinhard, 2 ACES).
    fn constants(self) -> [(u32, Value); 5] {
        let (bloom, vignette, scanlines, chromatic, tonemap) = match self {
            Self::Arcade => (true, true, false, true, 2),
            Self::Retro => (true, true, true, false, 1),
            Self::Clean => (false, false, false, false, 0),
        };
        post_frag::SpecConstants { bloom, vignette, scanlines, chromatic, tonemap }.values()
    }
}

/// `generated`'s location and format, read from `binding` at `offset`.
fn attribute(generated: &VertexAttribute, binding: u32, offset: u32) -> vk::VertexInputAttributeDescription {
    // The generated format is the `VkFormat` value; ash's is its i32.
    let format = vk::Format::from_raw(generated.format.cast_signed());
    vk::VertexInputAttributeDescription { location: generated.location, binding, format, offset }
}

/// Vertex buffer `binding`, `stride` bytes apart.
fn binding(binding: u32, stride: u32, input_rate: vk::VertexInputRate) -> vk::VertexInputBindingDescription {
    vk::VertexInputBindingDescription { binding, stride, input_rate }
}

/// The vertex input of a sprite-like program: the corner per vertex from binding 0, every other
/// location per instance from binding 1, `stride` bytes apart, at `instance_offset`'s offset
/// (None: an error naming `shader`).
fn corner_and_instances(
    shader: &str,
    attributes: &[VertexAttribute],
    stride: usize,
    instance_offset: impl Fn(&VertexAttribute) -> Option<usize>,
) -> Result<VertexLayoutDescription, GameError> {
    let bindings = vec![
        binding(0, size_of::<Corner>() as u32, vk::VertexInputRate::VERTEX),
        binding(1, stride as u32, vk::VertexInputRate::INSTANCE),
    ];
    let attributes = attributes
        .iter()
        .map(|a| match (a.location, instance_offset(a)) {
            (CORNER_LOCATION, _) => Ok(attribute(a, 0, 0)),
            (_, Some(offset)) => Ok(attribute(a, 1, offset as u32)),
            (location, None) => Err(GameError::Shader {
                name: shader.to_owned(),
                reason: format!("the game has no instance data for vertex input location {location}"),
            }),
        })
        .collect::<Result<_, _>>()?;
    Ok((bindings, attributes))
}

/// A program's vertex buffer bindings and attributes.
type VertexLayoutDescription = (Vec<vk::VertexInputBindingDescription>, Vec<vk::VertexInputAttributeDescription>);

fn graphics_state(spec: &ProgramSpec, output_format: vk::Format) -> Result<GraphicsState, GameError> {
    let (vertex_bindings, vertex_attributes) = match spec.layout {
        VertexLayout::None => (Vec::new(), Vec::new()),
        // The instance buffer holds whole `sprite.vert` vertices, at the generated offsets.
        VertexLayout::Sprite => {
            corner_and_instances(sprite_vert::NAME, &sprite_vert::VERTEX_ATTRIBUTES, sprite_vert::Vertex::SIZE, |a| {
                Some(a.offset as usize)
            })?
        }
        // The instances are the simulation's particles, read in place.
        VertexLayout::Particle => corner_and_instances(
            particle_vert::NAME,
            &particle_vert::VERTEX_ATTRIBUTES,
            particles_comp::Particles::ELEMENT_STRIDE,
            |a| match a.location {
                // position_velocity
                1 => Some(offset_of!(Particle, position)),
                // particle_color
                2 => Some(offset_of!(Particle, color)),
                // life_size
                3 => Some(offset_of!(Particle, life)),
                _ => None,
            },
        )?,
        VertexLayout::Hud => (
            vec![binding(0, hud_wgsl_vs_main::VERTEX_STRIDE, vk::VertexInputRate::INSTANCE)],
            hud_wgsl_vs_main::VERTEX_ATTRIBUTES.iter().map(|a| attribute(a, 0, a.offset)).collect(),
        ),
    };
    Ok(GraphicsState {
        color_formats: vec![if spec.scene { SCENE_FORMAT } else { output_format }],
        vertex_input: VertexInput::Explicit { bindings: vertex_bindings, attributes: vertex_attributes },
        blend: vec![if spec.blend { AttachmentBlend::PREMULTIPLIED_ALPHA } else { AttachmentBlend::OPAQUE }],
        ..GraphicsState::default()
    })
}

/// How long the game's pipelines took, for the table it prints.
#[derive(Clone, Debug, Default)]
pub(crate) struct PipelineTimings {
    /// Graphics pipelines built at load.
    pub(crate) count: usize,
    /// Libraries + fast link of every pipeline (None when monolithic).
    pub(crate) fast_link: Option<Duration>,
    /// From the first request until every optimized pipeline arrived (None when monolithic).
    pub(crate) optimized: Option<Duration>,
    /// The same pipelines built monolithically by a second manager.
    pub(crate) monolithic: Duration,
    /// The libraries the manager held after the load.
    pub(crate) library_counts: LibraryCounts,
    /// Materials whose first pipeline reused libraries of earlier ones.
    pub(crate) new_materials: Vec<MaterialTiming>,
    /// The particle compute pipeline, built on the manager's worker: from the request until the
    /// game had it, and how much of that it waited after the graphics pipelines.
    pub(crate) compute: (Duration, Duration),
    /// The persistent pipeline cache, if the game uses one.
    pub(crate) cache: Option<CacheReport>,
    /// The same load by a second manager without a `VkPipelineCache`.
    pub(crate) without_cache: Option<Duration>,
}

/// A material's first pipeline, from libraries partly shared with earlier ones, against monolithic.
#[derive(Clone, Debug)]
pub(crate) struct MaterialTiming {
    /// The program, lower case.
    pub(crate) name: String,
    /// Its libraries (the new ones) and the fast link.
    pub(crate) libraries: Duration,
    /// The parts that needed a new library.
    pub(crate) new_parts: Vec<&'static str>,
    /// The same pipeline, monolithic.
    pub(crate) monolithic: Duration,
}

/// What the pipeline cache file held and what was saved.
#[derive(Clone, Debug)]
pub(crate) struct CacheReport {
    pub(crate) path: PathBuf,
    pub(crate) load: CacheLoad,
    /// Bytes of driver data saved at the end of the run, or why not.
    pub(crate) saved: Result<usize, String>,
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
    let spec = program.spec(post);
    let vertex = shaders.stage(spec.vertex, &[])?;
    let fragment = shaders.stage(spec.fragment, &spec.specialization)?;
    // SAFETY: modules compiled and validated by smolv-build, with their reflection; the states use
    // the renderer's formats, and vertex formats (R32G32[B32A32]_SFLOAT) every device supports.
    let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &graphics_state(&spec, output_format)?) }?;
    let layout = manager.program_layout(&vertex, &fragment)?;
    Ok(ProgramPipeline { program, slot, layout })
}

/// Rebuilds `pipeline` if any of `names` is one of its stages: the generation its slot reaches.
#[cfg(feature = "hot-reload")]
pub(crate) fn rebuild(
    manager: &PipelineManager,
    shaders: &Shaders,
    pipeline: &ProgramPipeline,
    post: PostPreset,
    names: &[String],
) -> Result<Option<u64>, GameError> {
    let spec = pipeline.program.spec(post);
    if !names.iter().any(|name| name == spec.vertex || name == spec.fragment) {
        return Ok(None);
    }
    let (vertex, fragment) = (shaders.stage(spec.vertex, &[])?, shaders.stage(spec.fragment, &spec.specialization)?);
    let program = smolv_runtime::vulkan::GraphicsProgram::new(vertex, fragment);
    // SAFETY: modules compiled and validated by smolv-reload, with their reflection; the slot is
    // this manager's.
    Ok(Some(unsafe { manager.rebuild(&pipeline.slot, &program) }?))
}

/// The particle simulation's shader.
pub(crate) const PARTICLES_COMPUTE: &str = "particles.comp";

/// What loading the pipelines cost so far (the background optimization is watched on a thread).
pub(crate) struct LoadTimings {
    options: PipelineOptions,
    /// Per program: how long its first pipeline took, and the parts that needed a new library.
    programs: Vec<(Program, Duration, Vec<&'static str>)>,
    /// Libraries + fast links, or the monolithic builds.
    built: Duration,
    library_counts: LibraryCounts,
    compute: (Duration, Duration),
    /// Yields the time until every optimized pipeline arrived (None if they never did).
    optimized: Option<std::thread::JoinHandle<Option<Duration>>>,
}

/// The parts that got a new library between `before` and `after`.
fn new_parts(before: LibraryCounts, after: LibraryCounts) -> Vec<&'static str> {
    [
        (after.vertex_input > before.vertex_input, "vertex input"),
        (after.pre_rasterization > before.pre_rasterization, "pre-rasterization"),
        (after.fragment_shader > before.fragment_shader, "fragment shader"),
        (after.fragment_output > before.fragment_output, "fragment output"),
    ]
    .into_iter()
    .filter_map(|(new, part)| new.then_some(part))
    .collect()
}

/// Builds every program's pipeline with `manager`, timing each, and the particle compute
/// pipeline on the manager's worker meanwhile (its slot returned ready).
pub(crate) fn build_all(
    manager: &PipelineManager,
    options: PipelineOptions,
    shaders: &Shaders,
    post: PostPreset,
    output_format: vk::Format,
) -> Result<(Vec<ProgramPipeline>, std::sync::Arc<ComputeSlot>, LoadTimings), GameError> {
    let start = Instant::now();
    // SAFETY: a module compiled and validated by smolv-build, with its reflection.
    let compute = unsafe { manager.request_compute(&shaders.stage(PARTICLES_COMPUTE, &[])?) }?;
    let mut pipelines = Vec::with_capacity(Program::ALL.len());
    let mut programs = Vec::with_capacity(Program::ALL.len());
    for &program in &Program::ALL {
        let before = manager.library_counts();
        let began = Instant::now();
        pipelines.push(pipeline(manager, shaders, program, post, output_format)?);
        programs.push((program, began.elapsed(), new_parts(before, manager.library_counts())));
    }
    let built = start.elapsed();
    let waiting = Instant::now();
    compute.wait()?;
    let compute_time = (start.elapsed(), waiting.elapsed());
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
    let library_counts = manager.library_counts();
    let timings = LoadTimings { options, programs, built, library_counts, compute: compute_time, optimized };
    Ok((pipelines, compute, timings))
}

impl LoadTimings {
    /// The timings for the table: waits for the watcher, and builds the same pipelines again after
    /// the run with peer managers of their own and no `VkPipelineCache`: monolithic, and, with a
    /// pipeline cache, as the game built them. Every side is cold (`main` turns Mesa's shader
    /// cache off, the context the validation layer's), so the game's only cache is the file's.
    pub(crate) fn finish(
        self,
        device: &ash::Device,
        limits: &vk::PhysicalDeviceLimits,
        shaders: &Shaders,
        post: PostPreset,
        output_format: vk::Format,
        with_cache: bool,
    ) -> Result<PipelineTimings, GameError> {
        let mut timings = PipelineTimings {
            count: self.programs.len(),
            library_counts: self.library_counts,
            compute: self.compute,
            ..PipelineTimings::default()
        };
        // Every program built by a peer manager with `options`: the time of each.
        let time_peer = |options: PipelineOptions| -> Result<Vec<Duration>, GameError> {
            // SAFETY: the renderer's device and limits; the manager is dropped before this closure
            // returns, and no pipeline of it is ever used.
            let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), limits, options) };
            let time = |&program| {
                let began = Instant::now();
                pipeline(&manager, shaders, program, post, output_format)?;
                Ok(began.elapsed())
            };
            Program::ALL.iter().map(time).collect()
        };
        if with_cache {
            timings.without_cache = Some(time_peer(self.options)?.iter().sum());
        }
        let Some(watcher) = self.optimized else {
            timings.monolithic = self.built;
            return Ok(timings);
        };
        timings.fast_link = Some(self.built);
        timings.optimized = watcher.join().ok().flatten();
        let monolithic_times = time_peer(self.options.force_monolithic(true))?;
        timings.monolithic = monolithic_times.iter().sum();
        // A new material: its first pipeline shares the vertex-input and
        // pre-rasterization libraries of a material loaded before it.
        timings.new_materials = self
            .programs
            .into_iter()
            .zip(monolithic_times)
            .filter(|((_, _, parts), _)| !parts.contains(&"vertex input") && !parts.contains(&"pre-rasterization"))
            .map(|((program, libraries, new_parts), monolithic)| MaterialTiming {
                name: format!("{program:?}").to_lowercase(),
                libraries,
                new_parts,
                monolithic,
            })
            .collect();
        Ok(timings)
    }
}
