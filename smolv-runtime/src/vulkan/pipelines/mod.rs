//! Graphics and compute pipelines from shaders, through the [`PipelineManager`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ash::vk;
use ash::vk::Handle;

use crate::reflect::Reflection;
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::layout::{LayoutCache, LayoutOptions, ProgramLayout};
use crate::vulkan::library::{FragmentKey, OutputKey, PreRasterKey, VertexInputKey, link};
use crate::vulkan::state::GraphicsState;
use crate::vulkan::warmup::recorder::Recorder;
use crate::vulkan::{VulkanError, lock};

mod embedded;
mod library_cache;
mod options;
mod program;
mod rebuild;
mod rebuild_job;
mod slot;
mod stage_code;
mod worker;

pub use embedded::EmbeddedStage;
pub use library_cache::LibraryCounts;
use library_cache::{LibraryCache, LibraryKey, PipelineKey, stages_with_codes};
pub(crate) use options::LIBRARIES_ASKED;
pub use options::PipelineOptions;
use program::check_stage;
pub use program::{GraphicsProgram, Stage};
pub use slot::PipelineSlot;
use slot::{ComputeSlots, Slots};
pub use stage_code::{FallbackReason, SpecializationCounts};
use worker::{Job, Workers};

/// Builds and caches graphics pipelines (from part libraries: a fast link at once, the optimized one from a
/// worker; or monolithic) and compute pipelines. Dropping it waits for links in flight, then destroys all it made.
///
/// # Example
///
/// A draw and a dispatch under the validation layer; `examples/pipelines` shows the hidden device set-up.
///
/// ```
/// # mod gpu { include!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pipelines/gpu.rs")); }
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::reflect::Reflection;
/// use smolv_runtime::vulkan::ash::vk;
/// use smolv_runtime::vulkan::{GraphicsState, PipelineManager, Stage};
///
/// // The validation layer, and a device made with `DeviceRequirements`.
/// let gpu = gpu::Gpu::new()?;
/// // `DeviceRequirements::pipeline_options`: libraries exactly where enabled.
/// let options = gpu.options;
/// // SAFETY: the device has what `options` says and outlives the manager (`draw` and `dispatch` wait idle).
/// let manager = unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.limits, options) };
///
/// // SPIR-V from anywhere: `include_shader!`, a file, or here the bytes glslang wrote.
/// let vertex_spirv = gpu::words(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pipelines/shaders/triangle.vert.spv")));
/// let fragment_spirv = gpu::words(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pipelines/shaders/solid.frag.spv")));
/// let (v, f) = (Reflection::from_spirv(&vertex_spirv)?, Reflection::from_spirv(&fragment_spirv)?);
/// let vertex = Stage { spirv: &vertex_spirv, reflection: &v, specialization: &[] };
/// let fragment = Stage { spirv: &fragment_spirv, reflection: &f, specialization: &[] };
/// let state = GraphicsState { color_formats: vec![gpu::COLOR_FORMAT], ..GraphicsState::default() };
/// // SAFETY: valid SPIR-V described by its reflections; the device renders to the state's format.
/// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
/// // The same combination again: the same slot, nothing built.
/// // SAFETY: as above.
/// assert!(std::sync::Arc::ptr_eq(&slot, &unsafe { manager.get_pipeline(&vertex, &fragment, &state)? }));
/// // Every frame, bind `slot.current()`: the optimized link once the worker has it.
/// let pixel = gpu.draw(slot.current(), slot.layout(), [0.25, 0.5, 0.75, 1.0])?;
/// assert_eq!(pixel, [64, 128, 191, 255]);
///
/// let compute_spirv = gpu::words(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pipelines/shaders/fill.comp.spv")));
/// let c = Reflection::from_spirv(&compute_spirv)?;
/// let stage = Stage { spirv: &compute_spirv, reflection: &c, specialization: &[] };
/// // SAFETY: valid SPIR-V described by its reflection.
/// let compute = unsafe { manager.get_compute(&stage)? };
/// let layout = manager.compute_layout(&stage)?;
/// let values = gpu.dispatch(compute.wait()?, layout.pipeline_layout, layout.set_layouts[0], 64)?;
/// assert!(values.iter().enumerate().all(|(i, &value)| value == 3 * i as u32 + 1));
///
/// drop(manager);
/// gpu.finish()?; // an error listing them if the validation layer said anything
/// # Ok(())
/// # }
/// ```
pub struct PipelineManager {
    device: ash::Device,
    cache: vk::PipelineCache,
    layouts: LayoutCache,
    options: PipelineOptions,
    libraries: LibraryCache,
    slots: Arc<Mutex<Slots>>,
    compute: Arc<Mutex<ComputeSlots>>,
    /// Pipelines that rebuilds replaced, until [`retire_replaced`](Self::retire_replaced).
    retired: Arc<Mutex<Vec<vk::Pipeline>>>,
    workers: Workers,
    recorder: OnceLock<Arc<Recorder>>,
    /// Pipelines built on callers' threads, replay's excepted.
    caller_builds: AtomicU64,
}

