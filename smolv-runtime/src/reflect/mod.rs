//! What a shader module needs from the pipeline around it: stage, entry
//! point, descriptor bindings, push constants, specialization constants and
//! its vertex inputs and fragment outputs.
//!
//! `smolv-build` reads this from the final SPIR-V at build time and stores
//! it next to each shader, so it is available without decoding anything:
//!
//! ```
//! use smolv_runtime::reflect::{DescriptorKind, Reflection, ShaderStage};
//!
//! let info = Reflection::new(ShaderStage::Fragment, "main");
//! let bytes = info.to_bytes();
//! assert_eq!(Reflection::from_bytes(&bytes)?, info);
//! assert_eq!(DescriptorKind::UniformBuffer.vk_descriptor_type(), 6);
//! # Ok::<(), smolv_runtime::reflect::ReflectionError>(())
//! ```

mod binary;
mod types;

pub use binary::ReflectionError;
pub use types::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ShaderStage, SpecConstant,
    SpecConstantType,
};
