//! What a shader module needs from the pipeline around it: stage, entry
//! point, bindings, push constants, spec constants, inputs and outputs.
//!
//! [`Reflection::from_spirv`] reads it; containers store it in its compact
//! binary form ([`Reflection::to_bytes`]). [`Interface`] is the typed
//! interface tools need: block layouts, workgroup size, capabilities.
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
mod capability;
mod interface;
mod layout;
mod spirv;
mod stage_io;
mod types;

pub use binary::ReflectionError;
pub use interface::{
    ArrayLength, Block, BlockKind, Capability, Interface, Member, ScalarKind, ScalarType, SourceLine, SpecConstantDef,
    Type, TypeDef, VertexInput, WorkgroupSize,
};
pub use stage_io::{StageInterface, StageMismatch, StageVariable};
pub use types::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ShaderStage, SpecConstant,
    SpecConstantType,
};
