//! WGSL through naga: one module per entry point.

use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use smolv_format::reflect::ShaderStage;

use super::{Compiled, CompiledModule};
use crate::error::Diagnostic;
use crate::settings::Settings;
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

pub(super) struct NagaError {
    pub(super) message: String,
    /// The message with the errors it wraps.
    #[cfg_attr(not(feature = "wesl"), allow(dead_code))]
    pub(super) chain: String,
    #[cfg_attr(not(feature = "wesl"), allow(dead_code))]
    pub(super) span: Option<std::ops::Range<usize>>,
    pub(super) location: Option<naga::SourceLocation>,
    pub(super) rendered: String,
}

/// naga's module of WGSL `source` (from `path`), validated.
pub(super) fn parse(source: &str, path: &str) -> Result<(naga::Module, naga::valid::ModuleInfo), NagaError> {
    let narrowest = |spans: Vec<std::ops::Range<usize>>| spans.into_iter().min_by_key(|span| span.len());
    let module = naga::front::wgsl::parse_str(source).map_err(|e| NagaError {
        message: e.message().to_owned(),
        chain: e.message().to_owned(),
        span: narrowest(e.labels().filter_map(|(span, _)| span.to_range()).collect()),
        location: e.location(source),
        rendered: e.emit_to_string_with_path(source, path),
    })?;
    let info =
        Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).map_err(|e| NagaError {
            message: e.as_inner().to_string(),
            chain: std::iter::successors(Some(e.as_inner() as &dyn std::error::Error), |e| e.source())
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(": "),
            span: narrowest(e.spans().filter_map(|(span, _)| span.to_range()).collect()),
            location: e.location(source),
            rendered: e.emit_to_string_with_path(source, path),
        })?;
    Ok((module, info))
}

/// The directives of naga_oil, the preprocessor of Bevy's shaders.
const NAGA_OIL_DIRECTIVES: [&str; 8] =
    ["#import", "#define_import_path", "#ifdef", "#ifndef", "#if", "#else", "#endif", "#define"];

const NAGA_OIL_HINT: &str = " (this line is naga_oil's preprocessor, which Bevy's shaders use, not WGSL: smolv \
                             compiles WGSL and WESL. Write the shader as WESL, in a `.wesl` file, with the `wesl` \
                             feature of smolv-build or cargo-smolv: `import package::lighting::Light;` imports from \
                             `lighting.wesl` at the shader root, in place of `#define_import_path` and `#import`; \
                             `@if(SHADOWS)` with `Config::wesl_feature(\"SHADOWS\", true)` (`--wesl-feature \
                             SHADOWS`) in place of `#ifdef SHADOWS`. Shaders that import Bevy's own modules, such as \
                             `bevy_pbr::…`, stay with Bevy's asset loader)";

/// Whether line `line` (1-based) of `source` starts with a naga_oil directive.
fn is_naga_oil_directive(source: &str, line: u32) -> bool {
    let Some(text) = line.checked_sub(1).and_then(|at| source.lines().nth(usize::try_from(at).ok()?)) else {
        return false;
    };
    let text = text.trim_start();
    NAGA_OIL_DIRECTIVES.iter().any(|directive| {
        text.strip_prefix(directive).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    })
}

pub(super) fn compile(job: &Job, source: &str, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let (module, info) = parse(source, &job.path.to_string_lossy()).map_err(|e| {
        let (line, column) = e.location.map_or((0, 0), |l| (l.line_number, l.line_position));
        let mut message = e.message;
        if is_naga_oil_directive(source, line) {
            message.push_str(NAGA_OIL_HINT);
        }
        vec![Diagnostic { path: job.path.clone(), line, column, message, rendered: Some(e.rendered) }]
    })?;
    let modules = entry_point_modules(job, &module, &info, settings)?;
    Ok(Compiled::of(modules))
}

