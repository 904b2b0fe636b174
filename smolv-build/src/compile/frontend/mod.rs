//! Frontends, source to SPIR-V: glslang, naga, `wesl`, `slangc`, precompiled SPIR-V. Each reports
//! every file it read, and every error as a located [`Diagnostic`].

mod external;
#[cfg(feature = "glsl")]
mod glsl;
#[cfg(feature = "glsl")]
mod glsl_hints;
#[cfg(feature = "glsl")]
mod glslang;
#[cfg(feature = "glsl")]
mod glslang_log;
#[cfg(feature = "glsl")]
mod include;
mod slang;
mod spirv;
#[cfg(feature = "wesl")]
mod wesl;
#[cfg(feature = "wgsl")]
mod wgsl;

use std::path::PathBuf;

pub(crate) use external::words as spirv_words;
pub(crate) use slang::{find_slangc, identity as slangc_identity};

use smolv_format::reflect::ShaderStage;

use crate::error::Diagnostic;
use crate::options::Language;
use crate::settings::Settings;
use crate::source::Job;

#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) modules: Vec<CompiledModule>,
    /// Every file read besides the job's source, with the blake3 of its bytes.
    pub(crate) dependencies: Vec<(PathBuf, [u8; 32])>,
    /// Include candidates searched before the file found that did not exist.
    pub(crate) missing: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct CompiledModule {
    /// Full module name: the job's, plus `#entry` for WGSL and Slang.
    pub(crate) name: String,
    pub(crate) stage: ShaderStage,
    pub(crate) entry_point: String,
    /// SPIR-V as compiled without optimization (for the size report).
    pub(crate) spirv: Vec<u32>,
    /// The optimized (or specialized) SPIR-V, once there is one.
    pub(crate) optimized: Option<Vec<u32>>,
    /// Whether `spirv` still needs SPIRV-Tools' HLSL legalization passes.
    pub(crate) needs_legalization: bool,
}

impl Compiled {
    /// Just `modules`, from a frontend that reads no other file.
    fn of(modules: Vec<CompiledModule>) -> Self {
        Self { modules, dependencies: Vec::new(), missing: Vec::new(), warnings: Vec::new() }
    }
}

impl CompiledModule {
    fn new(name: String, stage: ShaderStage, entry_point: String, spirv: Vec<u32>) -> Self {
        Self { name, stage, entry_point, spirv, optimized: None, needs_legalization: false }
    }

    /// Writes it as cache entries store it.
    pub(crate) fn write<'w>(&self, w: &'w mut crate::cache::BodyWriter) -> &'w mut crate::cache::BodyWriter {
        w.text(&self.name).text(self.stage.name()).text(&self.entry_point).words(&self.spirv);
        match &self.optimized {
            Some(optimized) => w.u32(1).words(optimized),
            None => w.u32(0),
        };
        w.u32(u32::from(self.needs_legalization))
    }

    pub(crate) fn read(r: &mut crate::cache::BodyReader<'_>) -> Option<Self> {
        let name = r.text()?;
        let stage_name = r.text()?;
        let stage = ShaderStage::ALL.into_iter().find(|s| s.name() == stage_name)?;
        let entry_point = r.text()?;
        let spirv = r.words()?;
        let optimized = if r.u32()? == 1 { Some(r.words()?) } else { None };
        let needs_legalization = match r.u32()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        Some(Self { name, stage, entry_point, spirv, optimized, needs_legalization })
    }
}

