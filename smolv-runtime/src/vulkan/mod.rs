//! The Vulkan layer, on ash: pipeline plumbing fed by shader reflection.
//!
//! - [`PipelineManager`]: graphics pipelines the way Mesa's zink and DXVK
//!   build them with VK_EXT_graphics_pipeline_library: the four parts
//!   (vertex input, pre-rasterization shaders, fragment shader, fragment
//!   output) each a library cached by exactly the state that part owns
//!   (shader code, reflection and spec-constant values compared in full,
//!   never by hash), so materials share what they have in common; a fast
//!   link returned at once, the link-time-optimized pipeline linked on a
//!   worker thread and swapped in atomically ([`PipelineSlot::current`]),
//!   and monolithic pipelines through the same API where libraries are
//!   unavailable or `SMOLV_FORCE_MONOLITHIC=1`. [`GraphicsState`] covers
//!   what Vulkan 1.3 with dynamic rendering offers (culling, winding,
//!   polygon mode, depth bias and bounds, MSAA with sample shading and
//!   alpha-to-coverage, per-attachment blending and write masks, stencil,
//!   dynamic state, vertex input from reflection or explicit), and
//!   [`GraphicsProgram`] adds tessellation and geometry stages; state that
//!   needs a device feature is refused unless [`DeviceFeatures`] says it
//!   is enabled. Compute pipelines go through the same manager
//!   ([`PipelineManager::get_compute`], or
//!   [`PipelineManager::request_compute`] on the worker). Spec constants
//!   go to the driver, or are folded into the SPIR-V first
//!   ([`PipelineOptions::specialize_ahead`](PipelineOptions#structfield.specialize_ahead)).
//! - [`LayoutCache`]: descriptor-set and pipeline layouts built from
//!   [`Reflection`](crate::reflect::Reflection), deduplicated, with
//!   stage-independent layouts for graphics pipeline libraries and an
//!   optional bindless set at a fixed index;
//! - [`PipelineCacheFile`]: a `VkPipelineCache` persisted to a file, loaded
//!   only when the file is whole (its own length and BLAKE3 hash) and the
//!   driver data matches the device.
//!
//! The device needs Vulkan 1.3 dynamic rendering. The manager builds
//! pipelines from libraries only where [`PipelineOptions::features`](PipelineOptions#structfield.features)
//! says the device enabled `VK_KHR_pipeline_library` and
//! `VK_EXT_graphics_pipeline_library` with the `graphicsPipelineLibrary`
//! feature, and monolithic pipelines otherwise, so the default options are
//! valid on any device; libraries asked for where they are missing are
//! [`VulkanError::FeatureNotEnabled`].
//! [`DeviceRequirements::for_physical_device`] gives the extensions, the
//! feature chain for `VkDeviceCreateInfo` and the matching options in one
//! call. [`ash`] is re-exported, so the `vk` types always match.
//!
//! Every type owns its handles and destroys them on drop; the raw handles
//! stay reachable so they mix with the application's own ash code.
//!
//! As in ash, what the caller must uphold is in the signatures: the
//! constructors are `unsafe` (the device outlives the object and is done
//! with its handles when it is dropped), and so are the calls that hand
//! SPIR-V and fixed-function state to the driver
//! ([`PipelineManager::get_pipeline`], [`PipelineManager::preload_fragment`]),
//! for which Vulkan defines no behaviour on invalid input. What the layer
//! can check, it checks and refuses with a [`VulkanError`] or
//! [`CacheLoad::Ignored`]: layouts from reflection against the device's
//! limits, spec-constant values against their types, cache files against
//! their length and hash.
//!
//! ## Quick start
//!
//! From `include_shader!` to a drawn pipeline: the device and the
//! [`PipelineManager`] with [`DeviceRequirements`], stages from embedded
//! shaders ([`EmbeddedStage`]), the typed uniform and push constants from
//! `include_types!`, the typed descriptor set of the program `triangle`
//! (the two shaders share that base name; [`descriptors`]), and one draw.
//! The program's push-constant range carries the flags of both stages, as
//! `vkCmdPushConstants` needs them ([`PipelineSlot::cmd_push_constants`]).
//! Viewport and scissor are always dynamic: every pipeline the manager
//! builds leaves them to the command buffer, so set them before each draw
//! ([`cmd_set_viewport_and_scissor`]). The shaders, the build script
//! and the manifest are in the crate's README, and `tests/tests/readme.rs`
//! builds and runs this exact code on lavapipe under the validation layer.
//!
//! ```ignore
//! // src/quick_start.rs: a device, the manager, a typed uniform and push constants, one draw.
//! use smolv_runtime::vulkan::ash::{self, vk};
//! use smolv_runtime::vulkan::{DeviceRequirements, EmbeddedStage, GraphicsState, PipelineManager, cmd_set_viewport_and_scissor, descriptors};
//! type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
//!
//! static VERTEX: &smolv_runtime::Shader = smolv_runtime::include_shader!("triangle.vert");
//! static FRAGMENT: &smolv_runtime::Shader = smolv_runtime::include_shader!("triangle.frag");
//! mod shaders { smolv_runtime::include_types!(); }
//! use shaders::triangle; // the program: triangle.vert and triangle.frag
//!
//! /// Dynamic rendering, and graphics pipeline libraries where the driver has them.
//! pub unsafe fn device(instance: &ash::Instance, gpu: vk::PhysicalDevice, queues: &[vk::DeviceQueueCreateInfo]) -> Result<(ash::Device, PipelineManager)> {
//!     let requirements = unsafe { DeviceRequirements::for_physical_device(instance, gpu)? };
//!     let device = unsafe { requirements.create_device(instance, gpu, &vk::DeviceCreateInfo::default().queue_create_infos(queues))? };
//!     // SAFETY: the device has what `requirements` asks; the caller drops the manager first, once idle.
//!     Ok((device.clone(), unsafe { requirements.create_manager(instance, gpu, device) }))
//! }
//!
//! /// Records the draw into `cmd`, inside dynamic rendering to an RGBA8 target of `extent`.
//! /// Returns the descriptor pool, for the caller to destroy once the device is idle.
//! pub unsafe fn draw(device: &ash::Device, manager: &PipelineManager, cmd: vk::CommandBuffer, extent: vk::Extent2D, uniform: (vk::Buffer, &mut [u8])) -> Result<vk::DescriptorPool> {
//!     let (vertex, fragment) = (EmbeddedStage::from_shader(VERTEX)?, EmbeddedStage::from_shader(FRAGMENT)?);
//!     let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
//!     // SAFETY: smolv compiled and reflected the shaders; the device renders to RGBA8.
//!     let slot = unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), &state)? };
//!     uniform.1[..shaders::Tint::SIZE].copy_from_slice(shaders::Tint::new([0.125, 0.25, 0.375, 1.0]).as_bytes());
//!     // SAFETY: `uniform.0` is a live uniform buffer of `device`; the caller destroys the pool.
//!     let pool = unsafe { triangle::Set0::create_pool(device, 1)? };
//!     let set = unsafe { triangle::Set0 { tint: descriptors::whole_buffer(uniform.0) }.allocate(device, pool, slot.program_layout())? };
//!     unsafe {
//!         device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, slot.current()); // the optimized link once ready
//!         device.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, slot.layout(), triangle::Set0::SET, &[set], &[]);
//!         slot.cmd_push_constants(device, cmd, shaders::Push::new(1.0, 2.0).as_bytes())?; // scale, brightness: both stages' flags
//!         cmd_set_viewport_and_scissor(device, cmd, extent); // always dynamic
//!         device.cmd_draw(cmd, 3, 1, 0, 0);
//!     }
//!     Ok(pool)
//! }
//! ```
//!
//! ## Set mapping
//!
//! Sets keep the numbers the shaders declare (`layout(set = N)`). A
//! program's pipeline layout has one set layout per set number up to the
//! highest used, the union over its stages (stage flags merged); numbers no
//! stage uses get an empty set layout. For separable programs (graphics
//! pipeline libraries) each stage also gets its own pipeline layout, created
//! with `VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT`, in which the
//! sets only other stages use are `VK_NULL_HANDLE`, as Mesa's zink does; the
//! conventional split is set 0 for the vertex stage and set 1 for the
//! fragment stage. The optional bindless set sits at a fixed index
//! (default 3) in every layout.

