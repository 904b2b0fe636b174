//! Graphics pipelines from shaders: per-stage pipeline libraries, a fast
//! link now, the link-time-optimized pipeline from a background worker,
//! and monolithic pipelines where libraries are unavailable.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use ash::vk;
use ash::vk::Handle;

use super::layout::{LayoutCache, LayoutOptions, ProgramLayout};
use super::specialization::{SpecializationData, check_unique};
use super::{VulkanError, check, lock};
use crate::reflect::Reflection;
use crate::specialize::{Analysis, Specializer, Value};

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

/// Fixed-function state of a graphics pipeline. Viewport and scissor are
/// dynamic.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::GraphicsState;
/// let state = GraphicsState {
///     color_formats: vec![vk::Format::B8G8R8A8_SRGB],
///     depth_format: vk::Format::D32_SFLOAT,
///     cull_mode: vk::CullModeFlags::BACK,
///     depth_test: true,
///     ..GraphicsState::default()
/// };
/// assert_eq!(state.topology, vk::PrimitiveTopology::TRIANGLE_LIST);
/// ```
#[derive(Clone, Debug)]
pub struct GraphicsState {
    /// Colour attachment formats (dynamic rendering).
    pub color_formats: Vec<vk::Format>,
    /// Depth attachment format, or `UNDEFINED`.
    pub depth_format: vk::Format,
    /// Primitive topology.
    pub topology: vk::PrimitiveTopology,
    /// Vertex buffer bindings.
    pub vertex_bindings: Vec<vk::VertexInputBindingDescription>,
    /// Vertex attributes.
    pub vertex_attributes: Vec<vk::VertexInputAttributeDescription>,
    /// Face culling.
    pub cull_mode: vk::CullModeFlags,
    /// Depth test and write (with `LESS_OR_EQUAL`), when there is a depth attachment.
    pub depth_test: bool,
    /// Premultiplied-alpha blending on every colour attachment.
    pub alpha_blend: bool,
}

impl Default for GraphicsState {
    fn default() -> Self {
        Self {
            color_formats: vec![vk::Format::R8G8B8A8_UNORM],
            depth_format: vk::Format::UNDEFINED,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            vertex_bindings: Vec::new(),
            vertex_attributes: Vec::new(),
            cull_mode: vk::CullModeFlags::NONE,
            depth_test: false,
            alpha_blend: false,
        }
    }
}

/// The vertex-input part of a [`GraphicsState`], as a map key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct VertexInputKey {
    topology: i32,
    bindings: Vec<(u32, u32, i32)>,
    attributes: Vec<(u32, u32, i32, u32)>,
}

impl VertexInputKey {
    fn of(state: &GraphicsState) -> Self {
        Self {
            topology: state.topology.as_raw(),
            bindings: state.vertex_bindings.iter().map(|b| (b.binding, b.stride, b.input_rate.as_raw())).collect(),
            attributes: state
                .vertex_attributes
                .iter()
                .map(|a| (a.location, a.binding, a.format.as_raw(), a.offset))
                .collect(),
        }
    }
}

/// The fragment-output part of a [`GraphicsState`], as a map key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct OutputKey {
    color_formats: Vec<i32>,
    depth_format: i32,
    alpha_blend: bool,
}

impl OutputKey {
    fn of(state: &GraphicsState) -> Self {
        Self {
            color_formats: state.color_formats.iter().map(|f| f.as_raw()).collect(),
            depth_format: state.depth_format.as_raw(),
            alpha_blend: state.alpha_blend,
        }
    }
}

/// A spec-constant value as a key: id, variant and bits, so that equal
/// keys are identical values.
type ValueKey = (u32, u8, u64);

fn value_key(&(id, value): &(u32, Value)) -> ValueKey {
    let variant = match value {
        Value::Bool(_) => 0,
        Value::I32(_) => 1,
        Value::U32(_) => 2,
        Value::F32(_) => 3,
        Value::Bits(_) => 4,
    };
    (id, variant, value.bits())
}

/// A stage as a map key: its module and reflection by interned id (see
/// [`Interned`]), its values sorted by id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct StageKey {
    code: usize,
    reflection: usize,
    values: Vec<ValueKey>,
}

/// Everything a pipeline is made from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PipelineKey {
    vertex: StageKey,
    fragment: StageKey,
    vertex_input: VertexInputKey,
    output: OutputKey,
    cull_mode: u32,
    depth_test: bool,
}

