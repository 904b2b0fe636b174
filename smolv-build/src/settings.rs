//! What one build needs, resolved from a [`Config`](crate::Config) and the environment.

use std::path::PathBuf;

use crate::options::{
    BindingBase, Define, DictionaryMode, HlslOptions, Optimization, SpirvVersion, TargetEnv, Variant,
};
use crate::options::{DeviceSpirv, Language, Packing, RuntimeCodecs, SizeGoal};

/// The shaders to find (relative to `base`, the crate root), and what turns each into compile jobs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Inputs {
    pub(crate) base: PathBuf,
    pub(crate) shader_dirs: Vec<PathBuf>,
    pub(crate) shader_files: Vec<PathBuf>,
    pub(crate) shader_globs: Vec<String>,
    pub(crate) defines: Vec<Define>,
    pub(crate) shader_defines: Vec<(String, Define)>,
    pub(crate) variants: Vec<(String, Variant)>,
    pub(crate) wesl_features: Vec<(String, bool)>,
    pub(crate) shader_wesl_features: Vec<(String, (String, bool))>,
    pub(crate) languages: Vec<(String, Language)>,
    /// The entry point of HLSL shaders; `main` when `None`.
    pub(crate) hlsl_entry_point: Option<String>,
}

impl Inputs {
    /// What was searched, for "no shaders found".
    pub(crate) fn describe(&self) -> String {
        let paths = self.shader_dirs.iter().chain(&self.shader_files).map(|path| path.display().to_string());
        let parts: Vec<String> = paths.chain(self.shader_globs.iter().cloned()).collect();
        if parts.is_empty() { "(no shader_dir, shader or shader_glob configured)".to_owned() } else { parts.join(", ") }
    }
}

/// Settings every compile job shares (in the manifest's [`recipe`](crate::pack::recipe)s).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Settings {
    pub(crate) target_env: TargetEnv,
    pub(crate) spirv_version: SpirvVersion,
    pub(crate) optimization: Optimization,
    pub(crate) strip_debug: bool,
    #[serde(default)]
    pub(crate) keep_interface_names: bool,
    pub(crate) include_dirs: Vec<PathBuf>,
    /// A `spirv-opt` binary named explicitly, run instead of SPIRV-Tools.
    pub(crate) spirv_opt: Option<PathBuf>,
    pub(crate) auto_map_locations: bool,
    pub(crate) auto_bind_uniforms: bool,
    /// naga's `ADJUST_COORDINATE_SPACE` for WGSL (negate the position's `y`).
    pub(crate) wgsl_adjust_coordinate_space: bool,
    /// Lowest bindings per resource kind (GLSL and HLSL).
    pub(crate) binding_bases: Vec<BindingBase>,
    pub(crate) hlsl: HlslOptions,
    /// The `slangc` binary that compiles `.slang` files, if found.
    pub(crate) slangc: Option<PathBuf>,
    /// WESL packages on disk: `import name::…` reads below the directory.
    #[serde(default)]
    pub(crate) wesl_packages: Vec<(String, PathBuf)>,
    /// `Config::missing_language_advice`; `None` names smolv-build's.
    #[serde(default)]
    pub(crate) missing_language_advice: Option<String>,
}

/// Everything one build needs.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) inputs: Inputs,
    pub(crate) settings: Settings,
    /// What the application's device takes (`settings.target_env` may be above).
    pub(crate) device: DeviceSpirv,
    pub(crate) out_dir: PathBuf,
    pub(crate) cache_dir: PathBuf,
    /// Worker threads; 0 for one per core.
    pub(crate) threads: usize,
    pub(crate) dictionary: DictionaryMode,
    pub(crate) zstd_level: i32,
    pub(crate) packing: PackSettings,
    pub(crate) keep_going: bool,
    /// Whether to print `cargo:` directives (under a build script).
    pub(crate) directives: bool,
    /// Whether to print the size report as Cargo warnings (`SMOLV_REPORT`).
    pub(crate) print_report: bool,
    pub(crate) remote_cache: crate::cache::remote::RemoteSettings,
    /// The project's prepared directory; `None` outside a crate.
    pub(crate) prepared_dir: Option<PathBuf>,
    /// Where to record every job's entry for `cargo smolv prepare`.
    pub(crate) prepare_session: Option<PathBuf>,
    pub(crate) programs: Vec<(String, Vec<String>)>,
}

/// What the pack stage works with.
#[derive(Clone, Debug)]
pub(crate) struct PackSettings {
    pub(crate) packing: Packing,
    pub(crate) goal: SizeGoal,
    pub(crate) zstd_level: i32,
    pub(crate) runtime: RuntimeCodecs,
    /// What consumes the shaders: for wgpu, the build may ship WGSL.
    pub(crate) target: crate::options::Target,
}
