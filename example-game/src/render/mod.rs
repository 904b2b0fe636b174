//! Drawing a frame: the particle simulation, the world into an HDR scene image, then the
//! post-processing ubershader and the HUD onto the output image.
#![allow(unsafe_code)]

mod commands;
mod descriptors;
mod programs;
mod scene;

use std::collections::HashMap;

use ash::vk;
use std::sync::Arc;

use smolv_runtime::vulkan::{
    CacheLoad, ComputeSlot, DeviceFeatures, PipelineCacheFile, PipelineManager, PipelineOptions,
};

use programs::{CacheReport, LoadTimings, PARTICLES_COMPUTE};
pub(crate) use programs::{PipelineTimings, PostPreset};

use crate::cli::Args;
use crate::error::{GameError, vk_check};
use crate::game::World;
use crate::gpu::{Buffer, Context, Image};
use crate::shader_types::particles_comp::{self, Particles, Step};
use crate::shaders::Shaders;
use commands::{memory_barrier, record_readback, render_pass, semaphore_infos};
use descriptors::{Descriptors, ProgramSets, Resources};
use programs::{Corner, Program, ProgramPipeline, SCENE_FORMAT};
use scene::{Frame, HudRect, SpriteInstance};

/// Particles the GPU simulates (a ring: new ones replace the oldest).
const PARTICLES: usize = 4096;
const MAX_SPRITES: usize = 1024;
const MAX_HUD_RECTS: usize = 256;
/// Two triangles of a quad, for the sprite and particle programs.
const QUAD: [Corner; 6] = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
/// The push constants `particles.comp` reads: all of its `Step` block.
const STEP_RANGE: crate::shader_types::interface::PushConstantRange = match particles_comp::PUSH_CONSTANTS {
    Some(range) => range,
    None => panic!("particles.comp reads its step from push constants"),
};
// The game pushes the whole block from byte 0.
const _: () = assert!(STEP_RANGE.offset == 0 && STEP_RANGE.size as usize == Step::SIZE);

/// The image a frame ends up in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub(crate) image: vk::Image,
    pub(crate) view: vk::ImageView,
    pub(crate) extent: vk::Extent2D,
    /// The layout to leave it in: `PRESENT_SRC_KHR` for a swapchain,
    /// `TRANSFER_SRC_OPTIMAL` for a read-back.
    pub(crate) final_layout: vk::ImageLayout,
}

/// Semaphores a frame waits on and signals (window mode).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FrameSync {
    pub(crate) wait: Option<vk::Semaphore>,
    pub(crate) signal: Option<vk::Semaphore>,
}

/// Everything needed to draw frames. Create it after the [`Context`] and drop it before.
pub(crate) struct Renderer {
    device: ash::Device,
    limits: vk::PhysicalDeviceLimits,
    // Drop order: sets and pipelines before the resources they point to.
    programs: HashMap<Program, (ProgramPipeline, ProgramSets)>,
    /// The compute pipeline that moves the particles (read from the slot each frame: a reload may
    /// swap it), and its sets.
    particle_pass: (Arc<ComputeSlot>, ProgramSets),
    /// Before the manager: a replay in flight holds it, and is stopped first.
    warmup: crate::warmup::Warmup,
    manager: Arc<PipelineManager>,
    /// After the manager, which creates pipelines through it.
    pipeline_cache: Option<(PipelineCacheFile, CacheLoad)>,
    descriptors: Descriptors,
    frame: Buffer,
    corners: Buffer,
    sprites: Buffer,
    hud: Buffer,
    particles: Buffer,
    particle_cursor: usize,
    scene: Image,
    /// What the descriptor sets point at (the scene's view follows a resize).
    resources: Resources,
    command_pool: vk::CommandPool,
    commands: vk::CommandBuffer,
    fence: vk::Fence,
    output_format: vk::Format,
    post: PostPreset,
    /// How long the pipelines took at load, until [`pipeline_timings`](Self::pipeline_timings).
    load: Option<LoadTimings>,
}

