//! What a shader module needs from the pipeline around it: stage, entry
//! point, descriptor bindings, push constants, specialization constants and
//! its vertex inputs and fragment outputs.
//!
//! [`Reflection::from_spirv`] reads it from a module. Shader containers and
//! bundles (files) store it next to each shader in its compact binary form
//! ([`Reflection::to_bytes`], `docs/format.md`), so it is available without
//! decoding anything; embedded shaders read it from their SPIR-V when
//! asked, so that binaries which never ask carry neither the bytes nor the
//! code. smolv-runtime re-exports this module as `smolv_runtime::reflect`.
//!
//! ```
//! use smolv_format::reflect::{DescriptorKind, Reflection, ShaderStage};
//!
//! let info = Reflection::new(ShaderStage::Fragment, "main");
//! let bytes = info.to_bytes()?;
//! assert_eq!(Reflection::from_bytes(&bytes)?, info);
//! assert_eq!(DescriptorKind::UniformBuffer.vk_descriptor_type(), 6);
//! # Ok::<(), smolv_format::reflect::ReflectionError>(())
//! ```

mod binary;
mod spirv;
mod types;

pub use binary::ReflectionError;
pub use types::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ShaderStage, SpecConstant,
    SpecConstantType,
};