/// One SPIR-V module per entry point of a validated naga module.
pub(super) fn entry_point_modules(
    job: &Job,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    settings: &Settings,
) -> Result<Vec<CompiledModule>, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    if module.entry_points.is_empty() {
        return Err(fail(format!(
            "the {} module has no entry points (@vertex, @fragment or @compute functions)",
            job.language
        )));
    }
    let (major, minor) = settings.spirv_version.major_minor();
    let mut options = spv::Options { lang_version: (major, minor), ..spv::Options::default() };
    // Names always: the typed interface is reflected before `strip_debug`.
    options.flags.insert(spv::WriterFlags::DEBUG);
    options.flags.set(spv::WriterFlags::ADJUST_COORDINATE_SPACE, settings.wgsl_adjust_coordinate_space);
    let mut modules = Vec::new();
    let mut diagnostics = Vec::new();
    for entry in &module.entry_points {
        let Some(shader_stage) = stage(entry.stage) else {
            diagnostics.extend(fail(format!("entry point {} has a stage Vulkan cannot use", entry.name)));
            continue;
        };
        let entry_options = spv::PipelineOptions { shader_stage: entry.stage, entry_point: entry.name.clone() };
        match spv::write_vec(module, info, &options, Some(&entry_options)) {
            Ok(spirv) => {
                let name = format!("{}#{}", job.name, entry.name);
                modules.push(CompiledModule::new(name, shader_stage, entry.name.clone(), spirv));
            }
            Err(e) => diagnostics.extend(fail(format!("entry point {}: SPIR-V generation failed: {e}", entry.name))),
        }
    }
    if diagnostics.is_empty() { Ok(modules) } else { Err(diagnostics) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::NAGA_VERSION;

    /// The `version` of `[[package]] name = "naga"` in a lock file.
    fn locked_version(lock: &str, package: &str) -> Option<String> {
        let header = format!("name = \"{package}\"\nversion = \"");
        let start = lock.find(&header)? + header.len();
        Some(lock[start..].split('"').next()?.to_owned())
    }

    #[test]
    fn the_naga_identity_is_the_exact_version_cargo_resolved() {
        let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).unwrap();
        assert_eq!(locked_version(&lock, "naga").as_deref(), Some(NAGA_VERSION), "Cargo.lock resolves another naga");
        let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains(&format!("naga = {{ version = \"={NAGA_VERSION}\"")),
            "the workspace must pin naga to exactly {NAGA_VERSION}, or the cache key could name another version"
        );
        assert!(super::super::compiler_identity().contains(&format!("naga {NAGA_VERSION};")));
    }

    /// Bevy's shaders start with naga_oil's `#import`.
    #[test]
    fn a_naga_oil_directive_says_what_smolv_compiles() {
        let source = "#import bevy_pbr::forward_io::VertexOutput\n@fragment\n\
                      fn fragment(mesh: VertexOutput) -> @location(0) vec4<f32> { return vec4(1.0); }\n";
        let (job, settings) =
            (crate::compile::job::tests::fragment_job("custom.wgsl"), crate::compile::job::tests::settings());
        let errors = compile(&job, source, &settings).unwrap_err();
        assert_eq!(errors[0].line, 1);
        assert!(errors[0].message.starts_with("expected global item"), "{}", errors[0].message);
        assert!(errors[0].message.ends_with(NAGA_OIL_HINT), "{}", errors[0].message);
        assert!(is_naga_oil_directive("fn f() {}\n  #ifdef SHADOWS\n", 2));
        assert!(is_naga_oil_directive("#endif", 1));
        // Only whole directives on the error's own line.
        assert!(!is_naga_oil_directive("#imports x", 1));
        assert!(!is_naga_oil_directive("#import x\nfn f( {}", 2));
        assert!(!is_naga_oil_directive("#import x", 0));
        let plain = compile(&job, "fn f( {}\n", &settings).unwrap_err();
        assert!(!plain[0].message.contains("naga_oil"), "{}", plain[0].message);
    }
}
