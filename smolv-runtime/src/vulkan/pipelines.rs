//! Graphics and compute pipelines from shaders: per-part graphics
//! pipeline libraries, a fast link now, the link-time-optimized pipeline
//! from a background worker, monolithic pipelines where libraries are
//! unavailable, and compute pipelines created now or in the background.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Instant;

use ash::vk;
use ash::vk::Handle;

use super::compute::{ComputeJob, ComputeSlot};
use super::layout::{LayoutCache, LayoutOptions, ProgramLayout};
use super::library::{
    self, FragmentKey, OutputKey, Parts, PreRasterKey, StageKey, ValueKey, VertexInputKey, link, value_key,
};
use super::modules::{ShaderModules, StageCode};
use super::rebuilds::Rebuilds;
use super::specialization::{SpecializationData, check_unique};
use super::state::{DeviceFeatures, ExtraStages, GraphicsState};
use super::{VulkanError, lock};
use crate::reflect::Reflection;
use crate::specialize::{Analysis, Specializer, Value};

mod rebuild;

/// One shader stage of a program: SPIR-V, its reflection, and
/// spec-constant values.
///
/// The manager tells stages apart by their whole contents: the SPIR-V
/// words, the reflection and the values are compared, never only hashed,
/// so two different modules can never share a pipeline.
///
/// ```no_run
/// # use ash::vk;
/// # use smolv_runtime::reflect::Reflection;
/// # #[allow(unused)]
/// # fn example(
/// #     device: ash::Device,
/// #     properties: &vk::PhysicalDeviceProperties,
/// #     vertex_spirv: &[u32],
/// #     fragment_spirv: &[u32],
/// #     cmd: vk::CommandBuffer,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::specialize::Value;
/// use smolv_runtime::vulkan::Stage;
/// let reflection = Reflection::from_spirv(fragment_spirv)?;
/// // Spec constant 0 (say, the number of lights) set to 4 for this pipeline.
/// let fragment = Stage { spirv: fragment_spirv, reflection: &reflection, specialization: &[(0, Value::U32(4))] };
/// # let _ = fragment;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    /// SPIR-V words.
    pub spirv: &'a [u32],
    /// Its reflection (stage, entry point, bindings, push constants).
    pub reflection: &'a Reflection,
    /// Specialization constants, as `(constant id, value)`, each id once.
    /// Each value is written at the size of its constant's type in the
    /// module: 8 bytes for 64-bit types (give those as [`Value::Bits`], or
    /// a narrower value that widens exactly).
    pub specialization: &'a [(u32, Value)],
}
/// The shader stages of one graphics pipeline: vertex and fragment, and
/// tessellation and geometry where the program has them (and the device
/// has the features: see [`DeviceFeatures`]).
///
/// ```no_run
/// # use ash::vk;
/// # use smolv_runtime::reflect::Reflection;
/// # #[allow(unused)]
/// # fn example(vertex_spirv: &[u32], geometry_spirv: &[u32], fragment_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{GraphicsProgram, Stage};
/// let reflections = [vertex_spirv, geometry_spirv, fragment_spirv].map(|code| Reflection::from_spirv(code));
/// let [vertex, geometry, fragment] = reflections;
/// let (vertex, geometry, fragment) = (vertex?, geometry?, fragment?);
/// let stage = |spirv, reflection| Stage { spirv, reflection, specialization: &[] };
/// let program = GraphicsProgram {
///     geometry: Some(stage(geometry_spirv, &geometry)),
///     ..GraphicsProgram::new(stage(vertex_spirv, &vertex), stage(fragment_spirv, &fragment))
/// };
/// # let _ = program;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GraphicsProgram<'a> {
    /// The vertex stage.
    pub vertex: Stage<'a>,
    /// Tessellation control and evaluation stages (with a `PATCH_LIST`
    /// topology and [`GraphicsState::patch_control_points`]).
    pub tessellation: Option<[Stage<'a>; 2]>,
    /// A geometry stage.
    pub geometry: Option<Stage<'a>>,
    /// The fragment stage.
    pub fragment: Stage<'a>,
}

impl<'a> GraphicsProgram<'a> {
    /// A vertex + fragment program.
    ///
    /// ```no_run
    /// # use smolv_runtime::reflect::Reflection;
    /// # fn example(vertex_spirv: &[u32], fragment_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{GraphicsProgram, Stage};
    /// let (v, f) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// let program = GraphicsProgram::new(
    ///     Stage { spirv: vertex_spirv, reflection: &v, specialization: &[] },
    ///     Stage { spirv: fragment_spirv, reflection: &f, specialization: &[] },
    /// );
    /// assert!(program.geometry.is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(vertex: Stage<'a>, fragment: Stage<'a>) -> Self {
        Self { vertex, tessellation: None, geometry: None, fragment }
    }

    /// The pre-rasterization stages, in pipeline order.
    fn pre_raster(&self) -> Vec<(vk::ShaderStageFlags, &Stage<'a>)> {
        let mut stages = vec![(vk::ShaderStageFlags::VERTEX, &self.vertex)];
        if let Some([control, evaluation]) = &self.tessellation {
            stages.push((vk::ShaderStageFlags::TESSELLATION_CONTROL, control));
            stages.push((vk::ShaderStageFlags::TESSELLATION_EVALUATION, evaluation));
        }
        if let Some(geometry) = &self.geometry {
            stages.push((vk::ShaderStageFlags::GEOMETRY, geometry));
        }
        stages
    }

    /// Every stage, in pipeline order.
    fn stages(&self) -> Vec<(vk::ShaderStageFlags, &Stage<'a>)> {
        let mut stages = self.pre_raster();
        stages.push((vk::ShaderStageFlags::FRAGMENT, &self.fragment));
        stages
    }

    fn extra_stages(&self) -> ExtraStages {
        ExtraStages { geometry: self.geometry.is_some(), tessellation: self.tessellation.is_some() }
    }
}