impl std::fmt::Debug for PipelineManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineManager")
            .field("options", &self.options)
            .field("uses_libraries", &self.uses_libraries())
            .finish()
    }
}

impl PipelineManager {
    /// A manager creating pipelines on `device` through `cache` (may be null). See the [example](Self#example).
    ///
    /// # Safety
    /// - `device` has Vulkan 1.3 dynamic rendering enabled; `limits` are its physical device's (or lower).
    /// - [`PipelineOptions::features`](PipelineOptions#structfield.features) names only what the device was created
    ///   with ([`DeviceRequirements`](crate::vulkan::DeviceRequirements) gives matching options).
    /// - [`PipelineOptions::api_version`](PipelineOptions#structfield.api_version) is not above the device's version.
    /// - `cache` is null or a pipeline cache of `device` valid until the manager is dropped.
    /// - `device` outlives the manager, and is done with every pipeline it handed out when it is dropped.
    pub unsafe fn new(
        device: ash::Device,
        cache: vk::PipelineCache,
        limits: &vk::PhysicalDeviceLimits,
        mut options: PipelineOptions,
    ) -> Self {
        #[allow(clippy::disallowed_methods, reason = "the runtime's one read of the environment")]
        if std::env::var("SMOLV_FORCE_MONOLITHIC").is_ok_and(|v| v == "1") {
            options.force_monolithic = true;
        }
        // SAFETY: the caller's contract; `drop` stops the workers before destroying what jobs hold.
        let workers = unsafe { Workers::start(&device, cache, options.workers) };
        // SAFETY: the caller's contract; the layouts are dropped after the pipelines.
        let layouts = unsafe { LayoutCache::new(device.clone(), limits) };
        // SAFETY: as above; `drop` destroys the libraries last, once the workers are stopped.
        let libraries = unsafe { LibraryCache::new(device.clone(), cache, options.specialize_ahead) };
        Self {
            device,
            cache,
            layouts,
            options,
            libraries,
            slots: Arc::default(),
            compute: Arc::default(),
            retired: Arc::default(),
            workers,
            recorder: OnceLock::new(),
            caller_builds: AtomicU64::new(0),
        }
    }