/// Everything each of the four libraries is made from. Pipeline layouts
/// are compared by handle: the layout cache gives equal layouts one handle
/// and destroys none while the manager lives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum LibraryKey {
    VertexInput(VertexInputKey),
    PreRaster {
        vertex: StageKey,
        cull_mode: u32,
        layout: u64,
    },
    /// The colour formats are not part of it: Vulkan reads them only for
    /// the fragment-output interface.
    Fragment {
        fragment: StageKey,
        depth_format: i32,
        depth_test: bool,
        layout: u64,
    },
    Output(OutputKey),
}

/// Modules and reflections seen so far, each stored once and numbered, so
/// that keys compare small numbers while meaning the full contents. A
/// lookup hashes and compares the whole module.
#[derive(Default)]
struct Interned {
    code: HashMap<Box<[u32]>, usize>,
    reflections: HashMap<Reflection, usize>,
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
    /// Background link-time-optimization workers (default 1).
    pub workers: usize,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self { graphics_pipeline_library: true, force_monolithic: false, specialize_ahead: false, workers: 1 }
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
    fast: vk::Pipeline,
    optimized: AtomicU64,
    layout: vk::PipelineLayout,
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
        match self.optimized.load(Ordering::Acquire) {
            0 => self.fast,
            raw => vk::Pipeline::from_raw(raw),
        }
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
        self.optimized.load(Ordering::Acquire) != 0
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
        self.fast
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
}