/// Compiles one job, whose file holds `source`.
#[cfg_attr(not(any(feature = "glsl", feature = "wgsl")), allow(unused_variables))]
pub(crate) fn compile(job: &Job, source: &[u8], settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    #[cfg(debug_assertions)]
    test_crash(job, source);
    if job.language == Language::Spirv {
        return spirv::compile(job, source);
    }
    if job.language == Language::Slang {
        return slang::compile(job, settings);
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

/// Test hook, debug builds only: `SMOLV_WORKER_TEST_CRASH=name` crashes on a file named or containing `name`.
#[cfg(debug_assertions)]
fn test_crash(job: &Job, source: &[u8]) {
    let name = crate::env::var_os("SMOLV_WORKER_TEST_CRASH");
    let in_source = |name: &std::ffi::OsStr| {
        let name = name.as_encoded_bytes();
        !name.is_empty() && source.windows(name.len()).any(|window| window == name)
    };
    if name.is_some_and(|name| job.path.file_name() == Some(name.as_os_str()) || in_source(&name)) {
        #[cfg(unix)]
        #[allow(unsafe_code, reason = "signal(3) and raise(3) on this process, which the hook is for")]
        // SAFETY: SIGSEGV's default action restored, then raised: the point.
        unsafe {
            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
            libc::raise(libc::SIGSEGV);
        }
        std::process::abort();
    }
}

/// The error for a shader whose language this build has no compiler for.
fn not_enabled(language: Language, settings: &Settings) -> String {
    let feature = match language {
        Language::Wgsl => "wgsl",
        Language::Wesl => "wesl",
        _ => "glsl",
    };
    match &settings.missing_language_advice {
        Some(advice) => format!(
            "{language} support is not enabled, and no cache has this shader compiled as it is now; {}",
            advice.replace("{feature}", feature)
        ),
        None => format!(
            "{language} support is not enabled, and neither a cache nor the prepared directory has this shader \
             compiled as it is now; enable smolv-build's `{feature}` feature (in [build-dependencies]), or run \
             `cargo smolv prepare` where the compilers are and commit the directory it writes (`.smolv`)"
        ),
    }
}

/// What the WESL front end writes for `::` in a mangled name (`ːː`).
pub(crate) const WESL_SEPARATOR: &str = "\u{2d0}\u{2d0}";

/// The `wesl` crate that links WESL, as the workspace pins it.
pub(crate) const WESL_VERSION: &str = "0.4.0";

/// The glslang-sys crate that compiles GLSL and HLSL, as the workspace pins it.
pub(crate) const GLSLANG_SYS_VERSION: &str = "0.9.2+e1b562a";

/// Identifies the compilers that produce SPIR-V, for cache keys, whatever the features.
pub(crate) fn compiler_identity() -> String {
    format!("glslang-sys {GLSLANG_SYS_VERSION};naga {};", crate::compile::NAGA_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache keys name the glslang-sys version compiled in: the
    /// constant must be the one Cargo.lock resolved (a `cargo update` that
    /// moved it without this constant would reuse old entries).
    #[test]
    fn the_identity_names_the_glslang_sys_version_in_cargo_lock() {
        let lock = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
            .expect("the workspace's Cargo.lock");
        let locked: Vec<&str> = lock
            .split("[[package]]")
            .filter(|p| p.contains("name = \"glslang-sys\"\n"))
            .filter_map(|p| p.split("version = \"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(locked, [GLSLANG_SYS_VERSION], "one glslang-sys, the one named");
        assert!(compiler_identity().starts_with(&format!("glslang-sys {GLSLANG_SYS_VERSION};")));
    }

    /// A `.wesl` shader in a build without the `wesl` feature (smolv-build's
    /// tests run without it).
    #[cfg(not(feature = "wesl"))]
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
        assert!(build_script.contains("WESL support is not enabled, and neither a cache"), "{build_script}");
        assert!(build_script.contains("enable smolv-build's `wesl` feature"), "{build_script}");
        assert!(build_script.contains("or run `cargo smolv prepare` where the compilers are"), "{build_script}");
        // A CLI's user installs it again, with the feature.
        let cli = Settings {
            missing_language_advice: Some("reinstall: `cargo install cargo-smolv --features {feature}`".into()),
            ..settings
        };
        let installed = message(&cli);
        assert!(
            installed.contains(
                "WESL support is not enabled, and no cache has this shader compiled as it is now; reinstall: `cargo \
                 install cargo-smolv --features wesl`"
            ),
            "{installed}"
        );
        assert!(!installed.contains("smolv-build"), "{installed}");
        assert!(!installed.contains("prepare"), "a CLI's build has no prepared directory: {installed}");
    }
}
