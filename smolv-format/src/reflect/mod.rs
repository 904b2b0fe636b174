//! What a shader module needs from the pipeline: [`Reflection`] (stage, bindings, constants, inputs and
//! outputs; stored in containers as [`Reflection::to_bytes`]) and [`Interface`] (block layouts, for tools).
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