struct LinkJob {
    slot: Arc<PipelineSlot>,
    libraries: [vk::Pipeline; 4],
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
    libraries: Mutex<HashMap<LibraryKey, vk::Pipeline>>,
    /// Specializer analyses by interned module: analyzed once per shader,
    /// specialized once per material.
    analyses: Mutex<HashMap<usize, Arc<Analysis>>>,
    pipelines: Mutex<HashMap<PipelineKey, Arc<PipelineSlot>>>,
    sender: Option<mpsc::Sender<LinkJob>>,
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
        let (sender, receiver) = mpsc::channel::<LinkJob>();
        let receiver = Arc::new(Mutex::new(receiver));
        let uses_libraries = options.graphics_pipeline_library && !options.force_monolithic;
        let workers = if uses_libraries {
            (0..options.workers.max(1))
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
                            if let Ok(pipeline) = link(&device, cache, &job.libraries, job.slot.layout, true) {
                                job.slot.optimized.store(pipeline.as_raw(), Ordering::Release);
                            }
                        }
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
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
            libraries: Mutex::default(),
            analyses: Mutex::default(),
            pipelines: Mutex::default(),
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
        let (vertex_key, fragment_key) = (self.stage_key(vertex)?, self.stage_key(fragment)?);
        let key = PipelineKey {
            vertex: vertex_key.clone(),
            fragment: fragment_key.clone(),
            vertex_input: VertexInputKey::of(state),
            output: OutputKey::of(state),
            cull_mode: state.cull_mode.as_raw(),
            depth_test: state.depth_test,
        };
        if let Some(slot) = lock(&self.pipelines).get(&key) {
            return Ok(Arc::clone(slot));
        }
        let layout = self.program_layout(vertex, fragment)?;
        let (slot, libraries) = if self.uses_libraries() {
            let libraries = self.libraries_for((vertex, vertex_key), (fragment, fragment_key), state, &layout)?;
            let fast = link(&self.device, self.cache, &libraries, layout.pipeline_layout, false)?;
            let slot = PipelineSlot { fast, optimized: AtomicU64::new(0), layout: layout.pipeline_layout };
            (slot, Some(libraries))
        } else {
            let pipeline =
                self.monolithic((vertex, &vertex_key), (fragment, &fragment_key), state, layout.pipeline_layout)?;
            let slot = PipelineSlot {
                fast: pipeline,
                optimized: AtomicU64::new(pipeline.as_raw()),
                layout: layout.pipeline_layout,
            };
            (slot, None)
        };
        let mut pipelines = lock(&self.pipelines);
        if let Some(existing) = pipelines.get(&key) {
            // Another thread made the same pipeline meanwhile: keep theirs,
            // as `cached` does for libraries. Nothing was queued for ours.
            let existing = Arc::clone(existing);
            drop(pipelines);
            // SAFETY: `slot.fast` was just created by this call and never
            // handed out or used.
            unsafe { self.device.destroy_pipeline(slot.fast, None) };
            return Ok(existing);
        }
        let slot = Arc::new(slot);
        pipelines.insert(key, Arc::clone(&slot));
        drop(pipelines);
        if let (Some(libraries), Some(sender)) = (libraries, &self.sender) {
            let _ = sender.send(LinkJob { slot: Arc::clone(&slot), libraries });
        }
        Ok(slot)
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
        let layout = self.program_layout(vertex, fragment)?;
        let key = self.stage_key(fragment)?;
        self.fragment_library((fragment, key), state, stage_layout(&layout, vk::ShaderStageFlags::FRAGMENT))
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
            None => *interned.reflections.entry(stage.reflection.clone()).or_insert(next),
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
        let mut libraries = lock(&self.libraries);
        match libraries.get(&key) {
            // Another thread made it meanwhile: keep theirs.
            Some(&existing) => {
                drop(libraries);
                // SAFETY: `library` was just created and never handed out.
                unsafe { self.device.destroy_pipeline(library, None) };
                Ok(existing)
            }
            None => {
                libraries.insert(key, library);
                Ok(library)
            }
        }
    }

    fn libraries_for(
        &self,
        (vertex, vertex_key): (&Stage<'_>, StageKey),
        fragment: (&Stage<'_>, StageKey),
        state: &GraphicsState,
        layout: &ProgramLayout,
    ) -> Result<[vk::Pipeline; 4], VulkanError> {
        let input = self.cached(LibraryKey::VertexInput(VertexInputKey::of(state)), || {
            let vertex_input = vertex_input_state(state);
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(state.topology);
            let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                .flags(vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE);
            let info =
                library_info().vertex_input_state(&vertex_input).input_assembly_state(&assembly).push_next(&mut kind);
            self.create(&info)
        })?;
        let pre_raster_layout = stage_layout(layout, vk::ShaderStageFlags::VERTEX);
        let code_id = vertex_key.code;
        let pre_raster_key = LibraryKey::PreRaster {
            vertex: vertex_key,
            cull_mode: state.cull_mode.as_raw(),
            layout: pre_raster_layout.as_raw(),
        };
        let pre_raster = self.cached(pre_raster_key, || {
            let (code, values) = self.code(code_id, vertex);
            let specialization = SpecializationData::new(&code, values)?;
            let mut module = vk::ShaderModuleCreateInfo::default().code(&code);
            let info_spec = specialization.info();
            let entry = entry_name(vertex.reflection);
            let stages =
                [shader_stage(vk::ShaderStageFlags::VERTEX, &entry, info_spec.as_ref()).push_next(&mut module)];
            let viewport = dynamic_viewport();
            let raster = rasterization_state(state);
            let dynamic = dynamic_viewport_state();
            // Only the view mask: validation 1.3.239 misreports colour formats here.
            let mut rendering = vk::PipelineRenderingCreateInfo::default().view_mask(0);
            let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                .flags(vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS);
            let info = library_info()
                .stages(&stages)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .dynamic_state(&dynamic)
                .layout(pre_raster_layout)
                .push_next(&mut rendering)
                .push_next(&mut kind);
            self.create(&info)
        })?;
        let fragment_library =
            self.fragment_library(fragment, state, stage_layout(layout, vk::ShaderStageFlags::FRAGMENT))?;
        let output = self.cached(LibraryKey::Output(OutputKey::of(state)), || {
            let attachments = blend_attachments(state);
            let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
            let multisample = single_sample();
            let mut rendering = rendering_formats(state);
            let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE);
            let info = library_info()
                .color_blend_state(&blend)
                .multisample_state(&multisample)
                .push_next(&mut rendering)
                .push_next(&mut kind);
            self.create(&info)
        })?;
        Ok([input, pre_raster, fragment_library, output])
    }

    fn fragment_library(
        &self,
        (fragment, fragment_key): (&Stage<'_>, StageKey),
        state: &GraphicsState,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, VulkanError> {
        let code_id = fragment_key.code;
        let key = LibraryKey::Fragment {
            fragment: fragment_key,
            depth_format: state.depth_format.as_raw(),
            depth_test: state.depth_test,
            layout: layout.as_raw(),
        };
        self.cached(key, || {
            let (code, values) = self.code(code_id, fragment);
            let specialization = SpecializationData::new(&code, values)?;
            let mut module = vk::ShaderModuleCreateInfo::default().code(&code);
            let info_spec = specialization.info();
            let entry = entry_name(fragment.reflection);
            let stages =
                [shader_stage(vk::ShaderStageFlags::FRAGMENT, &entry, info_spec.as_ref()).push_next(&mut module)];
            let depth = depth_state(state);
            let multisample = single_sample();
            let mut rendering = rendering_formats(state);
            let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_SHADER);
            let info = library_info()
                .stages(&stages)
                .depth_stencil_state(&depth)
                .multisample_state(&multisample)
                .layout(layout)
                .push_next(&mut rendering)
                .push_next(&mut kind);
            self.create(&info)
        })
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

    fn create(&self, info: &vk::GraphicsPipelineCreateInfo<'_>) -> Result<vk::Pipeline, VulkanError> {
        // SAFETY: `info` and everything it points to live across the call;
        // its shaders and state are valid (the contract of `get_pipeline`).
        let result = unsafe { self.device.create_graphics_pipelines(self.cache, std::slice::from_ref(info), None) };
        check("vkCreateGraphicsPipelines", result.map(|p| p[0]).map_err(|(_, e)| e))
    }

    fn monolithic(
        &self,
        (vertex, vertex_key): (&Stage<'_>, &StageKey),
        (fragment, fragment_key): (&Stage<'_>, &StageKey),
        state: &GraphicsState,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, VulkanError> {
        let (vertex_code, vertex_values) = self.code(vertex_key.code, vertex);
        let (fragment_code, fragment_values) = self.code(fragment_key.code, fragment);
        let vertex_spec = SpecializationData::new(&vertex_code, vertex_values)?;
        let fragment_spec = SpecializationData::new(&fragment_code, fragment_values)?;
        let mut modules = Vec::new();
        for code in [&vertex_code, &fragment_code] {
            // SAFETY: the create info points at `code`, alive across the
            // call; the module is valid SPIR-V (the contract of `get_pipeline`).
            let module =
                unsafe { self.device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None) };
            match check("vkCreateShaderModule", module) {
                Ok(module) => modules.push(module),
                Err(e) => {
                    self.destroy_modules(modules);
                    return Err(e);
                }
            }
        }
        let (vertex_info, fragment_info) = (vertex_spec.info(), fragment_spec.info());
        let (vertex_entry, fragment_entry) = (entry_name(vertex.reflection), entry_name(fragment.reflection));
        let stages = [
            shader_stage(vk::ShaderStageFlags::VERTEX, &vertex_entry, vertex_info.as_ref()).module(modules[0]),
            shader_stage(vk::ShaderStageFlags::FRAGMENT, &fragment_entry, fragment_info.as_ref()).module(modules[1]),
        ];
        let vertex_input = vertex_input_state(state);
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(state.topology);
        let viewport = dynamic_viewport();
        let raster = rasterization_state(state);
        let multisample = single_sample();
        let depth = depth_state(state);
        let attachments = blend_attachments(state);
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
        let dynamic = dynamic_viewport_state();
        let mut rendering = rendering_formats(state);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .push_next(&mut rendering);
        let pipeline = self.create(&info);
        self.destroy_modules(modules);
        pipeline
    }

    fn destroy_modules(&self, modules: Vec<vk::ShaderModule>) {
        for module in modules {
            // SAFETY: modules may be destroyed once pipeline creation returned.
            unsafe { self.device.destroy_shader_module(module, None) };
        }
    }
}

/// The per-stage layout of `layout` for `stage` (the program layout if none).
fn stage_layout(layout: &ProgramLayout, stage: vk::ShaderStageFlags) -> vk::PipelineLayout {
    layout.stage_layouts.iter().find(|(s, _)| *s == stage).map_or(layout.pipeline_layout, |(_, l)| *l)
}

fn library_info<'a>() -> vk::GraphicsPipelineCreateInfo<'a> {
    vk::GraphicsPipelineCreateInfo::default()
        .flags(vk::PipelineCreateFlags::LIBRARY_KHR | vk::PipelineCreateFlags::RETAIN_LINK_TIME_OPTIMIZATION_INFO_EXT)
}

/// Vertex buffers and attributes, from the state.
fn vertex_input_state(state: &GraphicsState) -> vk::PipelineVertexInputStateCreateInfo<'_> {
    vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&state.vertex_bindings)
        .vertex_attribute_descriptions(&state.vertex_attributes)
}

/// Filled, counter-clockwise front faces, culling from the state.
fn rasterization_state(state: &GraphicsState) -> vk::PipelineRasterizationStateCreateInfo<'static> {
    vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(state.cull_mode)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0)
}

