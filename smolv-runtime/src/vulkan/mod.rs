//! The Vulkan layer, on ash: pipeline plumbing fed by shader reflection.
//!
//! - [`PipelineManager`]: graphics pipelines from the four parts of
//!   VK_EXT_graphics_pipeline_library (each part cached by the state it owns,
//!   a fast link at once, the optimized one later: [`PipelineSlot::current`]),
//!   monolithic without libraries or with `SMOLV_FORCE_MONOLITHIC=1`, and
//!   compute pipelines ([`PipelineManager::get_compute`]).
//! - [`LayoutCache`]: deduplicated descriptor-set and pipeline layouts from
//!   [`Reflection`](crate::reflect::Reflection).
//! - [`PipelineCacheFile`]: a `VkPipelineCache` persisted to a file.
//!
//! [`DeviceRequirements::for_physical_device`] gives the extensions, features
//! and matching [`PipelineOptions`]. Every type destroys its handles on drop;
//! as in ash, calls that hand SPIR-V or state to the driver are `unsafe`, and
//! what the layer can check it refuses with a [`VulkanError`].
//!
//! ## Quick start
//!
//! From `include_shader!` to a draw (the shaders and build script are in the README;
//! `tests/tests/readme.rs` runs it). Viewport and scissor are always dynamic
//! ([`cmd_set_viewport_and_scissor`]).
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
//! Sets keep the shaders' numbers, merged over a program's stages
//! ([`ProgramLayout`]); the bindless set sits at a fixed index ([`BindlessSet`]).

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

/// `vk_range()` of the generated `PushConstantRange`s.
pub use crate::interface::VkPushConstantRange;
/// The plain data generated code writes, under their old paths.
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

/// The ash (0.38) this layer is built on, so that the `vk` types match.
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
/// # use {ash::vk, smolv_runtime::reflect::Reflection};
/// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties, vertex: &Reflection, fragment: &Reflection) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{LayoutCache, LayoutOptions, VulkanError};
/// // SAFETY: as in `LayoutCache::new`.
/// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
/// if let Err(error) = layouts.program(&[vertex], &LayoutOptions::default()) {
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
    /// A set number the program's layout does not have.
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
    /// A push-constant block shorter than the program's range ([`PipelineSlot::cmd_push_constants`]).
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
    /// Values that fold an array length below 1 ([`PipelineOptions::specialize_ahead`](PipelineOptions#structfield.specialize_ahead)).
    #[error("specializing ahead (PipelineOptions::specialize_ahead): {0}")]
    Specialize(smolv_codec::specialize::SpecializeError),
    /// The same specialization constant was given twice.
    #[error("specialization constant {0} is given more than once; give each id one value")]
    DuplicateSpecConstant(u32),
    /// More specialization data than `VkSpecializationInfo` can address.
    #[error("{0} specialization constants are more than a VkSpecializationInfo can hold")]
    TooManySpecConstants(usize),
    /// State, a stage or a shader capability needing a feature (or extension, …) not enabled.
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
        /// The feature (`shaderFloat64`), extension or version: the first alternative.
        feature: &'static str,
        /// Where it is enabled (`VkPhysicalDeviceFeatures`, …).
        structure: &'static str,
        /// What needs it (`GraphicsState::depth_bounds`, `OpCapability Float64`).
        state: &'static str,
        /// The shader that declares it (stage and entry point), for capabilities.
        shader: Option<String>,
    },
    /// A physical device that lacks what the manager needs ([`DeviceRequirements::for_physical_device`]).
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
    /// Explicit vertex input that does not feed the vertex shader's inputs.
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
    /// A module newer than [`PipelineOptions::api_version`](PipelineOptions#structfield.api_version) takes.
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
    /// A changed shader its running pipeline cannot take ([`PipelineManager::rebuild`]).
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
    /// The Vulkan result this error stands for (`ERROR_UNKNOWN` before Vulkan).
    pub(crate) fn result(&self) -> vk::Result {
        if let Self::Call { result, .. } = self { *result } else { vk::Result::ERROR_UNKNOWN }
    }
}

pub(crate) fn check<T>(call: &'static str, result: Result<T, vk::Result>) -> Result<T, VulkanError> {
    result.map_err(|result| VulkanError::Call { call, result })
}

/// Locks a cache; a poisoned lock is used as is (each update is one insert).
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits on `changed` until `done` gives a value, for at most `timeout`.
pub(crate) fn wait_for<T, R>(
    changed: &std::sync::Condvar,
    mut guard: std::sync::MutexGuard<'_, T>,
    timeout: std::time::Duration,
    mut done: impl FnMut(&T) -> Option<R>,
) -> Option<R> {
    let deadline = std::time::Instant::now().checked_add(timeout);
    loop {
        if let Some(value) = done(&*guard) {
            return Some(value);
        }
        // A deadline past what `Instant` holds: wait as long as it takes.
        let left = deadline
            .map_or(std::time::Duration::from_secs(3600), |d| d.saturating_duration_since(std::time::Instant::now()));
        if left.is_zero() {
            return None;
        }
        guard = changed.wait_timeout(guard, left).unwrap_or_else(std::sync::PoisonError::into_inner).0;
    }
}
