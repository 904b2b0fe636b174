//! Frontends: shader source to SPIR-V.
//!
//! GLSL and HLSL go through shaderc (`glsl.rs`), but HLSL with 16-bit
//! types through the `glslc` binary (`glslc.rs`), WGSL through naga
//! (`wgsl.rs`), WESL through the `wesl` crate and then naga (`wesl/`),
//! Slang through the `slangc` binary (`slang.rs`); precompiled
//! SPIR-V is checked and taken as it is (`spirv.rs`). Each reports every
//! file it read, so the cache and Cargo can track includes, and every error
//! as a located [`Diagnostic`]; glslang's errors get hints where they do
//! not say what to do (`glsl_hints.rs`), and a missing include says where
//! else the tree has it (`include.rs`).

mod external;
#[cfg(feature = "glsl")]
mod glsl;
#[cfg(feature = "glsl")]
mod glsl_hints;
mod glslang_log;
mod glslc;
#[cfg(feature = "glsl")]
mod include;
mod slang;
mod spirv;
#[cfg(feature = "wesl")]
mod wesl;
#[cfg(feature = "wgsl")]
mod wgsl;

use std::path::PathBuf;

pub(crate) use glslc::{compiles as compiles_with_glslc, find_glslc, identity as glslc_identity};
pub(crate) use slang::{find_slangc, identity as slangc_identity};

use smolv_runtime::reflect::ShaderStage;

use crate::error::Diagnostic;
use crate::options::Language;
use crate::settings::Settings;
use crate::source::Job;

/// What a frontend made of one job.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) modules: Vec<CompiledModule>,
    /// Every file read besides the job's source (resolved includes), with
    /// the blake3 of the bytes handed to the compiler.
    pub(crate) dependencies: Vec<(PathBuf, [u8; 32])>,
    /// Include candidates searched before the file found, in search order,
    /// that did not exist.
    pub(crate) missing: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
}

/// One module out of a frontend.
#[derive(Debug, Clone)]
pub(crate) struct CompiledModule {
    /// Full module name: the job's, plus `#entry` for WGSL and Slang.
    pub(crate) name: String,
    pub(crate) stage: ShaderStage,
    pub(crate) entry_point: String,
    /// SPIR-V as compiled without optimization (for the size report).
    pub(crate) spirv: Vec<u32>,
    /// SPIR-V the frontend already optimized (shaderc does), if any.
    pub(crate) optimized: Option<Vec<u32>>,
    /// Whether the module is HLSL as the frontend translated it, which
    /// SPIRV-Tools' HLSL legalization must make valid before it ships.
    pub(crate) needs_legalization: bool,
}

impl CompiledModule {
    /// Writes it as the build cache's entries and the workers' replies
    /// store it; [`CompiledModule::read`] reads it back.
    pub(crate) fn write(&self, w: &mut crate::cache::BodyWriter) {
        w.text(&self.name).text(self.stage.name()).text(&self.entry_point).words(&self.spirv);
        match &self.optimized {
            Some(optimized) => w.u32(1).words(optimized),
            None => w.u32(0),
        };
        w.u32(u32::from(self.needs_legalization));
    }

    /// Reads what [`CompiledModule::write`] wrote; `None` if the bytes are
    /// not that.
    pub(crate) fn read(r: &mut crate::cache::BodyReader<'_>) -> Option<Self> {
        let name = r.text()?;
        let stage_name = r.text()?;
        let stage = ShaderStage::ALL.into_iter().find(|s| s.name() == stage_name)?;
        let entry_point = r.text()?;
        let spirv = r.words()?;
        let optimized = if r.u32()? == 1 { Some(r.words()?) } else { None };
        let needs_legalization = r.u32()? == 1;
        Some(Self { name, stage, entry_point, spirv, optimized, needs_legalization })
    }
}

