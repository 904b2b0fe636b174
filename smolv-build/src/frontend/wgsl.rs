//! WGSL through naga: one module per entry point.

use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use smolv_runtime::reflect::ShaderStage;

use super::{Compiled, CompiledModule};
use crate::error::Diagnostic;
use crate::pipeline::Settings;
use crate::source::Job;

fn stage(stage: naga::ShaderStage) -> Option<ShaderStage> {
    Some(match stage {
        naga::ShaderStage::Vertex => ShaderStage::Vertex,
        naga::ShaderStage::Fragment => ShaderStage::Fragment,
        naga::ShaderStage::Compute => ShaderStage::Compute,
        naga::ShaderStage::Task => ShaderStage::Task,
        naga::ShaderStage::Mesh => ShaderStage::Mesh,
        naga::ShaderStage::RayGeneration => ShaderStage::RayGeneration,
        naga::ShaderStage::Miss => ShaderStage::Miss,
        naga::ShaderStage::AnyHit => ShaderStage::AnyHit,
        naga::ShaderStage::ClosestHit => ShaderStage::ClosestHit,
        #[allow(unreachable_patterns)]
        _ => return None,
    })
}

/// A diagnostic at naga's first span, with its codespan rendering.
fn located(job: &Job, location: Option<naga::SourceLocation>, message: String, rendered: String) -> Diagnostic {
    let (line, column) = location.map_or((0, 0), |l| (l.line_number, l.line_position));
    Diagnostic { path: job.path.clone(), line, column, message, rendered: Some(rendered) }
}

pub(super) fn compile(job: &Job, source: &str, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    let path = job.path.to_string_lossy();
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        vec![located(job, e.location(source), e.message().to_owned(), e.emit_to_string_with_path(source, &path))]
    })?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).map_err(|e| {
        vec![located(job, e.location(source), e.as_inner().to_string(), e.emit_to_string_with_path(source, &path))]
    })?;
    if module.entry_points.is_empty() {
        return Err(fail("the WGSL module has no entry points (@vertex, @fragment or @compute functions)".into()));
    }
    let (major, minor) = settings.spirv_version.major_minor();
    let mut options = spv::Options { lang_version: (major, minor), ..spv::Options::default() };
    options.flags.remove(spv::WriterFlags::DEBUG);
    if !settings.strip_debug {
        options.flags.insert(spv::WriterFlags::DEBUG);
    }
    let mut modules = Vec::new();
    let mut diagnostics = Vec::new();
    for entry in &module.entry_points {
        let Some(shader_stage) = stage(entry.stage) else {
            diagnostics.extend(fail(format!("entry point {} has a stage Vulkan cannot use", entry.name)));
            continue;
        };
        let pipeline = spv::PipelineOptions { shader_stage: entry.stage, entry_point: entry.name.clone() };
        match spv::write_vec(&module, &info, &options, Some(&pipeline)) {
            Ok(spirv) => modules.push(CompiledModule {
                name: format!("{}#{}", job.name, entry.name),
                stage: shader_stage,
                entry_point: entry.name.clone(),
                spirv,
                optimized: None,
            }),
            Err(e) => diagnostics.extend(fail(format!("entry point {}: SPIR-V generation failed: {e}", entry.name))),
        }
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    Ok(Compiled { modules, dependencies: Vec::new(), missing: Vec::new(), warnings: Vec::new() })
}
