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
#[cfg(feature = "shaderc")]
mod glsl;
#[cfg(feature = "shaderc")]
mod glsl_hints;
mod glslang_log;
mod glslc;
#[cfg(feature = "shaderc")]
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
        Some(Self { name, stage, entry_point, spirv, optimized })
    }
}

/// Compiles one job, whose file holds `source`, with the frontend for its
/// language.
#[cfg_attr(not(any(feature = "shaderc", feature = "wgsl")), allow(unused_variables))]
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
        #[cfg(feature = "shaderc")]
        Language::Glsl | Language::Hlsl => glsl::compile(job, source, settings)
            .map_err(|errors| glsl_hints::with_hints(job.language, source, settings, errors)),
        #[cfg(feature = "wgsl")]
        Language::Wgsl => wgsl::compile(job, source, settings),
        #[cfg(feature = "wesl")]
        Language::Wesl => wesl::compile(job, source, settings),
        #[allow(unreachable_patterns)]
        language => Err(vec![Diagnostic::whole_file(
            &job.path,
            format!(
                "{language} support is not enabled; enable smolv-build's `{}` feature",
                match language {
                    Language::Wgsl => "wgsl",
                    Language::Wesl => "wesl",
                    _ => "shaderc",
                }
            ),
        )]),
    }
}

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
    #[cfg_attr(not(any(feature = "shaderc", feature = "wgsl")), allow(unused_mut))]
    let mut identity = String::new();
    #[cfg(feature = "shaderc")]
    identity.push_str(&glsl::identity());
    #[cfg(feature = "wgsl")]
    identity.push_str(&wgsl::identity());
    identity
}