/// Compiles one job, whose file holds `source`, with the frontend for its
/// language.
#[cfg_attr(not(any(feature = "glsl", feature = "wgsl")), allow(unused_variables))]
pub(crate) fn compile(job: &Job, source: &[u8], settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    if job.language == Language::Spirv {
        return spirv::compile(job, source);
    }
    if job.language == Language::Slang {
        return slang::compile(job, settings);
    }
    if glslc::compiles(job, settings) {
        return glslc::compile(job, settings);
    }
    let source = std::str::from_utf8(source)
        .map_err(|e| vec![Diagnostic::whole_file(&job.path, format!("the shader is not UTF-8 text: {e}"))])?;
    match job.language {
        #[cfg(feature = "glsl")]
        Language::Glsl | Language::Hlsl => glsl::compile(job, source, settings)
            .map_err(|errors| glsl_hints::with_hints(job.language, source, settings, errors)),
        #[cfg(feature = "wgsl")]
        Language::Wgsl => wgsl::compile(job, source, settings),
        #[cfg(feature = "wesl")]
        Language::Wesl => wesl::compile(job, source, settings),
        #[allow(unreachable_patterns)]
        language => Err(vec![Diagnostic::whole_file(&job.path, not_enabled(language, settings))]),
    }
}

/// The error for a shader whose language this build has no compiler for:
/// the Cargo feature that adds it, in the words the settings give
/// (`Config::missing_language_advice`: a CLI gives its install line), else
/// as a build script's author adds it.
fn not_enabled(language: Language, settings: &Settings) -> String {
    let feature = match language {
        Language::Wgsl => "wgsl",
        Language::Wesl => "wesl",
        _ => "glsl",
    };
    let advice = match &settings.missing_language_advice {
        Some(advice) => advice.replace("{feature}", feature),
        None => format!("enable smolv-build's `{feature}` feature (in [build-dependencies])"),
    };
    format!("{language} support is not enabled; {advice}")
}

/// What the WESL front end writes for `::` in a mangled name (see
/// `wesl/mangle.rs`): two U+02D0, a letter that looks like a colon, so
/// that the name is a WGSL identifier. `output::types::names` undoes it.
pub(crate) const WESL_SEPARATOR: &str = "\u{2d0}\u{2d0}";

/// Identifies what links WESL, for the cache keys of WESL jobs only (so
/// that turning the `wesl` feature on leaves the other entries valid).
pub(crate) fn wesl_identity() -> String {
    #[cfg(feature = "wesl")]
    return wesl::identity();
    #[cfg(not(feature = "wesl"))]
    String::new()
}

/// Identifies the compilers that produce SPIR-V, for cache keys: what
/// actually compiled (the linked shaderc library's bytes, naga's exact
/// version), so another compiler never reuses old output.
pub(crate) fn compiler_identity() -> String {
    #[cfg_attr(not(any(feature = "glsl", feature = "wgsl")), allow(unused_mut))]
    let mut identity = String::new();
    #[cfg(feature = "glsl")]
    identity.push_str(&glsl::identity());
    #[cfg(feature = "wgsl")]
    identity.push_str(&wgsl::identity());
    identity
}

/// A `.wesl` shader in a build without the `wesl` feature (smolv-build's
/// tests run without it).
#[cfg(all(test, not(feature = "wesl")))]
mod tests {
    use super::*;

    #[test]
    fn a_language_without_its_compiler_says_how_to_add_it_in_the_users_own_terms() {
        let job = Job::for_test("sky.wesl", "shaders/sky.wesl", Language::Wesl);
        let settings = crate::compile::job::tests::settings();
        let message = |settings: &Settings| {
            let errors = compile(&job, b"fn main() {}", settings).unwrap_err();
            errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
        };
        // A build script's author adds the feature to the dependency.
        let build_script = message(&settings);
        assert!(build_script.contains("shaders/sky.wesl"), "{build_script}");
        assert!(
            build_script.contains("WESL support is not enabled; enable smolv-build's `wesl` feature"),
            "{build_script}"
        );
        // A CLI's user installs it again, with the feature.
        let cli = Settings {
            missing_language_advice: Some("reinstall: `cargo install cargo-smolv --features {feature}`".into()),
            ..settings
        };
        let installed = message(&cli);
        assert!(
            installed.contains("WESL support is not enabled; reinstall: `cargo install cargo-smolv --features wesl`"),
            "{installed}"
        );
        assert!(!installed.contains("smolv-build"), "{installed}");
    }
}