#![allow(unsafe_code)]

mod cache;
pub mod capabilities;
mod compute;
mod descriptions;
pub mod descriptors;
mod device_features;
mod dynamic;
mod layout;
mod library;
mod modules;
mod pipelines;
mod rebuilds;
mod requirements;
mod specialization;
mod spirv_version;
mod state;
mod vertex_input;
pub mod warmup;

/// `vk_range()` of the generated `PushConstantRange`s, here beside the rest
/// of the Vulkan layer (defined in [`crate::interface`]).
pub use crate::interface::VkPushConstantRange;
/// The plain data generated code writes, here for the Vulkan layer's
/// users under their old paths.
pub use crate::interface::{VertexAttribute, VertexBufferLayout};
pub use crate::pipeline_cache_file::{CacheLoad, CacheRejected};
pub use cache::PipelineCacheFile;
pub use compute::ComputeSlot;
pub use device_features::DeviceFeatures;
pub use dynamic::cmd_set_viewport_and_scissor;
pub use layout::{BindlessSet, LayoutCache, LayoutOptions, ProgramLayout};
pub use pipelines::{
    EmbeddedStage, FallbackReason, GraphicsProgram, LibraryCounts, PipelineManager, PipelineOptions, PipelineSlot,
    SpecializationCounts, Stage,
};
pub use requirements::DeviceRequirements;
pub use state::{
    AttachmentBlend, BlendEquation, DepthBias, DepthTest, GraphicsState, Multisample, StencilFace, StencilState,
    VertexInput,
};

