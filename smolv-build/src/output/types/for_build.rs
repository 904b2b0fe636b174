//! The types of one build's modules, from what the compile and pack stages made.

use crate::compile::all::Built;
use crate::options::Language;
use crate::output::report::TypesReport;
use crate::output::types::{Generated, generate_with, layout};
use crate::pack::artifacts::Artifacts;

/// The Rust types of every module for `file`, and their report: from the unoptimized, unstripped SPIR-V, so that
/// every member is there, named.
pub(crate) fn generate_types(
    modules: &[Built<'_>],
    artifacts: &Artifacts,
    wgpu_items: bool,
    programs: &[(String, Vec<String>)],
    file: std::path::PathBuf,
) -> (Generated, TypesReport) {
    let started = std::time::Instant::now();
    let inputs: Vec<layout::ModuleInput> = modules
        .iter()
        .zip(&artifacts.manifest.modules)
        .map(|(built, module)| layout::ModuleInput {
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
            // The front end's, as the pack stage read it (`reflect::interface`).
            layouts: module.interface.as_ref().map(layout::from_interface).unwrap_or_default(),
            interface: module.interface.clone(),
        })
        .collect();
    let generated = generate_with(&inputs, wgpu_items, programs);
    let report = TypesReport {
        file,
        modules: generated.modules,
        blocks: generated.blocks,
        structs: generated.structs,
        milliseconds: started.elapsed().as_secs_f64() * 1000.0,
        problems: generated.problems.clone(),
    };
    (generated, report)
}
