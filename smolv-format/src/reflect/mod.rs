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
//! [`Interface`] is the typed interface tools need: the memory layout of
//! every block (offsets, strides, matrix order), the workgroup size and its
//! spec constants, and the capabilities and extensions the module declares.
//! smolv-build writes it to the manifest, from the SPIR-V before stripping,
//! for generated Rust types and hot reload; programs that never ask for it
//! link none of it.
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
