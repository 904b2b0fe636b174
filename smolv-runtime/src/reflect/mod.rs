//! What a shader module needs from the pipeline around it (`smolv-format`'s types): stage, entry point,
//! bindings, push and specialization constants, vertex inputs and fragment outputs.
//! [`Reflection::from_spirv`] reads it from a module; containers and bundles store it next to each shader:
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