/// How many libraries of each of the four parts a manager holds: what
/// materials share shows as parts that grow slower than pipelines.
///
/// ```no_run
/// # use ash::vk;
/// # #[allow(unused)]
/// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties) {
/// use smolv_runtime::vulkan::{PipelineManager, PipelineOptions};
/// // SAFETY: as the example of `PipelineManager::new` says.
/// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
/// let counts = manager.library_counts();
/// println!("{} fragment-shader libraries", counts.fragment_shader);
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LibraryCounts {
    /// Vertex-input interface libraries.
    pub vertex_input: usize,
    /// Pre-rasterization shader libraries.
    pub pre_rasterization: usize,
    /// Fragment shader libraries.
    pub fragment_shader: usize,
    /// Fragment output interface libraries.
    pub fragment_output: usize,
}

impl LibraryCounts {
    /// All four together.
    ///
    /// ```
    /// use smolv_runtime::vulkan::LibraryCounts;
    /// let counts = LibraryCounts { vertex_input: 1, pre_rasterization: 2, fragment_shader: 3, fragment_output: 1 };
    /// assert_eq!(counts.total(), 7);
    /// ```
    pub fn total(&self) -> usize {
        self.vertex_input + self.pre_rasterization + self.fragment_shader + self.fragment_output
    }
}

/// Everything a pipeline is made from: its four parts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PipelineKey {
    vertex_input: VertexInputKey,
    pre_raster: PreRasterKey,
    fragment: FragmentKey,
    output: OutputKey,
}

/// A library by the part it is and everything it is made from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum LibraryKey {
    VertexInput(VertexInputKey),
    PreRaster(PreRasterKey),
    Fragment(FragmentKey),
    Output(OutputKey),
}

/// Modules and reflections seen so far, each stored once and numbered, so
/// that keys compare small numbers while meaning the full contents. A
/// lookup hashes and compares the whole module.
#[derive(Default)]
struct Interned {
    code: HashMap<Box<[u32]>, usize>,
    reflections: HashMap<Reflection, usize>,
    /// The reflections by number, to say what a rebuild changed.
    reflection_list: Vec<Reflection>,
}

/// How the manager builds pipelines.
///
/// ```
/// use smolv_runtime::vulkan::PipelineOptions;
/// // A device without VK_EXT_graphics_pipeline_library: monolithic pipelines,
/// // with spec constants folded into the SPIR-V by smolv's specializer.
/// let options = PipelineOptions { graphics_pipeline_library: false, specialize_ahead: true, ..PipelineOptions::default() };
/// assert_eq!(options.workers, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Whether the device has VK_EXT_graphics_pipeline_library enabled.
    pub graphics_pipeline_library: bool,
    /// Build monolithic pipelines even with libraries available. The
    /// environment variable `SMOLV_FORCE_MONOLITHIC=1` does the same.
    pub force_monolithic: bool,
    /// Fold spec constants into the SPIR-V with
    /// [`specialize`](crate::specialize) before creating a library, instead
    /// of passing them to the driver. A module the specializer cannot
    /// handle goes to the driver with its values instead.
    pub specialize_ahead: bool,
    /// Background workers, for link-time-optimized links and compute
    /// pipelines asked for in the background (default 1).
    pub workers: usize,
    /// The features enabled on the device, which some state and stages
    /// need (default: none). State that needs a missing one is refused.
    pub features: DeviceFeatures,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self {
            graphics_pipeline_library: true,
            force_monolithic: false,
            specialize_ahead: false,
            workers: 1,
            features: DeviceFeatures::default(),
        }
    }
}

/// A pipeline that gets better: a fast-linked (or monolithic) pipeline at
/// once, swapped atomically for the link-time-optimized one when the
/// background link finishes.
///
/// ```no_run
/// # use ash::vk;
/// # use smolv_runtime::reflect::Reflection;
/// # #[allow(unused)]
/// # fn example(
/// #     device: ash::Device,
/// #     properties: &vk::PhysicalDeviceProperties,
/// #     vertex_spirv: &[u32],
/// #     fragment_spirv: &[u32],
/// #     cmd: vk::CommandBuffer,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
/// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
/// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
/// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
/// # let state = GraphicsState::default();
/// # // SAFETY: as the example of `PipelineManager::new` says.
/// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
/// // SAFETY: the stages and state are valid for the device (see `get_pipeline`).
/// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
/// // Every frame: the best pipeline there is, optimized once the background link is done.
/// // SAFETY: `cmd` is a command buffer of `device` in the recording state.
/// unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, slot.current()) };
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct PipelineSlot {
    /// The pipeline to bind now, readable without a lock every draw.
    current: AtomicU64,
    layout: vk::PipelineLayout,
    state: Mutex<SlotState>,
}

/// What a slot holds, and its rebuilds (see [`PipelineManager::rebuild`]).
#[derive(Debug)]
struct SlotState {
    fast: vk::Pipeline,
    /// The link-time-optimized pipeline once linked; for monolithic
    /// pipelines the same handle as `fast`.
    optimized: Option<vk::Pipeline>,
    rebuilds: Rebuilds,
    /// What the latest rebuild asked for is made of.
    key: PipelineKey,
    graphics: GraphicsState,
}

impl PipelineSlot {
    fn new(
        fast: vk::Pipeline,
        monolithic: bool,
        layout: vk::PipelineLayout,
        key: PipelineKey,
        graphics: GraphicsState,
    ) -> Self {
        let state =
            SlotState { fast, optimized: monolithic.then_some(fast), rebuilds: Rebuilds::default(), key, graphics };
        Self { current: AtomicU64::new(fast.as_raw()), layout, state: Mutex::new(state) }
    }

    /// The pipelines the slot holds now (one for monolithic pipelines).
    fn held(state: &SlotState) -> Vec<vk::Pipeline> {
        let mut held = vec![state.fast];
        held.extend(state.optimized.filter(|&o| o != state.fast));
        held
    }
}

impl PipelineSlot {
    /// The best pipeline available now.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // SAFETY: as in `PipelineManager::get_pipeline`.
    /// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    /// let pipeline = slot.current(); // read again every frame
    /// // SAFETY: `cmd` is a command buffer of `device` in the recording state.
    /// unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline) };
    /// # Ok(())
    /// # }
    /// ```
    pub fn current(&self) -> vk::Pipeline {
        vk::Pipeline::from_raw(self.current.load(Ordering::Acquire))
    }

