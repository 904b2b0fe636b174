//! Reflection of the SPIR-V that ships, with smolv-runtime's reader: the
//! build and embedded shaders (which reflect their decoded SPIR-V at run
//! time) must agree, so both run the same code.

use std::collections::BTreeSet;

use smolv_format::reflect::Interface;
use smolv_runtime::reflect::{Reflection, ShaderStage};

/// Reflects a module. `stage` and `entry_point` stand in when the module
/// has no `OpEntryPoint` of a known stage (a frontend's module always has
/// one; arbitrary SPIR-V given to `write_bundle` may not).
pub(crate) fn reflect(spirv: &[u32], stage: ShaderStage, entry_point: &str) -> Reflection {
    Reflection::from_spirv(spirv).unwrap_or_else(|_| Reflection::new(stage, entry_point))
}

/// The typed interface of a module, read before stripping so that it has
/// the shader's names. `None` where the module's blocks hold something no
/// layout describes: generated types then skip the module, and the rest of
/// the build goes on.
pub(crate) fn interface(spirv: &[u32]) -> Option<Interface> {
    Interface::from_spirv(spirv).ok()
}

/// Every name the reflection took from an `OpName`: stripping debug info
/// keeps these (`EncodeOptions::keep_names`), so that reflecting the
/// stripped module gives the same result.
pub(crate) fn names_read(reflection: &Reflection) -> BTreeSet<String> {
    let bindings = reflection.bindings.iter().map(|b| &b.name);
    let spec_constants = reflection.spec_constants.iter().map(|s| &s.name);
    let interface = reflection.inputs.iter().chain(&reflection.outputs).map(|v| &v.name);
    bindings.chain(spec_constants).chain(interface).filter(|name| !name.is_empty()).cloned().collect()
}