/// Viewport and scissor are dynamic state, so pipelines survive resizes.
const DYNAMIC_STATES: [vk::DynamicState; 2] = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];

/// One viewport and scissor, set at draw time (see [`dynamic_viewport_state`]).
fn dynamic_viewport() -> vk::PipelineViewportStateCreateInfo<'static> {
    vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1)
}

/// [`DYNAMIC_STATES`] as a create info.
fn dynamic_viewport_state() -> vk::PipelineDynamicStateCreateInfo<'static> {
    vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&DYNAMIC_STATES)
}

/// One sample per pixel: the pipelines render to single-sampled targets.
fn single_sample() -> vk::PipelineMultisampleStateCreateInfo<'static> {
    vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1)
}

/// The attachment formats of dynamic rendering, from the state.
fn rendering_formats(state: &GraphicsState) -> vk::PipelineRenderingCreateInfo<'_> {
    vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&state.color_formats)
        .depth_attachment_format(state.depth_format)
}

fn depth_state(state: &GraphicsState) -> vk::PipelineDepthStencilStateCreateInfo<'static> {
    let depth = state.depth_test && state.depth_format != vk::Format::UNDEFINED;
    vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(depth)
        .depth_write_enable(depth)
        .depth_compare_op(vk::CompareOp::LESS_OR_EQUAL)
}