    /// Whether the optimized pipeline has arrived (always true for
    /// monolithic pipelines, which are optimized from the start).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // SAFETY: as in `PipelineManager::get_pipeline`.
    /// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    /// while !slot.is_optimized() {
    ///     std::thread::sleep(std::time::Duration::from_millis(1)); // a loading screen would draw here
    /// }
    /// assert_ne!(slot.current(), slot.fast());
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_optimized(&self) -> bool {
        lock(&self.state).optimized.is_some()
    }

    /// The fast-linked pipeline (or the monolithic one).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // SAFETY: as in `PipelineManager::get_pipeline`.
    /// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    /// let fast = slot.fast(); // the fast link (or the monolithic pipeline), for comparisons
    /// # let _ = fast;
    /// # Ok(())
    /// # }
    /// ```
    pub fn fast(&self) -> vk::Pipeline {
        lock(&self.state).fast
    }

    /// The pipeline layout to bind descriptor sets with.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// # let sets: Vec<vk::DescriptorSet> = Vec::new();
    /// // SAFETY: as in `PipelineManager::get_pipeline`.
    /// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    /// // SAFETY: `cmd` is recording, and `sets` match the layout.
    /// unsafe { device.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, slot.layout(), 0, &sets, &[]) };
    /// # Ok(())
    /// # }
    /// ```
    pub fn layout(&self) -> vk::PipelineLayout {
        self.layout
    }

    /// How many rebuilds have been swapped in (0 until the first one; see
    /// [`PipelineManager::rebuild`]). It bumps when a rebuilt pipeline
    /// becomes [`current`](Self::current), before its optimized link.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, slot: &std::sync::Arc<smolv_runtime::vulkan::PipelineSlot>, program: &smolv_runtime::vulkan::GraphicsProgram<'_>) -> Result<(), Box<dyn std::error::Error>> {
    /// // SAFETY: the program's modules are valid SPIR-V, described by their reflections.
    /// let target = unsafe { manager.rebuild(slot, program)? };
    /// // ... frames go on with the old pipeline ...
    /// if slot.generation() >= target {
    ///     println!("the edit is on screen since {:?}", slot.ready_at());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn generation(&self) -> u64 {
        lock(&self.state).rebuilds.generation
    }

    /// When the latest rebuild was swapped in (`None` before any).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// if let Some(at) = slot.ready_at() {
    ///     println!("rebuilt {} ms ago", at.elapsed().as_millis());
    /// }
    /// # }
    /// ```
    pub fn ready_at(&self) -> Option<Instant> {
        lock(&self.state).rebuilds.ready_at
    }

    /// The error of the latest rebuild, if it failed on the background
    /// worker and no later rebuild has been swapped in since (the slot
    /// keeps its previous pipeline).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// if let Some(error) = slot.rebuild_failure() {
    ///     eprintln!("kept the previous pipeline: {error}");
    /// }
    /// # }
    /// ```
    pub fn rebuild_failure(&self) -> Option<VulkanError> {
        lock(&self.state).rebuilds.failure("vkCreateGraphicsPipelines (rebuild)")
    }
}

