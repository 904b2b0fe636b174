//! What a shader module needs from the pipeline around it: stage, entry
//! point, descriptor bindings, push constants, specialization constants and
//! its vertex inputs and fragment outputs.
//!
//! The types live in the `smolv-format` crate, which smolv-build and the
//! macros share; this module is the same module under smolv-runtime's name.
//!
//! [`Reflection::from_spirv`] reads it from a module. Shader containers and
//! bundles (files) store it next to each shader, so it is available without
//! decoding anything; embedded shaders read it from their SPIR-V when
//! asked, so that binaries which never ask carry neither the bytes nor the
//! code:
//!
//! ```
//! use smolv_runtime::reflect::{DescriptorKind, Reflection, ShaderStage};
//!
//! let info = Reflection::new(ShaderStage::Fragment, "main");
//! let bytes = info.to_bytes()?;
//! assert_eq!(Reflection::from_bytes(&bytes)?, info);
//! assert_eq!(DescriptorKind::UniformBuffer.vk_descriptor_type(), 6);
//! # Ok::<(), smolv_runtime::reflect::ReflectionError>(())
//! ```

pub use smolv_format::reflect::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ReflectionError, ShaderStage,
    SpecConstant, SpecConstantType,
};
