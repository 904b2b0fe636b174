//! Reflection of the SPIR-V that ships, with smolv-format's reader (what embedded shaders run).

use std::collections::BTreeSet;

use rayon::prelude::*;
use smolv_format::reflect::Interface;
use smolv_format::reflect::{Reflection, ShaderStage};

use crate::compile::all::Built;
use crate::pack::encode::Strip;
use crate::settings::Settings;

/// What the pack stage knows of a module's interface.
pub(crate) struct Reflected {
    /// The build's reflection, before stripping: the manifest's.
    pub(crate) reflection: Reflection,
    /// What the container stores beside the module (see [`as_shipped`]).
    pub(crate) in_container: Reflection,
    /// The typed interface (see [`interface`]).
    pub(crate) interface: Option<Interface>,
}

pub(crate) fn reflect_all(modules: &[Built<'_>], settings: &Settings) -> Vec<Reflected> {
    modules
        .par_iter()
        .map(|Built { module, .. }| {
            let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
            let reflection = reflect(shipped, module.stage, &module.entry_point);
            let in_container = as_shipped(&reflection, !matches!(Strip::of(settings, &reflection), Strip::All));
            Reflected { in_container, interface: interface(&module.spirv, shipped), reflection }
        })
        .collect()
}

/// Reflects a module; `stage` and `entry_point` stand in where it has no `OpEntryPoint` of a known stage.
pub(crate) fn reflect(spirv: &[u32], stage: ShaderStage, entry_point: &str) -> Reflection {
    Reflection::from_spirv(spirv).unwrap_or_else(|_| Reflection::new(stage, entry_point))
}

/// Types from the `compiled` SPIR-V (every member named), capabilities and extensions from the `shipped` one;
/// `None` where no layout describes its blocks.
pub(crate) fn interface(compiled: &[u32], shipped: &[u32]) -> Option<Interface> {
    let mut interface = Interface::from_spirv(compiled).ok()?;
    if let Ok(shipped) = Interface::from_spirv(shipped) {
        interface.capabilities = shipped.capabilities;
        interface.extensions = shipped.extensions;
    }
    Some(interface)
}

/// Every name the reflection took from an `OpName`: what `Config::keep_interface_names` keeps.
pub(crate) fn names_read(reflection: &Reflection) -> BTreeSet<String> {
    let bindings = reflection.bindings.iter().map(|b| &b.name);
    let spec_constants = reflection.spec_constants.iter().map(|s| &s.name);
    let interface = reflection.inputs.iter().chain(&reflection.outputs).map(|v| &v.name);
    bindings.chain(spec_constants).chain(interface).filter(|name| !name.is_empty()).cloned().collect()
}

/// The reflection a container stores beside its module: the build's, less names the module ships without.
pub(crate) fn as_shipped(reflection: &Reflection, keeps_names: bool) -> Reflection {
    let mut shipped = reflection.clone();
    if !keeps_names {
        shipped.bindings.iter_mut().for_each(|b| b.name.clear());
        shipped.spec_constants.iter_mut().for_each(|s| s.name.clear());
        shipped.inputs.iter_mut().chain(&mut shipped.outputs).for_each(|v| v.name.clear());
    }
    shipped
}
