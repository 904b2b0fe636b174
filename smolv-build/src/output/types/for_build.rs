//! The types of one build's modules, from what the compile and pack
//! stages made of them.

use smolv_format::reflect::Interface;

use crate::compile::all::Built;
use crate::options::Language;
use crate::output::report::TypesReport;
use crate::output::types::{generate_with, layout};
use crate::pack::artifacts::Artifacts;

/// The generated types of a build.
pub(crate) struct GeneratedTypes {
    pub(crate) code: String,
    pub(crate) problems: Vec<String>,
    /// Per module, in manifest order: each block's Rust type.
    pub(crate) block_types: Vec<Vec<String>>,
    pub(crate) report: TypesReport,
}

/// The Rust types of every module, from the SPIR-V as the front end wrote
/// it: before stripping, so release builds get the shader's names, and
/// before optimizing, since `spirv-opt -Os` drops the members a module
/// never reads, and the user fills every member the shader declares.
pub(crate) fn generate_types(
    modules: &[Built<'_>],
    artifacts: &Artifacts,
    wgpu_items: bool,
    programs: &[(String, Vec<String>)],
) -> GeneratedTypes {
    let started = std::time::Instant::now();
    let inputs: Vec<layout::ModuleInput> = modules
        .iter()
        .zip(&artifacts.manifest.modules)
        .map(|(built, module)| (built, module, Interface::from_spirv(&built.module.spirv).ok()))
        .map(|(built, module, interface)| layout::ModuleInput {
            name: module.name.clone(),
            source: built.job.path.clone(),
            mangling: match built.job.language {
                Language::Slang => layout::Mangling::Slang,
                // WESL's output is WGSL, compiled by naga.
                Language::Wgsl | Language::Wesl => layout::Mangling::Wgsl,
                // Ready SPIR-V is most often DXC's.
                Language::Spirv => layout::Mangling::Dxc,
                _ => layout::Mangling::None,
            },
            reflection: module.reflection.clone(),
            layouts: interface.as_ref().map(layout::from_interface).unwrap_or_default(),
            interface,
        })
        .collect();
    let generated = generate_with(&inputs, wgpu_items, programs);
    let report = TypesReport {
        file: std::path::PathBuf::new(),
        modules: generated.modules,
        blocks: generated.blocks,
        structs: generated.structs,
        milliseconds: started.elapsed().as_secs_f64() * 1000.0,
        problems: generated.problems.clone(),
    };
    GeneratedTypes { code: generated.code, problems: generated.problems, block_types: generated.block_types, report }
}
