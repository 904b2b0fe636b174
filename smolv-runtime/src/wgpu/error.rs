//! The wgpu layer's error: [`WgpuError`].

use crate::shader_error::ShaderError;

/// Why the wgpu layer could not make a module, layout, overrides or pipeline cache.
///
/// ```
/// use smolv_runtime::wgpu::{Overrides, WgpuError};
/// use smolv_runtime::reflect::{Reflection, ShaderStage};
///
/// let reflection = Reflection::new(ShaderStage::Compute, "main"); // no spec constants
/// let error = Overrides::new(&reflection).set(7, 1.0f32).unwrap_err();
/// assert!(matches!(error, WgpuError::UnknownOverride { .. }));
/// println!("{error}"); // names the constants the shader has
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WgpuError {
    /// The shader could not be decoded or reflected.
    #[error(transparent)]
    Shader(#[from] ShaderError),
    /// The shader was shipped as SPIR-V, which this build cannot hand to wgpu.
    #[error(
        "{shader} was shipped as SPIR-V, and wgpu takes SPIR-V only with smolv-runtime's `wgpu-spirv` feature \
         (naga's SPIR-V front end); enable it, or let smolv-build ship WGSL for wgpu targets"
    )]
    NeedsSpirvInput {
        /// The shader's name.
        shader: String,
    },
    /// The passthrough path was asked for where wgpu cannot take it.
    #[error("{shader}: SPIR-V passthrough {reason}")]
    Passthrough {
        /// The shader's name.
        shader: String,
        /// What is missing.
        reason: &'static str,
    },
    /// A binding wgpu has no binding type for.
    #[error("{shader}: set {set}, binding {binding} (`{name}`) {reason}")]
    UnsupportedBinding {
        /// The shader's name.
        shader: String,
        /// The descriptor set (wgpu's bind group index).
        set: u32,
        /// The binding number.
        binding: u32,
        /// The binding's name in the shader; empty if stripped.
        name: String,
        /// Why, and what to do.
        reason: String,
    },
    /// Two shaders of one program declare the same binding differently.
    #[error(
        "set {set}, binding {binding} is {first:?} in one shader and {second:?} in {shader}; \
         make the declarations agree, or give the binding's type with LayoutOptions::binding_type"
    )]
    ConflictingBinding {
        /// The shader whose declaration disagrees with an earlier one.
        shader: String,
        /// The descriptor set.
        set: u32,
        /// The binding number.
        binding: u32,
        /// The earlier declaration.
        first: Box<wgpu::BindingType>,
        /// This shader's declaration.
        second: Box<wgpu::BindingType>,
    },
    /// The shaders read push constants and the device has no immediates.
    #[error(
        "the shaders read {size} bytes of push constants, and the device was created without \
         wgpu::Features::IMMEDIATES; request that feature (and a large enough Limits::max_immediate_size)"
    )]
    NeedsImmediates {
        /// The bytes the shaders read.
        size: u32,
    },
    /// A vertex attribute format wgpu has no vertex format for.
    #[error("vertex attribute at location {location} has VkFormat {format}, which wgpu has no VertexFormat for")]
    VertexFormat {
        /// The attribute's location.
        location: u32,
        /// The `VkFormat` value.
        format: u32,
    },
    /// An override (spec constant) the shader does not declare.
    #[error("the shader has no spec constant {wanted}; its spec constants are {known}")]
    UnknownOverride {
        /// The id or name asked for.
        wanted: String,
        /// The ids and names it has.
        known: String,
    },
    /// A spec constant whose type WGSL overrides cannot hold.
    #[error(
        "spec constant {id} (`{name}`) is {ty}, and wgpu's overrides are bool, i32, u32, f32 or f16; \
         use a 32-bit constant, or fold it into the SPIR-V with smolv_runtime::specialize"
    )]
    OverrideType {
        /// The spec id.
        id: u32,
        /// Its name; empty if stripped.
        name: String,
        /// Its type.
        ty: &'static str,
    },
    /// The SPIR-V is malformed where the layout code reads it.
    #[error("{shader}: malformed SPIR-V at word {offset}: {reason}")]
    Malformed {
        /// The shader's name.
        shader: String,
        /// The word offset.
        offset: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A program layout was asked for a group index none of its shaders uses.
    #[error(
        "bind group {group} is not in this program layout ({groups} group indices); make the layout from \
         the shaders that declare the group (BindGroupLayouts::new), or bind the group with the pipeline it belongs to"
    )]
    NoBindGroup {
        /// The group index asked for.
        group: u32,
        /// The number of group indices the layout has.
        groups: usize,
    },
    /// wgpu refused to make the shader module.
    #[error("wgpu could not make a shader module of {shader}: {message}")]
    Module {
        /// The shader's name.
        shader: String,
        /// wgpu's error, as it printed it.
        message: String,
    },
    /// The device cannot hold a pipeline cache.
    #[error(
        "the device was created without wgpu::Features::PIPELINE_CACHE, which wgpu offers on its Vulkan backend \
         only (this device is on {backend}); request the feature where adapter.features() has it, or build \
         pipelines with `cache: None`"
    )]
    NeedsPipelineCache {
        /// The device's backend, as wgpu names it.
        backend: &'static str,
    },
    /// wgpu could not make even an empty pipeline cache.
    #[error("wgpu could not make a pipeline cache: {message}")]
    PipelineCache {
        /// wgpu's error and its causes, on one line.
        message: String,
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

impl WgpuError {
    /// [`Self::UnsupportedBinding`]: `shader`'s binding `name` at `set`, `binding`.
    pub(crate) fn unsupported(shader: &str, set: u32, binding: u32, name: &str, reason: impl Into<String>) -> Self {
        let (shader, name, reason) = (shader.to_owned(), name.to_owned(), reason.into());
        Self::UnsupportedBinding { shader, set, binding, name, reason }
    }
}