fn blend_attachments(state: &GraphicsState) -> Vec<vk::PipelineColorBlendAttachmentState> {
    let attachment = vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)
        .blend_enable(state.alpha_blend)
        .src_color_blend_factor(vk::BlendFactor::ONE)
        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD);
    vec![attachment; state.color_formats.len()]
}

/// A shader stage naming `entry`, with `specialization` when there is one.
fn shader_stage<'a>(
    stage: vk::ShaderStageFlags,
    entry: &'a std::ffi::CStr,
    specialization: Option<&'a vk::SpecializationInfo<'a>>,
) -> vk::PipelineShaderStageCreateInfo<'a> {
    let info = vk::PipelineShaderStageCreateInfo::default().stage(stage).name(entry);
    match specialization {
        Some(specialization) => info.specialization_info(specialization),
        None => info,
    }
}

fn entry_name(reflection: &Reflection) -> std::ffi::CString {
    std::ffi::CString::new(reflection.entry_point.as_str()).unwrap_or_else(|_| c"main".to_owned())
}

/// Links four libraries into a pipeline, optimized or fast.
fn link(
    device: &ash::Device,
    cache: vk::PipelineCache,
    libraries: &[vk::Pipeline; 4],
    layout: vk::PipelineLayout,
    optimize: bool,
) -> Result<vk::Pipeline, VulkanError> {
    let mut library_info = vk::PipelineLibraryCreateInfoKHR::default().libraries(libraries);
    let flags =
        if optimize { vk::PipelineCreateFlags::LINK_TIME_OPTIMIZATION_EXT } else { vk::PipelineCreateFlags::empty() };
    let info = vk::GraphicsPipelineCreateInfo::default().flags(flags).layout(layout).push_next(&mut library_info);
    // SAFETY: `info` and the library handles live across the call.
    let result = unsafe { device.create_graphics_pipelines(cache, std::slice::from_ref(&info), None) };
    check("vkCreateGraphicsPipelines (link)", result.map(|p| p[0]).map_err(|(_, e)| e))
}

impl Drop for PipelineManager {
    fn drop(&mut self) {
        // Stop the workers: they finish the links already queued, then see
        // the channel closed.
        self.sender = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        // SAFETY: the workers are gone, and the caller keeps the device alive
        // and done with these pipelines (the contract of `new`).
        unsafe {
            for (_, slot) in self.pipelines.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
                let optimized = slot.optimized.load(Ordering::Acquire);
                if optimized != 0 && optimized != slot.fast.as_raw() {
                    self.device.destroy_pipeline(vk::Pipeline::from_raw(optimized), None);
                }
                self.device.destroy_pipeline(slot.fast, None);
            }
            for (_, library) in self.libraries.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
                self.device.destroy_pipeline(library, None);
            }
        }
    }
}