impl Renderer {
    /// Builds every pipeline and resource for drawing `extent` frames into images of
    /// `output_format`, as `args` say.
    pub(crate) fn new(
        context: &Context,
        shaders: &Shaders,
        output_format: vk::Format,
        extent: vk::Extent2D,
        args: &Args,
        warmup: &crate::warmup::Plan,
    ) -> Result<Self, GameError> {
        let (device, post) = (context.device.clone(), args.post);
        // SAFETY: the context's device and properties; the renderer drops the cache after the
        // manager that uses it, and before the context.
        let pipeline_cache = args
            .pipeline_cache_path()
            .map(|path| unsafe { PipelineCacheFile::open(device.clone(), &context.properties, &path) })
            .transpose()?;
        let options = PipelineOptions::new()
            .graphics_pipeline_library(context.graphics_pipeline_library)
            .force_monolithic(args.monolithic)
            // Fold spec constants into the SPIR-V before the driver sees it.
            .specialize_ahead(true)
            .workers(1)
            .features(DeviceFeatures::default().with_graphics_pipeline_library(context.graphics_pipeline_library))
            .api_version(ash::vk::API_VERSION_1_3)
            .khr_spirv_1_4(false);
        let cache = pipeline_cache.as_ref().map_or(vk::PipelineCache::null(), |(cache, _)| cache.handle());
        // SAFETY: the context enables dynamic rendering, and the library extensions with
        // `graphics_pipeline_library`; the cache outlives the manager (field order); the renderer
        // goes before the context, and its `Drop` waits for the device before the manager goes.
        let manager =
            Arc::new(unsafe { PipelineManager::new(device.clone(), cache, &context.properties.limits, options) });
        let warmup = warmup.start(&manager, shaders);
        let (pipelines, particle_compute, load) = programs::build_all(&manager, options, shaders, post, output_format)?;
        let mut frame = Buffer::new(context, Frame::SIZE, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
        frame.write(0, Frame::default().as_bytes());
        let mut corners = Buffer::new(context, size_of_val(&QUAD), vk::BufferUsageFlags::VERTEX_BUFFER)?;
        corners.write(0, &QUAD.as_flattened().iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        let sprites = Buffer::new(context, MAX_SPRITES * SpriteInstance::SIZE, vk::BufferUsageFlags::VERTEX_BUFFER)?;
        let hud = Buffer::new(context, MAX_HUD_RECTS * HudRect::SIZE, vk::BufferUsageFlags::VERTEX_BUFFER)?;
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::STORAGE_BUFFER;
        let mut particles = Buffer::new(context, Particles::buffer_size(PARTICLES), usage)?;
        particles.write(0, &vec![0; particles.size]);
        let scene = scene_image(context, extent)?;
        // SAFETY: creation on a live device; everything is destroyed in Drop.
        let (sampler, command_pool, commands, fence) = unsafe {
            let clamp = vk::SamplerAddressMode::CLAMP_TO_EDGE;
            let info = vk::SamplerCreateInfo::default().mag_filter(vk::Filter::LINEAR).min_filter(vk::Filter::LINEAR);
            let info = info.address_mode_u(clamp).address_mode_v(clamp).address_mode_w(clamp);
            let sampler = vk_check("vkCreateSampler", device.create_sampler(&info, None))?;
            let info = vk::CommandPoolCreateInfo::default().queue_family_index(context.queue_family);
            let info = info.flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
            let command_pool = vk_check("vkCreateCommandPool", device.create_command_pool(&info, None))?;
            let info = vk::CommandBufferAllocateInfo::default().command_pool(command_pool).command_buffer_count(1);
            let commands = vk_check("vkAllocateCommandBuffers", device.allocate_command_buffers(&info))?[0];
            let info = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
            let fence = vk_check("vkCreateFence", device.create_fence(&info, None))?;
            (sampler, command_pool, commands, fence)
        };
        let descriptors = Descriptors::new(&device)?;
        let resources = Resources { frame: frame.handle, particles: particles.handle, scene_view: scene.view, sampler };
        // The particle simulation's layout from reflection, with its descriptor sets.
        let stage = shaders.stage(PARTICLES_COMPUTE, &[])?;
        let layout = manager.compute_layout(&stage)?;
        let sets = descriptors.program_sets(&[stage.reflection], &layout.set_layouts, &resources)?;
        particle_compute.wait()?;
        let mut programs = HashMap::new();
        for pipeline in pipelines {
            let spec = pipeline.program.spec(post);
            let stages = [&shaders.get(spec.vertex)?.reflection, &shaders.get(spec.fragment)?.reflection];
            let sets = descriptors.program_sets(&stages, &pipeline.layout.set_layouts, &resources)?;
            programs.insert(pipeline.program, (pipeline, sets));
        }
        Ok(Self {
            device,
            limits: context.properties.limits,
            programs,
            particle_pass: (particle_compute, sets),
            warmup,
            manager,
            pipeline_cache,
            descriptors,
            frame,
            corners,
            sprites,
            hud,
            particles,
            particle_cursor: 0,
            scene,
            resources,
            command_pool,
            commands,
            fence,
            output_format,
            post,
            load: Some(load),
        })
    }

    /// What the pipelines cost, measured once at the end of the run, which also saves the pipeline
    /// cache (a second call has nothing to measure).
    pub(crate) fn pipeline_timings(&mut self, shaders: &Shaders) -> Result<PipelineTimings, GameError> {
        let Some(load) = self.load.take() else { return Ok(PipelineTimings::default()) };
        let with_cache = self.pipeline_cache.is_some();
        let mut timings =
            load.finish(&self.device, &self.limits, shaders, self.post, self.output_format, with_cache)?;
        timings.cache = self.pipeline_cache.as_ref().map(|(cache, load)| CacheReport {
            path: cache.path().to_owned(),
            load: load.clone(),
            saved: cache.save().map_err(|e| e.to_string()),
        });
        Ok(timings)
    }

    /// Recording and replay of this run's pipelines.
    pub(crate) fn warmup(&self) -> &crate::warmup::Warmup {
        &self.warmup
    }

    /// Pipelines the manager built on the render thread so far.
    pub(crate) fn render_thread_builds(&self) -> u64 {
        self.manager.caller_builds()
    }

    /// The post-processing preset in use.
    pub(crate) fn post(&self) -> PostPreset {
        self.post
    }

    /// Switches the post-processing ubershader to another feature set (a fast link now, the
    /// optimized pipeline shortly after).
    pub(crate) fn set_post(&mut self, shaders: &Shaders, post: PostPreset) -> Result<(), GameError> {
        let pipeline = programs::pipeline(&self.manager, shaders, Program::Post, post, self.output_format)?;
        if let Some((current, _)) = self.programs.get_mut(&Program::Post) {
            *current = pipeline;
        }
        self.post = post;
        Ok(())
    }

    /// Has the manager rebuild in the background, once each, every pipeline built from any of the
    /// shaders `names` (just reloaded, all of one edit).
    #[cfg(feature = "hot-reload")]
    pub(crate) fn rebuild(&self, shaders: &Shaders, names: &[String]) -> Result<Rebuild, GameError> {
        let mut rebuild = Rebuild::default();
        for (pipeline, _) in self.programs.values() {
            if let Some(target) = programs::rebuild(&self.manager, shaders, pipeline, self.post, names)? {
                rebuild.graphics.push((Arc::clone(&pipeline.slot), target));
            }
        }
        if names.iter().any(|name| name == PARTICLES_COMPUTE) {
            let slot = &self.particle_pass.0;
            // SAFETY: a module compiled and validated by smolv-reload, with its reflection; the slot
            // is this manager's.
            let target = unsafe { self.manager.rebuild_compute(slot, &shaders.stage(PARTICLES_COMPUTE, &[])?) }?;
            rebuild.compute.push((Arc::clone(slot), target));
        }
        Ok(rebuild)
    }

    /// Recreates the scene image when the output size changed.
    fn resize(&mut self, context: &Context, extent: vk::Extent2D) -> Result<(), GameError> {
        if self.scene.extent == extent {
            return Ok(());
        }
        context.wait_idle()?;
        self.scene = scene_image(context, extent)?;
        self.resources.scene_view = self.scene.view;
        for (_, sets) in self.programs.values() {
            self.descriptors.write(sets, &self.resources)?;
        }
        Ok(())
    }

    /// `--post-cycle N`: the next preset every N frames.
    pub(crate) fn cycle_post(&mut self, shaders: &Shaders, every: Option<u64>, frame: u64) -> Result<(), GameError> {
        if every.is_some_and(|every| frame > 0 && frame.is_multiple_of(every)) {
            self.set_post(shaders, self.post.next())?;
        }
        Ok(())
    }

    /// Waits for the previous frame to finish on the GPU.
    pub(crate) fn wait(&self) -> Result<(), GameError> {
        // SAFETY: the fence is live.
        vk_check("vkWaitForFences", unsafe { self.device.wait_for_fences(&[self.fence], true, u64::MAX) })
    }

    /// Draws `world` into `target` and submits the frame. With `readback`,
    /// also copies the finished image into that buffer (call
    /// [`wait`](Self::wait) before reading it).
    pub(crate) fn draw(
        &mut self,
        context: &Context,
        world: &World,
        target: Target,
        sync: FrameSync,
        readback: Option<&Buffer>,
    ) -> Result<(), GameError> {
        self.wait()?;
        // SAFETY: the fence says the one command buffer's last submission finished, so none that
        // bound a replaced pipeline is pending.
        unsafe { self.manager.retire_replaced() };
        self.resize(context, target.extent)?;
        let ([rocks, ship, bullets], hud) = self.upload(world, target.extent);
        let commands = self.commands;
        // SAFETY: the previous submission finished (fence); all handles are live.
        unsafe {
            vk_check("vkResetFences", self.device.reset_fences(&[self.fence]))?;
            let reset = self.device.reset_command_buffer(commands, vk::CommandBufferResetFlags::empty());
            vk_check("vkResetCommandBuffer", reset)?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            vk_check("vkBeginCommandBuffer", self.device.begin_command_buffer(commands, &begin))?;
            self.record_particles(commands);
            // The world into the scene image, for the post-processing pass to sample.
            let scene = (self.scene.handle, self.scene.view, self.scene.extent);
            let sampled = (vk::PipelineStageFlags2::FRAGMENT_SHADER, vk::AccessFlags2::SHADER_SAMPLED_READ);
            let (sprites, particles) =
                ([self.corners.handle, self.sprites.handle], [self.corners.handle, self.particles.handle]);
            render_pass(
                &self.device,
                commands,
                scene,
                vk::PipelineStageFlags2::FRAGMENT_SHADER,
                (vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL, sampled),
                || {
                    self.draw_program(commands, Program::Background, &[], 3, (0, 1));
                    self.draw_program(commands, Program::Rocks, &sprites, 6, rocks);
                    self.draw_program(commands, Program::Particles, &particles, 6, (0, PARTICLES as u32));
                    self.draw_program(commands, Program::Bullets, &sprites, 6, bullets);
                    self.draw_program(commands, Program::Ship, &sprites, 6, ship);
                },
            );
            // Post-processing and the HUD onto the target.
            let next = if target.final_layout == vk::ImageLayout::TRANSFER_SRC_OPTIMAL {
                (vk::PipelineStageFlags2::COPY, vk::AccessFlags2::TRANSFER_READ)
            } else {
                (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE)
            };
            render_pass(
                &self.device,
                commands,
                (target.image, target.view, target.extent),
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                (target.final_layout, next),
                || {
                    self.draw_program(commands, Program::Post, &[], 3, (0, 1));
                    self.draw_program(commands, Program::Hud, &[self.hud.handle], 6, (0, hud));
                },
            );
            if let Some(buffer) = readback {
                record_readback(&self.device, commands, target, buffer);
            }
            vk_check("vkEndCommandBuffer", self.device.end_command_buffer(commands))?;
            let command_infos = [vk::CommandBufferSubmitInfo::default().command_buffer(commands)];
            let waits = semaphore_infos(sync.wait);
            let signals = semaphore_infos(sync.signal);
            let submit = vk::SubmitInfo2::default()
                .command_buffer_infos(&command_infos)
                .wait_semaphore_infos(&waits)
                .signal_semaphore_infos(&signals);
            vk_check("vkQueueSubmit2", self.device.queue_submit2(context.queue, &[submit], self.fence))?;
        }
        Ok(())
    }

    /// Writes this frame's data; returns the draws' instances, `(first, count)` of the rocks, the
    /// ship and the bullets, and the HUD's count.
    fn upload(&mut self, world: &World, extent: vk::Extent2D) -> ([(u32, u32); 3], u32) {
        self.frame.write(0, scene::frame_uniforms(world, extent).as_bytes());
        let sprites = scene::sprites(world);
        let mut offset = 0;
        let mut ranges = [(0u32, 0u32); 3];
        for (range, list) in ranges.iter_mut().zip(&sprites) {
            let list = &list[..list.len().min(MAX_SPRITES - offset)];
            for (i, sprite) in list.iter().enumerate() {
                self.sprites.write((offset + i) * SpriteInstance::SIZE, sprite.as_bytes());
            }
            *range = (offset as u32, list.len() as u32);
            offset += list.len();
        }
        let hud = scene::hud(world, extent);
        let hud = &hud[..hud.len().min(MAX_HUD_RECTS)];
        for (i, rect) in hud.iter().enumerate() {
            self.hud.write(i * HudRect::SIZE, rect.as_bytes());
        }
        for particle in &world.spawned {
            let at = Particles::ELEMENT_OFFSET + self.particle_cursor * Particles::ELEMENT_STRIDE;
            self.particles.write(at, particle.as_bytes());
            self.particle_cursor = (self.particle_cursor + 1) % PARTICLES;
        }
        (ranges, hud.len() as u32)
    }

    /// # Safety
    /// `commands` is recording.
    unsafe fn record_particles(&self, commands: vk::CommandBuffer) {
        let (slot, sets) = &self.particle_pass;
        let step = Step::new(crate::game::STEP, PARTICLES as u32);
        let Some(pipeline) = slot.pipeline() else { return };
        // SAFETY: the caller guarantees recording; handles are live.
        unsafe {
            self.device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::COMPUTE, pipeline);
            let layout = slot.layout();
            self.bind_sets(commands, vk::PipelineBindPoint::COMPUTE, layout, sets);
            let stages = vk::ShaderStageFlags::from_raw(STEP_RANGE.stages);
            self.device.cmd_push_constants(commands, layout, stages, STEP_RANGE.offset, step.as_bytes());
            let groups = (PARTICLES as u32).div_ceil(particles_comp::WORKGROUP_SIZE[0]);
            self.device.cmd_dispatch(commands, groups, 1, 1);
            let moved = (vk::PipelineStageFlags2::COMPUTE_SHADER, vk::AccessFlags2::SHADER_STORAGE_WRITE);
            let drawn = (vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT, vk::AccessFlags2::VERTEX_ATTRIBUTE_READ);
            memory_barrier(&self.device, commands, moved, drawn);
        }
    }

    /// # Safety
    /// `commands` is recording; `layout` is the layout of the pipeline bound at `point`.
    unsafe fn bind_sets(
        &self,
        commands: vk::CommandBuffer,
        point: vk::PipelineBindPoint,
        layout: vk::PipelineLayout,
        sets: &ProgramSets,
    ) {
        for &(number, set) in &sets.sets {
            // SAFETY: the caller guarantees recording; handles are live.
            unsafe { self.device.cmd_bind_descriptor_sets(commands, point, layout, number, &[set], &[]) };
        }
    }

    /// Draws `instances.1` instances from `instances.0` of `program`.
    ///
    /// # Safety
    /// `commands` is recording inside a rendering scope.
    unsafe fn draw_program(
        &self,
        commands: vk::CommandBuffer,
        program: Program,
        vertex_buffers: &[vk::Buffer],
        vertices: u32,
        instances: (u32, u32),
    ) {
        let Some((pipeline, sets)) = self.programs.get(&program) else { return };
        if instances.1 == 0 {
            return;
        }
        let device = &self.device;
        // SAFETY: the caller guarantees recording; handles are live.
        unsafe {
            device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::GRAPHICS, pipeline.slot.current());
            self.bind_sets(commands, vk::PipelineBindPoint::GRAPHICS, pipeline.slot.layout(), sets);
            if !vertex_buffers.is_empty() {
                let offsets = vec![0; vertex_buffers.len()];
                device.cmd_bind_vertex_buffers(commands, 0, vertex_buffers, &offsets);
            }
            device.cmd_draw(commands, vertices, instances.1, 0, instances.0);
        }
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        // SAFETY: after the GPU is idle nothing uses these handles.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.command_pool, None);
            self.device.destroy_sampler(self.resources.sampler, None);
        }
    }
}