/// Builds and caches graphics pipelines the way Mesa's zink and DXVK do
/// with VK_EXT_graphics_pipeline_library: four per-stage libraries, each
/// cached by everything it is made from (shader code, reflection and
/// spec-constant values compared in full), a fast link returned at once,
/// and the link-time-optimized pipeline linked on a worker thread and
/// swapped in when ready. Without libraries it builds monolithic pipelines
/// through the same API.
///
/// Dropping the manager waits for links in flight, then destroys every
/// pipeline and library it made (see the contract of [`new`](Self::new)).
///
/// ```no_run
/// # use ash::vk;
/// # use smolv_runtime::reflect::Reflection;
/// # #[allow(unused)]
/// # fn example(
/// #     device: ash::Device,
/// #     properties: &vk::PhysicalDeviceProperties,
/// #     vertex_spirv: &[u32],
/// #     fragment_spirv: &[u32],
/// #     cmd: vk::CommandBuffer,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
/// let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
/// let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
/// let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
/// // SAFETY: `device` is valid, has dynamic rendering and the pipeline-library
/// // extensions enabled, and outlives the manager, which is dropped only once
/// // the device is idle.
/// let manager =
///     unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
/// let state = GraphicsState { color_formats: vec![vk::Format::B8G8R8A8_SRGB], ..GraphicsState::default() };
/// // SAFETY: the modules are valid SPIR-V for the device, their reflections
/// // describe them, and the state suits the device.
/// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
/// // SAFETY: `cmd` is a command buffer of `device` in the recording state.
/// unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, slot.current()) };
/// # Ok(())
/// # }
/// ```
pub struct PipelineManager {
    device: ash::Device,
    cache: vk::PipelineCache,
    layouts: LayoutCache,
    options: PipelineOptions,
    interned: Mutex<Interned>,
    /// Shared with the workers, which add the libraries of rebuilds.
    libraries: Arc<Mutex<HashMap<LibraryKey, vk::Pipeline>>>,
    /// Specializer analyses by interned module: analyzed once per shader,
    /// specialized once per material.
    analyses: Mutex<HashMap<usize, Arc<Analysis>>>,
    pipelines: Mutex<HashMap<PipelineKey, Arc<PipelineSlot>>>,
    compute: Mutex<HashMap<StageKey, Arc<ComputeSlot>>>,
    /// Rebuilt slots whose new key another slot already had.
    orphans: Mutex<Vec<Arc<PipelineSlot>>>,
    /// Rebuilt compute slots whose new key another slot already had.
    compute_orphans: Mutex<Vec<Arc<ComputeSlot>>>,
    /// Pipelines that rebuilds replaced, until
    /// [`retire_replaced`](Self::retire_replaced) destroys them.
    retired: Arc<Mutex<Vec<vk::Pipeline>>>,
    sender: Option<mpsc::Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
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
    /// A manager creating pipelines on `device` (whose physical device has
    /// `limits`), through `cache` (may be null).
    ///
    /// # Safety
    /// - `device` must be a valid device with Vulkan 1.3 dynamic rendering
    ///   enabled, and `limits` the limits of its physical device (or lower).
    ///   With [`PipelineOptions::graphics_pipeline_library`] (the default)
    ///   it must also have VK_KHR_pipeline_library and
    ///   VK_EXT_graphics_pipeline_library with the `graphicsPipelineLibrary`
    ///   feature enabled.
    /// - `cache` must be null or a pipeline cache of `device` that stays
    ///   valid until the manager is dropped (background workers use it).
    /// - `device` must outlive the manager.
    /// - When the manager is dropped, the device must be done with every
    ///   pipeline it handed out: no command buffer that uses one may still
    ///   be pending (wait for the queue or the device to be idle first).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{PipelineManager, PipelineOptions};
    /// // SAFETY: `device` is valid with the features `new` lists, and outlives the
    /// // manager, which is dropped after `device_wait_idle`.
    /// let manager =
    ///     unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// # let _ = manager;
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn new(
        device: ash::Device,
        cache: vk::PipelineCache,
        limits: &vk::PhysicalDeviceLimits,
        options: PipelineOptions,
    ) -> Self {
        let mut options = options;
        if std::env::var("SMOLV_FORCE_MONOLITHIC").is_ok_and(|v| v == "1") {
            options.force_monolithic = true;
        }
        let (sender, receiver) = mpsc::channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        // Workers link optimized pipelines and create compute pipelines
        // asked for in the background, so there are some even without libraries.
        let workers = (0..options.workers.max(1))
            .map(|_| {
                let receiver = Arc::clone(&receiver);
                let device = device.clone();
                std::thread::spawn(move || {
                    loop {
                        let job = match receiver.lock() {
                            Ok(receiver) => receiver.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        // SAFETY: the jobs were checked and their handles stay
                        // valid while the manager lives (it joins the workers).
                        unsafe { job.run(&device, cache) };
                    }
                })
            })
            .collect();
        // SAFETY: the same device, limits and lifetime as this manager's
        // (the caller's contract); the manager drops the layouts after its
        // pipelines, and pipeline creation never outlives a call.
        let layouts = unsafe { LayoutCache::new(device.clone(), limits) };
        Self {
            device,
            cache,
            layouts,
            options,
            interned: Mutex::default(),
            libraries: Arc::default(),
            analyses: Mutex::default(),
            pipelines: Mutex::default(),
            compute: Mutex::default(),
            orphans: Mutex::default(),
            compute_orphans: Mutex::default(),
            retired: Arc::default(),
            sender: Some(sender),
            workers,
        }
    }

    /// Whether pipelines are built from libraries (false: monolithic).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// if !manager.uses_libraries() {
    ///     eprintln!("no VK_EXT_graphics_pipeline_library: building monolithic pipelines");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn uses_libraries(&self) -> bool {
        self.options.graphics_pipeline_library && !self.options.force_monolithic
    }

