//! What a shader module needs from the pipeline around it (`smolv-format`'s types), read by
//! [`Reflection::from_spirv`] and stored next to each shader in containers and bundles:
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