/// The ash this layer is built on (0.38), re-exported: use it rather than
/// a version of your own, so that `vk` types and `ash::Device` match the
/// layer's, with no version to keep in step in your `Cargo.toml`.
///
/// ```
/// use smolv_runtime::vulkan::ash::vk;
/// let _: smolv_runtime::vulkan::PipelineOptions = smolv_runtime::vulkan::PipelineOptions::new().api_version(vk::API_VERSION_1_3);
/// ```
pub use ash;

use ash::vk;

/// Why a Vulkan-layer operation failed.
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
/// use smolv_runtime::vulkan::{LayoutCache, LayoutOptions, VulkanError};
/// # let vertex = Reflection::from_spirv(vertex_spirv)?;
/// // SAFETY: as in `LayoutCache::new`.
/// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
/// if let Err(error) = layouts.program(&[&vertex], &LayoutOptions::default()) {
///     eprintln!("{error}"); // names the set, binding or limit, and what to change
///     if let VulkanError::Call { result, .. } = error {
///         assert_ne!(result, vk::Result::SUCCESS);
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VulkanError {
    /// A Vulkan call returned an error.
    #[error("{call} failed: {result}")]
    Call {
        /// The Vulkan function.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// Two stages declare the same binding differently.
    #[error(
        "set {set} binding {binding} is {first} in one stage and {second} in another; \
         make the shaders agree on the binding's type and count"
    )]
    BindingConflict {
        /// The set.
        set: u32,
        /// The binding.
        binding: u32,
        /// One declaration.
        first: String,
        /// The other.
        second: String,
    },
    /// A shader uses the set reserved for bindless resources.
    #[error(
        "a shader declares set {0}, which LayoutOptions reserves for the bindless set; move it or the bindless set"
    )]
    BindlessSetTaken(u32),
    /// A set number the device cannot bind.
    #[error(
        "set {set} is out of range: the device binds at most {max_bound_descriptor_sets} sets \
         (maxBoundDescriptorSets); use lower set numbers"
    )]
    SetOutOfRange {
        /// The set number, from a reflection or the bindless set.
        set: u32,
        /// The device's limit.
        max_bound_descriptor_sets: u32,
    },
    /// More descriptors than the device allows.
    #[error(
        "the program has {count} {what} in {scope}, more than the device's limit of {limit}; \
         use fewer or smaller descriptor arrays"
    )]
    DescriptorLimit {
        /// The kind of descriptor, as the limit counts them.
        what: &'static str,
        /// Where the limit applies: one shader stage or a pipeline layout.
        scope: &'static str,
        /// How many the program has there.
        count: u64,
        /// The device's limit.
        limit: u32,
    },
    /// A descriptor set allocated for a set number the program's layout
    /// does not have: the layout of another program.
    #[error(
        "the layout has {sets} set layouts and no set {set}; allocate the set with the layout of the program \
         whose types it comes from"
    )]
    SetNotInLayout {
        /// The set number asked for.
        set: u32,
        /// How many set layouts the layout has.
        sets: usize,
    },
    /// Push constants that end past the device's limit.
    #[error(
        "push constants end at byte {end}, past the device's maxPushConstantsSize of \
         {max_push_constants_size}; make the push-constant blocks smaller"
    )]
    PushConstantsOutOfRange {
        /// Where the last range ends.
        end: u64,
        /// The device's limit.
        max_push_constants_size: u32,
    },
    /// A push-constant block shorter than the program's range: see
    /// [`PipelineSlot::cmd_push_constants`].
    #[error(
        "the push-constant block is {len} bytes, but the program's push constants end at byte {end}; \
         pass the whole block, from its offset 0 (the generated type's `as_bytes()`)"
    )]
    PushConstantsTooShort {
        /// The block's length in bytes.
        len: usize,
        /// Where the program's push-constant range ends.
        end: u64,
    },
    /// A specialization value that does not fit its constant's type.
    #[error(
        "specialization constant {id} is {ty} in the shader, which cannot hold {value:?}; \
         pass a value of that type (Value::Bits with the raw bits for 64-bit and 16-bit types)"
    )]
    SpecConstantValue {
        /// The constant id.
        id: u32,
        /// The constant's type, in words.
        ty: String,
        /// The value given.
        value: smolv_codec::specialize::Value,
    },
    /// Values that make the module invalid once the specializer folds
    /// them ([`PipelineOptions::specialize_ahead`](PipelineOptions#structfield.specialize_ahead)):
    /// an array length below 1. Refused before the driver sees it.
    #[error("specializing ahead (PipelineOptions::specialize_ahead): {0}")]
    Specialize(smolv_codec::specialize::SpecializeError),
    /// The same specialization constant was given twice.
    #[error("specialization constant {0} is given more than once; give each id one value")]
    DuplicateSpecConstant(u32),
    /// More specialization data than `VkSpecializationInfo` can address.
    #[error("{0} specialization constants are more than a VkSpecializationInfo can hold")]
    TooManySpecConstants(usize),
    /// State, a stage, or a shader capability that needs a device feature
    /// (or extension, Vulkan version or subgroup operation) the manager
    /// was not told is enabled: refused before anything reaches the driver.
    #[error(
        "{}{state} needs {structure}::{feature}; enable it on the device (where it has it) and in \
         PipelineOptions::features (DeviceFeatures), or leave it out{}{}",
        shader.as_ref().map(|s| format!("the {s} declares ")).unwrap_or_default(),
        if shader.is_some() { " of the shader" } else { "" },
        if *state == pipelines::LIBRARIES_ASKED {
            "; DeviceRequirements::for_physical_device gives the extensions, the feature chain and the \
             matching options in one call, and leaving graphics_pipeline_library unset builds monolithic \
             pipelines where the device lacks libraries"
        } else {
            ""
        }
    )]
    FeatureNotEnabled {
        /// The feature's member name (`shaderFloat64`), or the extension's
        /// or Vulkan version's name: the first of the alternatives.
        feature: &'static str,
        /// Where it is enabled: the feature structure
        /// (`VkPhysicalDeviceFeatures`), or `VkDeviceCreateInfo::ppEnabledExtensionNames`.
        structure: &'static str,
        /// What needs it: a state field or stage (`GraphicsState::depth_bounds`),
        /// or the shader's declaration (`OpCapability Float64`).
        state: &'static str,
        /// The shader that declares it (stage and entry point), for capabilities.
        shader: Option<String>,
    },
    /// A physical device that lacks what the manager needs, found by
    /// [`DeviceRequirements::for_physical_device`].
    #[error("{device} has {has}, and PipelineManager needs {needs}; pick another physical device or update its driver")]
    DeviceUnsupported {
        /// The physical device's name.
        device: String,
        /// What the manager needs: a Vulkan version or a feature.
        needs: &'static str,
        /// What the device has instead, in words.
        has: String,
    },
    /// A shader given for the wrong stage.
    #[error("a {found} shader was given where the program needs its {expected} stage; check which module goes where")]
    WrongStage {
        /// The stage the program needs there.
        expected: String,
        /// The stage the shader's reflection names.
        found: &'static str,
    },
    /// Blend states that do not match the colour attachments.
    #[error(
        "GraphicsState::blend has {blends} entries for {attachments} colour attachments; \
         give none, one for all, or one per attachment"
    )]
    BlendCount {
        /// Entries in `blend`.
        blends: usize,
        /// Colour attachments.
        attachments: usize,
    },
    /// A dynamic state the manager cannot place in a library.
    #[error("dynamic state {0:?} is not a Vulkan 1.3 core dynamic state the manager supports; set it statically")]
    DynamicStateUnsupported(vk::DynamicState),
    /// Tessellation stages without patches.
    #[error("tessellation stages need topology PATCH_LIST and patch_control_points above 0 in the GraphicsState")]
    PatchTopology,
    /// A vertex input whose reflected format has no vertex format.
    #[error(
        "vertex input at location {location} has format {format}, which VertexInput::FromReflection cannot lay out; \
         describe the vertex buffers with VertexInput::Explicit"
    )]
    VertexInputFormat {
        /// The input's location.
        location: u32,
        /// Its reflected `VkFormat` value (0: none).
        format: u32,
    },
    /// Explicit vertex input that does not feed the vertex shader's inputs
    /// as Vulkan requires: refused before the driver sees it.
    #[error(
        "vertex input at location {location} does not fit the vertex shader: {reason}; \
         make VertexInput::Explicit (or the VertexBufferLayout) match the shader's inputs"
    )]
    VertexInputMismatch {
        /// The input's location.
        location: u32,
        /// What does not fit, in words.
        reason: String,
    },
    /// A module whose SPIR-V version is newer than the Vulkan version the
    /// device was created for takes ([`PipelineOptions::api_version`](PipelineOptions#structfield.api_version)):
    /// refused before the driver sees it.
    #[error(
        "{stage} shader `{entry_point}`: SPIR-V {}.{} needs {}; the device was created for Vulkan {}.{} \
         (PipelineOptions::api_version): raise the instance's apiVersion (and PipelineOptions::api_version), \
         or build the shaders for a lower SPIR-V version (smolv_build::Config::target_env)",
        spirv.0, spirv.1, spirv_version::vulkan_needed(*spirv), vulkan.0, vulkan.1
    )]
    SpirvVersionUnsupported {
        /// The shader's stage.
        stage: &'static str,
        /// Its entry point.
        entry_point: String,
        /// The module's SPIR-V version, as (major, minor).
        spirv: (u32, u32),
        /// The device's Vulkan version, as (major, minor).
        vulkan: (u32, u32),
    },
    /// A shader changed in a way its running pipeline cannot take (see
    /// [`PipelineManager::rebuild`]): the old pipeline stays.
    #[error(
        "the changed {stage} shader no longer fits its running pipeline: {reason}; \
         kept the previous pipeline (undo the change, or restart to pick it up)"
    )]
    RebuildIncompatible {
        /// The stage whose shader changed.
        stage: &'static str,
        /// What changed.
        reason: String,
    },
    /// The pipeline cache file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl VulkanError {
    /// The Vulkan result this error stands for (`ERROR_UNKNOWN` for
    /// errors found before calling Vulkan).
    pub(crate) fn result(&self) -> vk::Result {
        match self {
            Self::Call { result, .. } => *result,
            _ => vk::Result::ERROR_UNKNOWN,
        }
    }
}

pub(crate) fn check<T>(call: &'static str, result: Result<T, vk::Result>) -> Result<T, VulkanError> {
    result.map_err(|result| VulkanError::Call { call, result })
}

/// Locks a cache. A panic in another thread cannot leave these maps
/// half-updated (each update is one insert), so a poisoned lock is used as is.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