    /// The layouts of a vertex + fragment program, as the manager builds them.
    ///
    /// # Errors
    /// See [`LayoutCache::program`].
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// let layout = manager.program_layout(&vertex, &fragment)?;
    /// // Allocate descriptor sets with layout.set_layouts[set], bind with layout.pipeline_layout.
    /// println!("{} set layouts", layout.set_layouts.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn program_layout(&self, vertex: &Stage<'_>, fragment: &Stage<'_>) -> Result<ProgramLayout, VulkanError> {
        let options = LayoutOptions { independent_sets: self.uses_libraries(), ..LayoutOptions::default() };
        self.layouts.program(&[vertex.reflection, fragment.reflection], &options)
    }

    /// The pipeline for `vertex` + `fragment` with `state`. The first call
    /// for a combination builds what is missing and returns a fast-linked
    /// pipeline (queuing the optimized link in the background), or a
    /// monolithic one; later calls return the same slot. When threads race
    /// for the same combination, one slot wins and the others' pipelines
    /// are destroyed.
    ///
    /// # Errors
    /// Layout errors, spec-constant values that do not fit their
    /// constants, and failing Vulkan calls.
    ///
    /// # Safety
    /// What `vkCreateGraphicsPipelines` requires of its inputs:
    /// - each stage's `spirv` is a valid SPIR-V module for the device and
    ///   its enabled features and has the entry point its reflection names;
    /// - each reflection describes its module: every binding and push
    ///   constant the module uses is in it, with its type and count;
    /// - `state` is valid for the device: formats it supports as colour and
    ///   depth attachments and as vertex attributes, counts within its
    ///   limits, vertex inputs that match the vertex stage.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // SAFETY: the modules are valid SPIR-V for the device, their reflections
    /// // describe them, and the state suits the device.
    /// let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    /// // The same combination again: the same slot, nothing built.
    /// // SAFETY: as above.
    /// let again = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    /// assert!(std::sync::Arc::ptr_eq(&slot, &again));
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

    /// The pipeline of `program` with `state`: as
    /// [`get_pipeline`](Self::get_pipeline), for programs with
    /// tessellation or geometry stages too. The vertex, tessellation and
    /// geometry stages go into one pre-rasterization library.
    ///
    /// # Errors
    /// As [`get_pipeline`](Self::get_pipeline), and
    /// [`VulkanError::FeatureNotEnabled`] for state or stages that need a
    /// feature missing from [`PipelineOptions::features`],
    /// [`VulkanError::WrongStage`] for a stage in the wrong place,
    /// [`VulkanError::BlendCount`], [`VulkanError::DynamicStateUnsupported`],
    /// [`VulkanError::PatchTopology`] and [`VulkanError::VertexInputFormat`].
    ///
    /// # Safety
    /// As [`get_pipeline`](Self::get_pipeline), for every stage; the
    /// sample count must be one the device supports for the attachments.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, vertex_spirv: &[u32], geometry_spirv: &[u32], fragment_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{DeviceFeatures, GraphicsProgram, GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (v, g, f) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(geometry_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let stage = |spirv, reflection| Stage { spirv, reflection, specialization: &[] };
    /// let enabled = vk::PhysicalDeviceFeatures::default().geometry_shader(true); // as given to vkCreateDevice
    /// let options = PipelineOptions { features: DeviceFeatures::from_enabled(&enabled), ..PipelineOptions::default() };
    /// // SAFETY: as the example of `PipelineManager::new` says.
    /// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, options) };
    /// let program = GraphicsProgram { geometry: Some(stage(geometry_spirv, &g)), ..GraphicsProgram::new(stage(vertex_spirv, &v), stage(fragment_spirv, &f)) };
    /// // SAFETY: valid modules described by their reflections; a state the device supports.
    /// let slot = unsafe { manager.get_program_pipeline(&program, &GraphicsState::default())? };
    /// # let _ = slot;
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn get_program_pipeline(
        &self,
        program: &GraphicsProgram<'_>,
        state: &GraphicsState,
    ) -> Result<Arc<PipelineSlot>, VulkanError> {
        for (expected, stage) in program.stages() {
            check_stage(expected, stage)?;
        }
        state.check(&self.options.features, program.extra_stages())?;
        let layout = self.graphics_program_layout(program)?;
        let key = self.pipeline_key(program, state, &layout)?;
        if let Some(slot) = lock(&self.pipelines).get(&key) {
            return Ok(Arc::clone(slot));
        }
        let (slot, libraries) = if self.uses_libraries() {
            let libraries = [
                self.vertex_input_library(&key.vertex_input)?,
                self.pre_raster_library(program, &key.pre_raster)?,
                self.fragment_library(&program.fragment, &key.fragment)?,
                self.output_library(&key.output)?,
            ];
            // SAFETY: the manager keeps these libraries alive, made for this
            // layout, on its device and cache.
            let fast = unsafe { link(&self.device, self.cache, &libraries, layout.pipeline_layout, false) }?;
            let slot = PipelineSlot::new(fast, false, layout.pipeline_layout, key.clone(), state.clone());
            (slot, Some(libraries))
        } else {
            let pipeline = self.monolithic(program, &key, layout.pipeline_layout)?;
            (PipelineSlot::new(pipeline, true, layout.pipeline_layout, key.clone(), state.clone()), None)
        };
        let mut pipelines = lock(&self.pipelines);
        if let Some(existing) = pipelines.get(&key) {
            // Another thread made the same pipeline meanwhile: keep theirs,
            // as `cached` does for libraries. Nothing was queued for ours.
            let existing = Arc::clone(existing);
            drop(pipelines);
            // SAFETY: `slot.fast` was just created by this call and never
            // handed out or used.
            unsafe { self.device.destroy_pipeline(slot.current(), None) };
            return Ok(existing);
        }
        let slot = Arc::new(slot);
        pipelines.insert(key, Arc::clone(&slot));
        drop(pipelines);
        if let (Some(libraries), Some(sender)) = (libraries, &self.sender) {
            let _ = sender.send(Job::Link { slot: Arc::clone(&slot), libraries, request: 0 });
        }
        Ok(slot)
    }

    /// The layouts of `program`, as the manager builds them.
    ///
    /// # Errors
    /// See [`LayoutCache::program`].
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, vertex_spirv: &[u32], fragment_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{GraphicsProgram, PipelineManager, PipelineOptions, Stage};
    /// # let (v, f) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let program = GraphicsProgram::new(Stage { spirv: vertex_spirv, reflection: &v, specialization: &[] }, Stage { spirv: fragment_spirv, reflection: &f, specialization: &[] });
    /// // SAFETY: as the example of `PipelineManager::new` says.
    /// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// let layout = manager.graphics_program_layout(&program)?;
    /// println!("{} set layouts", layout.set_layouts.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn graphics_program_layout(&self, program: &GraphicsProgram<'_>) -> Result<ProgramLayout, VulkanError> {
        let options = LayoutOptions { independent_sets: self.uses_libraries(), ..LayoutOptions::default() };
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
        let (pre_raster_layout, fragment_layout) = if self.uses_libraries() {
            (
                self.layouts.library_layout(layout, &pre_raster_reflections, None)?,
                self.layouts.library_layout(layout, &[program.fragment.reflection], None)?,
            )
        } else {
            (layout.pipeline_layout, layout.pipeline_layout)
        };
        let pre_raster_stages =
            pre_raster.iter().map(|&(flags, stage)| Ok((flags, self.stage_key(stage)?))).collect::<Result<_, _>>()?;
        Ok(PipelineKey {
            vertex_input: VertexInputKey::of(state, program.vertex.reflection)?,
            pre_raster: PreRasterKey::of(state, pre_raster_stages, pre_raster_layout.as_raw()),
            fragment: FragmentKey::of(state, self.stage_key(&program.fragment)?, fragment_layout.as_raw()),
            output: OutputKey::of(state)?,
        })
    }

    /// Creates (or finds) the fragment-shader library of `fragment` alone:
    /// what a game does when a material's shader loads, ahead of any draw.
    ///
    /// # Errors
    /// As [`get_pipeline`](Self::get_pipeline).
    ///
    /// # Safety
    /// As [`get_pipeline`](Self::get_pipeline).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(
    /// #     device: ash::Device,
    /// #     properties: &vk::PhysicalDeviceProperties,
    /// #     vertex_spirv: &[u32],
    /// #     fragment_spirv: &[u32],
    /// #     cmd: vk::CommandBuffer,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// # use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (vertex_reflection, fragment_reflection) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let vertex = Stage { spirv: vertex_spirv, reflection: &vertex_reflection, specialization: &[] };
    /// # let fragment = Stage { spirv: fragment_spirv, reflection: &fragment_reflection, specialization: &[] };
    /// # let state = GraphicsState::default();
    /// # // SAFETY: as the example of `PipelineManager::new` says.
    /// # let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // When a material loads, before anything draws with it.
    /// // SAFETY: as in `get_pipeline`.
    /// let library = unsafe { manager.preload_fragment(&vertex, &fragment, &state)? };
    /// # let _ = library;
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn preload_fragment(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
    ) -> Result<vk::Pipeline, VulkanError> {
        check_stage(vk::ShaderStageFlags::FRAGMENT, fragment)?;
        let layout = self.program_layout(vertex, fragment)?;
        let fragment_layout = if self.uses_libraries() {
            self.layouts.library_layout(&layout, &[fragment.reflection], None)?
        } else {
            layout.pipeline_layout
        };
        let key = FragmentKey::of(state, self.stage_key(fragment)?, fragment_layout.as_raw());
        self.fragment_library(fragment, &key)
    }

    /// How many libraries of each part the manager holds now.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, vertex_spirv: &[u32], fragment_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
    /// # let (v, f) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(fragment_spirv)?);
    /// # let (vertex, fragment) = (Stage { spirv: vertex_spirv, reflection: &v, specialization: &[] }, Stage { spirv: fragment_spirv, reflection: &f, specialization: &[] });
    /// // SAFETY: as the example of `PipelineManager::new` says.
    /// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// let before = manager.library_counts();
    /// // SAFETY: as in `get_pipeline`.
    /// unsafe { manager.get_pipeline(&vertex, &fragment, &GraphicsState::default())? };
    /// let after = manager.library_counts();
    /// println!("{} new libraries", after.total() - before.total());
    /// # Ok(())
    /// # }
    /// ```
    pub fn library_counts(&self) -> LibraryCounts {
        let mut counts = LibraryCounts::default();
        for key in lock(&self.libraries).keys() {
            match key {
                LibraryKey::VertexInput(_) => counts.vertex_input += 1,
                LibraryKey::PreRaster(_) => counts.pre_rasterization += 1,
                LibraryKey::Fragment(_) => counts.fragment_shader += 1,
                LibraryKey::Output(_) => counts.fragment_output += 1,
            }
        }
        counts
    }

    /// The layouts of a compute shader, as the manager builds them (plain
    /// layouts: compute pipelines are never libraries).
    ///
    /// # Errors
    /// See [`LayoutCache::program`].
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, compute_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{PipelineManager, PipelineOptions, Stage};
    /// # let reflection = Reflection::from_spirv(compute_spirv)?;
    /// let stage = Stage { spirv: compute_spirv, reflection: &reflection, specialization: &[] };
    /// // SAFETY: as the example of `PipelineManager::new` says.
    /// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// let layout = manager.compute_layout(&stage)?; // allocate descriptor sets with layout.set_layouts
    /// # let _ = layout;
    /// # Ok(())
    /// # }
    /// ```
    pub fn compute_layout(&self, stage: &Stage<'_>) -> Result<ProgramLayout, VulkanError> {
        self.layouts
            .program(&[stage.reflection], &LayoutOptions { independent_sets: false, ..LayoutOptions::default() })
    }

    /// The compute pipeline of `stage`, created now on this thread (or
    /// found: the same stage gives the same slot). Its layout comes from
    /// the reflection, its spec constants are folded in ahead when
    /// [`PipelineOptions::specialize_ahead`] says so, and it goes through
    /// the manager's pipeline cache.
    ///
    /// # Errors
    /// Layout errors, spec-constant values that do not fit, a stage that
    /// is not a compute shader, and failing Vulkan calls.
    ///
    /// # Safety
    /// As [`get_pipeline`](Self::get_pipeline) for the stage.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, compute_spirv: &[u32], cmd: vk::CommandBuffer) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::specialize::Value;
    /// use smolv_runtime::vulkan::{PipelineManager, PipelineOptions, Stage};
    /// # let reflection = Reflection::from_spirv(compute_spirv)?;
    /// let stage = Stage { spirv: compute_spirv, reflection: &reflection, specialization: &[(1, Value::U32(0))] };
    /// // SAFETY: as the example of `PipelineManager::new` says.
    /// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // SAFETY: the module is valid SPIR-V for the device, described by its reflection.
    /// let slot = unsafe { manager.get_compute(&stage)? };
    /// // SAFETY: `cmd` is recording; the slot is ready (get_compute waited).
    /// unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, slot.wait()?) };
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn get_compute(&self, stage: &Stage<'_>) -> Result<Arc<ComputeSlot>, VulkanError> {
        // SAFETY: the caller's contract, passed on.
        let slot = unsafe { self.compute_slot(stage, false)? };
        slot.wait()?;
        Ok(slot)
    }

    /// As [`get_compute`](Self::get_compute), but the pipeline is created
    /// on the manager's background worker: this returns at once, and
    /// [`ComputeSlot::wait`] (or [`ComputeSlot::pipeline`]) gives it when
    /// ready. What can be checked ahead (layout, stage, spec-constant
    /// values) is checked here.
    ///
    /// # Errors
    /// As [`get_compute`](Self::get_compute), except failing Vulkan calls,
    /// which [`ComputeSlot::wait`] reports.
    ///
    /// # Safety
    /// As [`get_compute`](Self::get_compute).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # #[allow(unused)]
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, compute_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{PipelineManager, PipelineOptions, Stage};
    /// # let reflection = Reflection::from_spirv(compute_spirv)?;
    /// let stage = Stage { spirv: compute_spirv, reflection: &reflection, specialization: &[] };
    /// // SAFETY: as the example of `PipelineManager::new` says.
    /// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), &properties.limits, PipelineOptions::default()) };
    /// // SAFETY: as in `get_compute`.
    /// let slot = unsafe { manager.request_compute(&stage)? };
    /// // ... build the graphics pipelines meanwhile ...
    /// let pipeline = slot.wait()?;
    /// # let _ = pipeline;
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn request_compute(&self, stage: &Stage<'_>) -> Result<Arc<ComputeSlot>, VulkanError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.compute_slot(stage, true) }
    }

    /// # Safety
    /// As [`get_compute`](Self::get_compute).
    unsafe fn compute_slot(&self, stage: &Stage<'_>, background: bool) -> Result<Arc<ComputeSlot>, VulkanError> {
        check_stage(vk::ShaderStageFlags::COMPUTE, stage)?;
        let key = self.stage_key(stage)?;
        if let Some(slot) = lock(&self.compute).get(&key) {
            return Ok(Arc::clone(slot));
        }
        let layout = self.compute_layout(stage)?.pipeline_layout;
        let (code, values) = self.code(key.code, stage);
        // Refuse values that do not fit here, not on the worker.
        SpecializationData::new(&code, values)?;
        let job = ComputeJob {
            code: code.into_owned(),
            values: values.to_vec(),
            reflection: stage.reflection.clone(),
            layout,
        };
        let slot = {
            let mut compute = lock(&self.compute);
            if let Some(slot) = compute.get(&key) {
                return Ok(Arc::clone(slot));
            }
            let slot = Arc::new(ComputeSlot::pending(layout));
            compute.insert(key, Arc::clone(&slot));
            slot
        };
        match (&self.sender, background) {
            (Some(sender), true) => {
                let _ = sender.send(Job::Compute { slot: Arc::clone(&slot), job });
            }
            _ => {
                // SAFETY: the caller's contract: valid code and reflection;
                // the layout and cache belong to this manager's device.
                let created = unsafe { job.create(&self.device, self.cache) };
                slot.finish(created.map_err(|e| e.result()));
            }
        }
        Ok(slot)
    }

    /// The key of `stage`: its module and reflection interned, its values
    /// checked for repeated ids and sorted.
    fn stage_key(&self, stage: &Stage<'_>) -> Result<StageKey, VulkanError> {
        check_unique(stage.specialization)?;
        let mut values: Vec<ValueKey> = stage.specialization.iter().map(value_key).collect();
        values.sort_unstable();
        let mut interned = lock(&self.interned);
        let next = interned.code.len();
        let code = match interned.code.get(stage.spirv) {
            Some(&id) => id,
            None => *interned.code.entry(stage.spirv.into()).or_insert(next),
        };
        let next = interned.reflections.len();
        let reflection = match interned.reflections.get(stage.reflection) {
            Some(&id) => id,
            None => {
                interned.reflections.insert(stage.reflection.clone(), next);
                interned.reflection_list.push(stage.reflection.clone());
                next
            }
        };
        Ok(StageKey { code, reflection, values })
    }

    fn cached(
        &self,
        key: LibraryKey,
        create: impl FnOnce() -> Result<vk::Pipeline, VulkanError>,
    ) -> Result<vk::Pipeline, VulkanError> {
        if let Some(&library) = lock(&self.libraries).get(&key) {
            return Ok(library);
        }
        let library = create()?;
        // SAFETY: `library` was just created on this device and never handed out.
        Ok(unsafe { keep_library(&self.libraries, &self.device, key, library) })
    }

    fn vertex_input_library(&self, key: &VertexInputKey) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::VertexInput(key.clone()), || {
            let parts = Parts { vertex_input: Some(key), ..Parts::default() };
            // SAFETY: no stages; the state is valid (the contract of `get_pipeline`).
            unsafe { library::create(&self.device, self.cache, parts, true, &[], vk::PipelineLayout::null()) }
        })
    }

    fn pre_raster_library(
        &self,
        program: &GraphicsProgram<'_>,
        key: &PreRasterKey,
    ) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::PreRaster(key.clone()), || {
            let stages: Vec<_> =
                program.pre_raster().into_iter().zip(&key.stages).map(|((f, s), (_, k))| (f, s, k.code)).collect();
            let parts = Parts { pre_raster: Some(key), ..Parts::default() };
            self.create_with_stages(parts, true, &stages, vk::PipelineLayout::from_raw(key.layout))
        })
    }

    fn fragment_library(&self, fragment: &Stage<'_>, key: &FragmentKey) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::Fragment(key.clone()), || {
            let parts = Parts { fragment: Some(key), ..Parts::default() };
            let stages = [(vk::ShaderStageFlags::FRAGMENT, fragment, key.stage.code)];
            self.create_with_stages(parts, true, &stages, vk::PipelineLayout::from_raw(key.layout))
        })
    }

    fn output_library(&self, key: &OutputKey) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::Output(key.clone()), || {
            let parts = Parts { output: Some(key), ..Parts::default() };
            // SAFETY: no stages; the state is valid (the contract of `get_pipeline`).
            unsafe { library::create(&self.device, self.cache, parts, true, &[], vk::PipelineLayout::null()) }
        })
    }

    fn monolithic(
        &self,
        program: &GraphicsProgram<'_>,
        key: &PipelineKey,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, VulkanError> {
        let mut codes: Vec<usize> = key.pre_raster.stages.iter().map(|(_, k)| k.code).collect();
        codes.push(key.fragment.stage.code);
        let stages: Vec<_> = program.stages().into_iter().zip(codes).map(|((f, s), code)| (f, s, code)).collect();
        let parts = Parts {
            vertex_input: Some(&key.vertex_input),
            pre_raster: Some(&key.pre_raster),
            fragment: Some(&key.fragment),
            output: Some(&key.output),
        };
        self.create_with_stages(parts, false, &stages, layout)
    }

    /// Creates the modules of `stages` (flags, stage, interned code id),
    /// then the pipeline of `parts` with them.
    fn create_with_stages(
        &self,
        parts: Parts<'_>,
        library: bool,
        stages: &[(vk::ShaderStageFlags, &Stage<'_>, usize)],
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, VulkanError> {
        let codes: Vec<_> = stages.iter().map(|&(flags, stage, code)| (flags, stage, self.code(code, stage))).collect();
        let stage_codes: Vec<StageCode<'_>> = codes
            .iter()
            .map(|(flags, stage, (code, values))| StageCode {
                stage: *flags,
                code,
                values,
                reflection: stage.reflection,
            })
            .collect();
        // SAFETY: valid SPIR-V (the contract of `get_pipeline`).
        let modules = unsafe { ShaderModules::new(&self.device, &stage_codes)? };
        let specializations = modules.specialization_infos();
        let infos = modules.stage_infos(&specializations);
        // SAFETY: the stages are those of the parts, valid for the device,
        // and the layout belongs to this manager's device.
        unsafe { library::create(&self.device, self.cache, parts, library, &infos, layout) }
    }

    /// The SPIR-V to give the driver and the spec-constant values left for
    /// it: the module specialized ahead with none left when so configured
    /// and the specializer can, else the module as it is with all of them.
    fn code<'s>(&self, code_id: usize, stage: &Stage<'s>) -> (Cow<'s, [u32]>, &'s [(u32, Value)]) {
        if self.options.specialize_ahead && !stage.specialization.is_empty() {
            if let Some(specialized) =
                self.analysis(code_id, stage).and_then(|a| a.specialize(stage.specialization).ok())
            {
                return (Cow::Owned(specialized), &[]);
            }
        }
        (Cow::Borrowed(stage.spirv), stage.specialization)
    }

    /// The stage's specializer analysis, made on first use; `None` when the
    /// module cannot be analyzed (it then goes to the driver as it is).
    fn analysis(&self, code_id: usize, stage: &Stage<'_>) -> Option<Arc<Analysis>> {
        let cached = lock(&self.analyses).get(&code_id).cloned();
        cached.or_else(|| {
            let analysis = Arc::new(Specializer::analyze(stage.spirv).ok()?);
            Some(Arc::clone(lock(&self.analyses).entry(code_id).or_insert(analysis)))
        })
    }
}

/// Stores `library` under `key`, or, when another thread stored one
/// meanwhile, destroys it and returns theirs.
///
/// # Safety
/// `library` is a library of `device` that nothing else holds or uses.
unsafe fn keep_library(
    libraries: &Mutex<HashMap<LibraryKey, vk::Pipeline>>,
    device: &ash::Device,
    key: LibraryKey,
    library: vk::Pipeline,
) -> vk::Pipeline {
    let mut map = lock(libraries);
    match map.get(&key) {
        Some(&existing) => {
            drop(map);
            // SAFETY: this function's contract.
            unsafe { device.destroy_pipeline(library, None) };
            existing
        }
        None => {
            map.insert(key, library);
            library
        }
    }
}

/// An error unless `stage`'s reflection is of the `expected` stage.
fn check_stage(expected: vk::ShaderStageFlags, stage: &Stage<'_>) -> Result<(), VulkanError> {
    if stage.reflection.stage.vk_stage_flag() == expected.as_raw() {
        Ok(())
    } else {
        Err(VulkanError::WrongStage { expected: format!("{expected:?}"), found: stage.reflection.stage.name() })
    }
}

/// Work for the background workers.
enum Job {
    /// Link the libraries with link-time optimization and swap the result
    /// in, unless a later rebuild than `request` is in the slot by then.
    Link { slot: Arc<PipelineSlot>, libraries: [vk::Pipeline; 4], request: u64 },
    /// Create a compute pipeline and fill the slot.
    Compute { slot: Arc<ComputeSlot>, job: ComputeJob },
    /// Build a changed graphics pipeline again and swap it in.
    Rebuild(Box<rebuild::GraphicsRebuild>),
    /// Create a changed compute pipeline again and swap it in.
    RebuildCompute(rebuild::ComputeRebuild),
}

impl Job {
    /// # Safety
    /// The handles in the job are valid on `device` and `cache` is null or
    /// a cache of it; a compute job's code is valid SPIR-V.
    unsafe fn run(self, device: &ash::Device, cache: vk::PipelineCache) {
        match self {
            Self::Link { slot, libraries, request } => {
                // SAFETY: this function's contract; the libraries were made
                // with the slot's layout.
                if let Ok(pipeline) = unsafe { link(device, cache, &libraries, slot.layout, true) } {
                    let mut state = lock(&slot.state);
                    if state.rebuilds.generation == request && state.optimized.is_none() {
                        state.optimized = Some(pipeline);
                        slot.current.store(pipeline.as_raw(), Ordering::Release);
                    } else {
                        drop(state);
                        // SAFETY: a later rebuild replaced the pipelines
                        // this link was for; it was never handed out.
                        unsafe { device.destroy_pipeline(pipeline, None) };
                    }
                }
            }
            Self::Compute { slot, job } => {
                // SAFETY: this function's contract.
                let created = unsafe { job.create(device, cache) };
                slot.finish(created.map_err(|e| e.result()));
            }
            // SAFETY: this function's contract.
            Self::Rebuild(job) => unsafe { job.run(device, cache) },
            // SAFETY: this function's contract.
            Self::RebuildCompute(job) => unsafe { job.run(device, cache) },
        }
    }
}

impl Drop for PipelineManager {
    fn drop(&mut self) {
        // Stop the workers: they finish the jobs already queued, then see
        // the channel closed.
        self.sender = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        // SAFETY: the workers are gone, and the caller keeps the device alive
        // and done with these pipelines (the contract of `new`).
        unsafe {
            // A slot can be in the map once; rebuilt slots whose new key
            // another slot had are kept aside. Each handle is destroyed once.
            let mut pipelines = std::collections::BTreeSet::new();
            let slots = self.pipelines.get_mut().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, slot)| slot);
            for slot in slots.chain(self.orphans.get_mut().unwrap_or_else(|e| e.into_inner()).drain(..)) {
                pipelines.extend(PipelineSlot::held(&lock(&slot.state)).iter().map(|p| p.as_raw()));
            }
            let compute = self.compute.get_mut().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, slot)| slot);
            for slot in compute.chain(self.compute_orphans.get_mut().unwrap_or_else(|e| e.into_inner()).drain(..)) {
                if let Some(pipeline) = slot.take() {
                    pipelines.insert(pipeline.as_raw());
                }
            }
            pipelines.extend(lock(&self.retired).drain(..).map(|p| p.as_raw()));
            for pipeline in pipelines {
                self.device.destroy_pipeline(vk::Pipeline::from_raw(pipeline), None);
            }
            for (_, library) in lock(&self.libraries).drain() {
                self.device.destroy_pipeline(library, None);
            }
        }
    }
}