/// Pipelines being rebuilt after a reload, and the generation at which each slot holds the new one.
#[cfg(feature = "hot-reload")]
#[derive(Default)]
pub(crate) struct Rebuild {
    graphics: Vec<(Arc<smolv_runtime::vulkan::PipelineSlot>, u64)>,
    compute: Vec<(Arc<ComputeSlot>, u64)>,
}

/// Where a [`Rebuild`] stands.
#[cfg(feature = "hot-reload")]
pub(crate) enum RebuildState {
    Building,
    /// Every new pipeline is in; the last one arrived then.
    Ready(std::time::Instant),
    Failed(String),
}

#[cfg(feature = "hot-reload")]
impl Rebuild {
    pub(crate) fn state(&self) -> RebuildState {
        let graphics =
            self.graphics.iter().map(|(s, target)| (s.generation() >= *target, s.ready_at(), s.rebuild_failure()));
        let compute =
            self.compute.iter().map(|(s, target)| (s.generation() >= *target, s.ready_at(), s.rebuild_failure()));
        let mut last = None;
        for (ready, at, failure) in graphics.chain(compute) {
            if let Some(failure) = failure {
                return RebuildState::Failed(failure.to_string());
            }
            if !ready {
                return RebuildState::Building;
            }
            last = last.max(at);
        }
        RebuildState::Ready(last.unwrap_or_else(std::time::Instant::now))
    }
}

fn scene_image(context: &Context, extent: vk::Extent2D) -> Result<Image, GameError> {
    Image::new(context, SCENE_FORMAT, extent, vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED)
}