    /// Whether pipelines are built from libraries: [`PipelineOptions::uses_libraries`].
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager) {
    /// if !manager.uses_libraries() {
    ///     eprintln!("no VK_EXT_graphics_pipeline_library: building monolithic pipelines");
    /// }
    /// # }
    /// ```
    pub fn uses_libraries(&self) -> bool {
        self.options.uses_libraries()
    }

    /// The layouts of a vertex + fragment program; the handles are the manager's and live as long as it.
    ///
    /// # Errors
    /// See [`LayoutCache::program`].
    pub fn program_layout(&self, vertex: &Stage<'_>, fragment: &Stage<'_>) -> Result<ProgramLayout, VulkanError> {
        self.graphics_program_layout(&GraphicsProgram::new(*vertex, *fragment))
    }

    /// The pipeline for `vertex` + `fragment` with `state`: built on the first call (a fast link, the optimized one
    /// queued; or monolithic), the same slot later. See the [example](Self#example).
    ///
    /// # Errors
    /// - [`VulkanError::FeatureNotEnabled`]: libraries asked for where missing ([`PipelineOptions::check`]), or a
    ///   module needs what [`features`](PipelineOptions#structfield.features) lacks
    ///   ([`capabilities`](crate::vulkan::capabilities)).
    /// - Layout errors, spec-constant values that do not fit, [`VulkanError::SpirvVersionUnsupported`].
    /// - Failing Vulkan calls.
    ///
    /// # Safety
    /// What `vkCreateGraphicsPipelines` requires beyond what smolv checks (stage places, SPIR-V versions,
    /// capabilities, limits, spec-constant types, explicit vertex input, features):
    /// - each stage's `spirv` is a valid SPIR-V module (smolv does not run `spirv-val`);
    /// - each stage's reflection describes its module (every binding and push constant it uses): one from
    ///   [`EmbeddedStage`] does, one by hand takes [`Reflection::from_spirv`] of its own `spirv`;
    /// - `state` is valid for the device (supported formats, counts within its limits);
    /// - the contract of [`new`](Self::new) holds.
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, vertex: &smolv_runtime::Shader, fragment: &smolv_runtime::Shader) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{EmbeddedStage, GraphicsState};
    /// // `vertex` and `fragment` from `include_shader!`: the reflection is smolv's own.
    /// let (vertex, fragment) = (EmbeddedStage::from_shader(vertex)?, EmbeddedStage::from_shader(fragment)?);
    /// let state = GraphicsState::default(); // RGBA8, which every device renders to
    /// // SAFETY: smolv compiled the modules; the device renders to RGBA8 and outlives the manager.
    /// let slot = unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), &state)? };
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn get_pipeline(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
    ) -> Result<Arc<PipelineSlot>, VulkanError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.get_program_pipeline(&GraphicsProgram::new(*vertex, *fragment), state) }
    }

    /// As [`get_pipeline`](Self::get_pipeline), with tessellation or geometry stages too.
    ///
    /// # Errors
    /// As [`get_pipeline`](Self::get_pipeline), and [`VulkanError::FeatureNotEnabled`] for state or stages that
    /// need a missing feature, [`VulkanError::WrongStage`], [`VulkanError::BlendCount`],
    /// [`VulkanError::DynamicStateUnsupported`], [`VulkanError::PatchTopology`], [`VulkanError::VertexInputFormat`]
    /// and [`VulkanError::VertexInputMismatch`].
    ///
    /// # Safety
    /// As [`get_pipeline`](Self::get_pipeline) for every stage; the device supports the sample count.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, vertex: smolv_runtime::vulkan::Stage<'_>, geometry: smolv_runtime::vulkan::Stage<'_>, fragment: smolv_runtime::vulkan::Stage<'_>) -> Result<(), smolv_runtime::vulkan::VulkanError> {
    /// use smolv_runtime::vulkan::{DeviceFeatures, GraphicsProgram, GraphicsState, PipelineOptions};
    /// // The manager was made with the features given to vkCreateDevice:
    /// let enabled = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
    /// let options = PipelineOptions::new().features(DeviceFeatures::from_enabled(&enabled));
    /// let program = GraphicsProgram { geometry: Some(geometry), ..GraphicsProgram::new(vertex, fragment) };
    /// // SAFETY: valid modules described by their reflections; a state the device supports.
    /// let slot = unsafe { manager.get_program_pipeline(&program, &GraphicsState::default())? };
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn get_program_pipeline(
        &self,
        program: &GraphicsProgram<'_>,
        state: &GraphicsState,
    ) -> Result<Arc<PipelineSlot>, VulkanError> {
        // SAFETY: the caller's contract, passed on.
        let (slot, built) = unsafe { self.program_pipeline(program, state)? };
        if built {
            self.caller_builds.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(recorder) = self.recorder.get() {
            recorder.note(Arc::as_ptr(&slot) as usize, &program.stages(), Some(state), self.uses_libraries());
        }
        Ok(slot)
    }

    /// The manager's one [`Recorder`] (made on the first call): it records every pipeline handed out from then on.
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager) -> Result<(), smolv_runtime::vulkan::warmup::RecordingError> {
    /// let recorder = manager.recorder();
    /// recorder.set_scope(Some("main menu"));
    /// // ... the game runs ...
    /// recorder.recording().save(std::path::Path::new("pipelines.smolvpso"))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn recorder(&self) -> Arc<Recorder> {
        Arc::clone(self.recorder.get_or_init(|| Arc::new(Recorder::new())))
    }

    /// Pipelines built on the threads that asked for them (not a [`Replay`](crate::vulkan::warmup::Replay)'s).
    pub fn caller_builds(&self) -> u64 {
        self.caller_builds.load(Ordering::Relaxed)
    }

    /// Runs `task` on a background worker, after the jobs queued before it.
    pub(crate) fn run_on_worker(&self, task: Box<dyn FnOnce() + Send>) {
        self.workers.submit(Job::Task(task));
    }

    pub(crate) fn worker_count(&self) -> usize {
        self.workers.count()
    }

    /// The pipeline of `program` with `state`, and whether this call built it.
    ///
    /// # Safety
    /// As [`get_program_pipeline`](Self::get_program_pipeline).
    pub(crate) unsafe fn program_pipeline(
        &self,
        program: &GraphicsProgram<'_>,
        state: &GraphicsState,
    ) -> Result<(Arc<PipelineSlot>, bool), VulkanError> {
        self.check_graphics(program, state)?;
        let layout = self.graphics_program_layout(program)?;
        let key = self.pipeline_key(program, state, &layout)?;
        if let Some(slot) = lock(&self.slots).by_key.get(&key) {
            return Ok((Arc::clone(slot), false));
        }
        let (pipeline, libraries) = if self.uses_libraries() {
            let libraries = self.libraries.libraries(program, &key)?;
            // SAFETY: the manager keeps these libraries of this layout and device alive.
            (unsafe { link(&self.device, self.cache, &libraries, layout.pipeline_layout, false) }?, Some(libraries))
        } else {
            // Never linked: its specialization data can go with its modules.
            let stages = stages_with_codes(program, &key);
            (self.libraries.create_with_stages(key.parts(), false, &stages, layout.pipeline_layout)?.pipeline, None)
        };
        let slot = PipelineSlot::new(pipeline, libraries.is_none(), layout, key.clone(), state.clone());
        let mut slots = lock(&self.slots);
        if let Some(existing) = slots.by_key.get(&key) {
            // Another thread made the same pipeline meanwhile: keep theirs.
            let existing = Arc::clone(existing);
            drop(slots);
            // SAFETY: `slot.fast` was just created here and never handed out.
            unsafe { self.device.destroy_pipeline(slot.current(), None) };
            return Ok((existing, false));
        }
        let slot = Arc::new(slot);
        slots.by_key.insert(key, Arc::clone(&slot));
        drop(slots);
        if let Some(libraries) = libraries {
            self.workers.submit(Job::Link { slot: Arc::clone(&slot), libraries, request: 0 });
        }
        Ok((slot, true))
    }

    /// Refuses `program` with `state` where they need what the device lacks.
    fn check_graphics(&self, program: &GraphicsProgram<'_>, state: &GraphicsState) -> Result<(), VulkanError> {
        self.options.check()?;
        program.stages().into_iter().try_for_each(|(expected, stage)| check_stage(expected, stage, &self.options))?;
        state.check(&self.options.features, program.extra_stages())?;
        state.vertex_input.check(program.vertex.reflection)
    }

    /// The layouts of `program`, as [`program_layout`](Self::program_layout).
    ///
    /// # Errors
    /// See [`LayoutCache::program`].
    pub fn graphics_program_layout(&self, program: &GraphicsProgram<'_>) -> Result<ProgramLayout, VulkanError> {
        let options = LayoutOptions::new().independent_sets(self.uses_libraries());
        let reflections: Vec<&Reflection> = program.stages().iter().map(|(_, s)| s.reflection).collect();
        self.layouts.program(&reflections, &options)
    }

    /// The four part keys of `program` with `state`.
    fn pipeline_key(
        &self,
        program: &GraphicsProgram<'_>,
        state: &GraphicsState,
        layout: &ProgramLayout,
    ) -> Result<PipelineKey, VulkanError> {
        let pre_raster = program.pre_raster();
        let pre_raster_reflections: Vec<&Reflection> = pre_raster.iter().map(|(_, s)| s.reflection).collect();
        let pre_raster_layout = self.library_layout(layout, &pre_raster_reflections)?;
        let fragment_layout = self.library_layout(layout, &[program.fragment.reflection])?;
        let pre_raster_stages = pre_raster
            .iter()
            .map(|&(flags, stage)| Ok((flags, self.libraries.stage_key(stage)?)))
            .collect::<Result<_, _>>()?;
        Ok(PipelineKey {
            vertex_input: VertexInputKey::of(state, program.vertex.reflection)?,
            pre_raster: PreRasterKey::of(state, pre_raster_stages, pre_raster_layout.as_raw()),
            fragment: FragmentKey::of(state, self.libraries.stage_key(&program.fragment)?, fragment_layout.as_raw()),
            output: OutputKey::of(state)?,
        })
    }

    /// The layout of a library of `shaders`; without libraries, the program's.
    fn library_layout(
        &self,
        layout: &ProgramLayout,
        shaders: &[&Reflection],
    ) -> Result<vk::PipelineLayout, VulkanError> {
        if self.uses_libraries() {
            self.layouts.library_layout(layout, shaders, None)
        } else {
            Ok(layout.pipeline_layout)
        }
    }

    /// Creates (or finds) the fragment-shader library of `fragment`, ahead of any draw.
    ///
    /// # Errors
    /// As [`get_pipeline`](Self::get_pipeline).
    ///
    /// # Safety
    /// As [`get_pipeline`](Self::get_pipeline).
    ///
    /// ```no_run
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, Stage};
    /// # fn example(manager: &PipelineManager, vertex: &Stage<'_>, fragment: &Stage<'_>, state: &GraphicsState) -> Result<(), smolv_runtime::vulkan::VulkanError> {
    /// // When a material loads, before anything draws with it.
    /// // SAFETY: as in `get_pipeline`.
    /// let library = unsafe { manager.preload_fragment(vertex, fragment, state)? };
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn preload_fragment(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
    ) -> Result<vk::Pipeline, VulkanError> {
        self.options.check()?;
        check_stage(vk::ShaderStageFlags::FRAGMENT, fragment, &self.options)?;
        let layout = self.program_layout(vertex, fragment)?;
        let fragment_layout = self.library_layout(&layout, &[fragment.reflection])?;
        let key = FragmentKey::of(state, self.libraries.stage_key(fragment)?, fragment_layout.as_raw());
        let code = key.stage.code;
        self.libraries.library(LibraryKey::Fragment(key), &[(vk::ShaderStageFlags::FRAGMENT, fragment, code)])
    }

    /// How many libraries of each part the manager holds now.
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager) {
    /// let counts = manager.library_counts();
    /// println!("{} fragment-shader libraries", counts.fragment_shader);
    /// # }
    /// ```
    pub fn library_counts(&self) -> LibraryCounts {
        self.libraries.counts()
    }

    /// How the spec-constant values of the stages built went: folded ahead, or to the driver ([`FallbackReason`]).
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager) {
    /// let counts = manager.specialization_counts();
    /// for (reason, stages) in &counts.fallbacks {
    ///     eprintln!("{stages} stages went to the driver instead of the specializer: {reason}");
    /// }
    /// # }
    /// ```
    pub fn specialization_counts(&self) -> SpecializationCounts {
        self.libraries.coder.counts()
    }

    /// The layouts of a compute shader, as the manager builds them (its handles).
    ///
    /// # Errors
    /// See [`LayoutCache::program`].
    pub fn compute_layout(&self, stage: &Stage<'_>) -> Result<ProgramLayout, VulkanError> {
        self.layouts.program(&[stage.reflection], &LayoutOptions::new().independent_sets(false))
    }

    /// The compute pipeline of `stage`, found or created now on this thread. See the [example](Self#example).
    ///
    /// # Errors
    /// Layout errors, spec-constant values that do not fit, a stage that is not a compute shader,
    /// [`VulkanError::SpirvVersionUnsupported`], [`VulkanError::FeatureNotEnabled`], and failing Vulkan calls.
    ///
    /// # Safety
    /// As [`get_pipeline`](Self::get_pipeline) for the stage.
    pub unsafe fn get_compute(&self, stage: &Stage<'_>) -> Result<Arc<ComputeSlot>, VulkanError> {
        // SAFETY: the caller's contract, passed on.
        let slot = unsafe { self.compute_slot(stage, false, false)? };
        slot.wait()?;
        Ok(slot)
    }

    /// As [`get_compute`](Self::get_compute), created on a worker: [`ComputeSlot::wait`] gives it.
    ///
    /// # Errors
    /// As [`get_compute`](Self::get_compute), except failing Vulkan calls, which [`ComputeSlot::wait`] reports.
    ///
    /// # Safety
    /// As [`get_compute`](Self::get_compute).
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, stage: &smolv_runtime::vulkan::Stage<'_>) -> Result<(), smolv_runtime::vulkan::VulkanError> {
    /// // SAFETY: as in `get_compute`.
    /// let slot = unsafe { manager.request_compute(stage)? };
    /// // ... build the graphics pipelines meanwhile ...
    /// let pipeline = slot.wait()?;
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn request_compute(&self, stage: &Stage<'_>) -> Result<Arc<ComputeSlot>, VulkanError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.compute_slot(stage, true, false) }
    }

    /// The compute slot of `stage`, found or built (on a worker where `background`); a `replay`'s is neither
    /// recorded nor counted.
    ///
    /// # Safety
    /// As [`get_compute`](Self::get_compute).
    pub(crate) unsafe fn compute_slot(
        &self,
        stage: &Stage<'_>,
        background: bool,
        replay: bool,
    ) -> Result<Arc<ComputeSlot>, VulkanError> {
        let note = |slot: Arc<ComputeSlot>| {
            if !replay && let Some(recorder) = self.recorder.get() {
                recorder.note(Arc::as_ptr(&slot) as usize, &[(vk::ShaderStageFlags::COMPUTE, stage)], None, false);
            }
            Ok(slot)
        };
        check_stage(vk::ShaderStageFlags::COMPUTE, stage, &self.options)?;
        let key = self.libraries.stage_key(stage)?;
        if let Some(slot) = lock(&self.compute).by_key.get(&key) {
            return note(Arc::clone(slot));
        }
        let layout = self.compute_layout(stage)?.pipeline_layout;
        // Values that do not fit are refused here, not on the worker.
        let job =
            ComputeJob { stage: self.libraries.owned_code(vk::ShaderStageFlags::COMPUTE, key.code, stage)?, layout };
        let slot = {
            let mut compute = lock(&self.compute);
            if let Some(slot) = compute.by_key.get(&key) {
                return note(Arc::clone(slot));
            }
            let slot = Arc::new(ComputeSlot::pending(layout));
            compute.by_key.insert(key, Arc::clone(&slot));
            slot
        };
        if background {
            self.workers.submit(Job::Compute { slot: Arc::clone(&slot), job });
        } else {
            // SAFETY: the caller's contract; the layout and cache are this manager's device's.
            let created = unsafe { job.create(&self.device, self.cache) };
            slot.finish(created.map_err(|e| e.result()));
            if !replay {
                self.caller_builds.fetch_add(1, Ordering::Relaxed);
            }
        }
        note(slot)
    }
}

impl Drop for PipelineManager {
    fn drop(&mut self) {
        // The workers finish the jobs already queued first.
        self.workers.stop();
        // SAFETY: the workers are gone; the device is alive and done with these pipelines (`new`'s contract).
        unsafe {
            // A slot can be both filed and an orphan: each handle goes once.
            let mut pipelines = std::collections::BTreeSet::new();
            let slots = std::mem::take(&mut *lock(&self.slots));
            for slot in slots.by_key.into_values().chain(slots.orphans) {
                pipelines.extend(PipelineSlot::held(&lock(&slot.state)).iter().map(|p| p.as_raw()));
            }
            let compute = std::mem::take(&mut *lock(&self.compute));
            for slot in compute.by_key.into_values().chain(compute.orphans) {
                pipelines.extend(slot.take().map(|p| p.as_raw()));
            }
            pipelines.extend(lock(&self.retired).drain(..).map(|p| p.as_raw()));
            for pipeline in pipelines {
                self.device.destroy_pipeline(vk::Pipeline::from_raw(pipeline), None);
            }
            self.libraries.destroy();
        }
    }
}
