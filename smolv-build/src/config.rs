//! The [`Config`] builder: what to compile and how.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::packing::{Packing, SizeGoal};
use crate::report::Report;

/// Which Vulkan version the SPIR-V targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TargetEnv {
    /// Vulkan 1.0 (SPIR-V 1.0).
    Vulkan1_0,
    /// Vulkan 1.1 (SPIR-V up to 1.3).
    Vulkan1_1,
    /// Vulkan 1.2 (SPIR-V up to 1.5). The default.
    #[default]
    Vulkan1_2,
    /// Vulkan 1.3 (SPIR-V up to 1.6).
    Vulkan1_3,
}

impl TargetEnv {
    /// The SPIR-V version this environment uses by default.
    pub fn default_spirv_version(self) -> SpirvVersion {
        match self {
            Self::Vulkan1_0 => SpirvVersion::V1_0,
            Self::Vulkan1_1 => SpirvVersion::V1_3,
            Self::Vulkan1_2 => SpirvVersion::V1_5,
            Self::Vulkan1_3 => SpirvVersion::V1_6,
        }
    }

    /// The `spirv-opt --target-env` spelling: `vulkan1.2`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Vulkan1_0 => "vulkan1.0",
            Self::Vulkan1_1 => "vulkan1.1",
            Self::Vulkan1_2 => "vulkan1.2",
            Self::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// Parses `vulkan1.0` … `vulkan1.3` (also `1.2`).
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text.trim_start_matches("vulkan") {
            "1.0" => Self::Vulkan1_0,
            "1.1" => Self::Vulkan1_1,
            "1.2" => Self::Vulkan1_2,
            "1.3" => Self::Vulkan1_3,
            _ => return None,
        })
    }
}

/// A SPIR-V version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpirvVersion {
    /// SPIR-V 1.0.
    V1_0,
    /// SPIR-V 1.1.
    V1_1,
    /// SPIR-V 1.2.
    V1_2,
    /// SPIR-V 1.3.
    V1_3,
    /// SPIR-V 1.4.
    V1_4,
    /// SPIR-V 1.5.
    V1_5,
    /// SPIR-V 1.6.
    V1_6,
}

impl SpirvVersion {
    /// `(major, minor)`.
    pub fn major_minor(self) -> (u8, u8) {
        (1, self as u8)
    }
}

/// How hard to optimize.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Optimization {
    /// No optimization.
    None,
    /// The SPIRV-Tools `-Os` recipe. The default: shaders ship smallest.
    #[default]
    Size,
    /// The SPIRV-Tools `-O` recipe.
    Performance,
}

/// Whether to train a shared zstd dictionary over the crate's shaders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DictionaryMode {
    /// Train one when there are two or more modules, try several sizes, and
    /// keep the best only if it lowers the total *including* the
    /// dictionary. The default.
    #[default]
    Auto,
    /// Compress each module on its own.
    Off,
    /// Always use a dictionary of this many bytes (when there are two or
    /// more modules to train on).
    Size(usize),
}

/// A preprocessor define: `NAME` or `NAME=value`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Define {
    /// The macro name.
    pub name: String,
    /// Its value, if any.
    pub value: Option<String>,
}

impl Define {
    /// `NAME=value`, or just `NAME` for `None`.
    pub fn new(name: impl Into<String>, value: Option<&str>) -> Self {
        Self { name: name.into(), value: value.map(str::to_owned) }
    }
}

/// A named set of defines that turns one source into one more module,
/// addressed as `shader@variant` (for example `lit.frag@shadows`).
///
/// ```
/// use smolv_build::Variant;
///
/// let shadows = Variant::new("shadows").define("SHADOWS", "1").define("PCF_TAPS", "16");
/// assert_eq!(shadows.name(), "shadows");
///
/// // Every combination of feature values: 2 × 3 = 6 variants,
/// // named "FOG=0,QUALITY=low" and so on.
/// let all = Variant::permutations(&[("FOG", &["0", "1"]), ("QUALITY", &["low", "mid", "high"])]);
/// assert_eq!(all.len(), 6);
/// assert_eq!(all[0].name(), "FOG=0,QUALITY=low");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub(crate) name: String,
    pub(crate) defines: Vec<Define>,
    pub(crate) spec_constants: Vec<(u32, smolv_runtime::specialize::Value)>,
}

impl Variant {
    /// A variant with no defines yet.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), defines: Vec::new(), spec_constants: Vec::new() }
    }

    /// Freezes specialization constant `id` to `value` at build time: the
    /// variant is the ubershader specialized (branches resolved, dead code
    /// removed) by `smolv_runtime::specialize`.
    ///
    /// ```
    /// use smolv_build::Variant;
    /// let low = Variant::new("low").spec_constant(0, false).spec_constant(4, 1);
    /// # let _ = low;
    /// ```
    pub fn spec_constant(mut self, id: u32, value: impl Into<smolv_runtime::specialize::Value>) -> Self {
        self.spec_constants.push((id, value.into()));
        self
    }

    /// Adds `#define name value`.
    pub fn define(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.defines.push(Define { name: name.into(), value: Some(value.into()) });
        self
    }

    /// The variant's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One variant per combination of the given define values, named
    /// `A=x,B=y`.
    pub fn permutations(axes: &[(&str, &[&str])]) -> Vec<Variant> {
        axes.iter().fold(vec![Variant::new("")], |variants, (name, values)| {
            variants
                .iter()
                .flat_map(|v| {
                    values.iter().map(move |value| {
                        let label = if v.name.is_empty() {
                            format!("{name}={value}")
                        } else {
                            format!("{},{name}={value}", v.name)
                        };
                        let mut next = v.clone().define(*name, *value);
                        next.name = label;
                        next
                    })
                })
                .collect()
        })
    }
}

/// Configures and runs the shader build. Setters take `&mut self` and
/// return it, in the style of `cc` and `prost-build`.
///
/// ```no_run
/// // build.rs
/// use smolv_build::{Config, TargetEnv, Variant};
///
/// Config::new()
///     .shader_dir("shaders")
///     .include_dir("shaders/include")
///     .define("MAX_LIGHTS", "16")
///     .variants("lit.frag", [Variant::new("shadows").define("SHADOWS", "1")])
///     .target_env(TargetEnv::Vulkan1_2)
///     .compile();
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) shader_dirs: Vec<PathBuf>,
    pub(crate) shader_files: Vec<PathBuf>,
    pub(crate) shader_globs: Vec<String>,
    pub(crate) include_dirs: Vec<PathBuf>,
    pub(crate) defines: Vec<Define>,
    pub(crate) shader_defines: Vec<(String, Define)>,
    pub(crate) variants: Vec<(String, Variant)>,
    pub(crate) target_env: TargetEnv,
    pub(crate) spirv_version: Option<SpirvVersion>,
    pub(crate) optimization: Optimization,
    pub(crate) strip_debug: Option<bool>,
    pub(crate) zstd_level: i32,
    pub(crate) dictionary: DictionaryMode,
    pub(crate) packing: Option<Packing>,
    pub(crate) size_goal: Option<SizeGoal>,
    pub(crate) cache_dir: Option<PathBuf>,
    pub(crate) out_dir: Option<PathBuf>,
    pub(crate) jobs: Option<usize>,
    pub(crate) spirv_opt: Option<PathBuf>,
    pub(crate) cargo_directives: Option<bool>,
    pub(crate) keep_going: bool,
    pub(crate) auto_map_locations: bool,
    pub(crate) auto_bind_uniforms: bool,
    /// Setters in `remote_cache::settings`.
    pub(crate) remote_cache: crate::remote_cache::RemoteSettings,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// Defaults: Vulkan 1.2, optimize for size, strip debug info in release
    /// builds, the packing that makes the installed binary smallest, zstd
    /// level 19, automatic dictionary, Cargo's `NUM_JOBS`.
    pub fn new() -> Self {
        Self {
            shader_dirs: Vec::new(),
            shader_files: Vec::new(),
            shader_globs: Vec::new(),
            include_dirs: Vec::new(),
            defines: Vec::new(),
            shader_defines: Vec::new(),
            variants: Vec::new(),
            target_env: TargetEnv::default(),
            spirv_version: None,
            optimization: Optimization::default(),
            strip_debug: None,
            zstd_level: 19,
            dictionary: DictionaryMode::default(),
            packing: None,
            size_goal: None,
            cache_dir: None,
            out_dir: None,
            jobs: None,
            spirv_opt: None,
            cargo_directives: None,
            keep_going: false,
            auto_map_locations: false,
            auto_bind_uniforms: false,
            remote_cache: Default::default(),
        }
    }

    /// Compiles every shader below `dir` (recursively). Module names are
    /// paths relative to it: `post/blur.comp`.
    pub fn shader_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.shader_dirs.push(dir.as_ref().to_owned());
        self
    }

    /// Compiles one shader file; its module name is its file name.
    pub fn shader(&mut self, file: impl AsRef<Path>) -> &mut Self {
        self.shader_files.push(file.as_ref().to_owned());
        self
    }

    /// Compiles the files matching a glob such as `shaders/**/*.frag`;
    /// module names are relative to the glob's fixed leading directory.
    pub fn shader_glob(&mut self, pattern: impl Into<String>) -> &mut Self {
        self.shader_globs.push(pattern.into());
        self
    }

    /// Searched by `#include <...>`, and by `#include "..."` after the
    /// including file's own directory.
    pub fn include_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.include_dirs.push(dir.as_ref().to_owned());
        self
    }

    /// `#define name value` for every GLSL and HLSL shader. WGSL has no
    /// preprocessor, so WGSL files do not see it (and a define given to a
    /// WGSL file alone, or through a variant, is an error).
    pub fn define(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.defines.push(Define { name: name.into(), value: Some(value.into()) });
        self
    }

    /// `#define name value` for one shader, by module name (`lit.frag`).
    /// A name that matches no shader is an error when the build runs.
    pub fn shader_define(
        &mut self,
        shader: impl Into<String>,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> &mut Self {
        self.shader_defines.push((shader.into(), Define { name: name.into(), value: Some(value.into()) }));
        self
    }

    /// Adds named variants of one shader (by module name). Each becomes a
    /// module `shader@variant` next to the plain `shader`.
    pub fn variants(&mut self, shader: impl Into<String>, variants: impl IntoIterator<Item = Variant>) -> &mut Self {
        let shader = shader.into();
        self.variants.extend(variants.into_iter().map(|v| (shader.clone(), v)));
        self
    }

    /// Target Vulkan version (default 1.2).
    pub fn target_env(&mut self, env: TargetEnv) -> &mut Self {
        self.target_env = env;
        self
    }

    /// SPIR-V version (default: the target environment's).
    pub fn spirv_version(&mut self, version: SpirvVersion) -> &mut Self {
        self.spirv_version = Some(version);
        self
    }

    /// Optimization level (default: size).
    pub fn optimization(&mut self, level: Optimization) -> &mut Self {
        self.optimization = level;
        self
    }

    /// Strips debug info (names, source text, line info) from what ships.
    /// Default: on when Cargo's `PROFILE` is `release`, off otherwise.
    pub fn strip_debug(&mut self, strip: bool) -> &mut Self {
        self.strip_debug = Some(strip);
        self
    }

    /// zstd level, 1–22 (default 19), for bundles and for embedded sets
    /// packed with zstd.
    pub fn zstd_level(&mut self, level: i32) -> &mut Self {
        self.zstd_level = level;
        self
    }

    /// Shared-dictionary policy (default: automatic).
    pub fn dictionary(&mut self, mode: DictionaryMode) -> &mut Self {
        self.dictionary = mode;
        self
    }

    /// How the embedded set (what `include_shaders!` and `include_shader!`
    /// put in the binary) is packed. Default: `SMOLV_PACKING` if set (`auto`,
    /// `raw`, `smolv`, `lz4`, `lz4-stream`, `zstd`, `zstd-stream`,
    /// `zstd-dictionary`), else [`Packing::Auto`], which picks the smallest
    /// total of stored bytes and the decoder code the packing links, for
    /// the [`size_goal`](Config::size_goal). This setter wins over the
    /// variable.
    ///
    /// ```no_run
    /// // build.rs: always ship SMOL-V + LZ4 as one stream.
    /// use smolv_build::{Config, Layout, Packing};
    /// Config::new().shader_dir("shaders").packing(Packing::Lz4 { layout: Layout::Stream }).compile();
    /// ```
    pub fn packing(&mut self, packing: Packing) -> &mut Self {
        self.packing = Some(packing);
        self
    }

    /// What [`Packing::Auto`] makes smallest: the binary as installed
    /// (default), or as downloaded after `xz -9` ([`SizeGoal::Download`]),
    /// for games whose store or installer compresses them. Default:
    /// `SMOLV_SIZE_GOAL` if set (`installed` or `download`), else
    /// installed. This setter wins over the variable.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").size_goal(smolv_build::SizeGoal::Download);
    /// ```
    pub fn size_goal(&mut self, goal: SizeGoal) -> &mut Self {
        self.size_goal = Some(goal);
        self
    }

    /// Where compiled modules are cached. Default: `SMOLV_CACHE_DIR`, else
    /// `smolv-cache` in Cargo's target directory, shared by every crate and
    /// profile of the workspace.
    pub fn cache_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.cache_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Where artifacts go. Default: Cargo's `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Worker threads. Default: Cargo's `NUM_JOBS`, else every core.
    pub fn jobs(&mut self, jobs: usize) -> &mut Self {
        self.jobs = Some(jobs.max(1));
        self
    }

    /// The `spirv-opt` binary that size-optimizes every module. Default: `SMOLV_SPIRV_OPT`, else
    /// `spirv-opt` on `PATH`.
    pub fn spirv_opt(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.spirv_opt = Some(path.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo:` directives. Default: when running under a
    /// build script (`OUT_DIR` is set and no `out_dir` was given).
    pub fn cargo_directives(&mut self, emit: bool) -> &mut Self {
        self.cargo_directives = Some(emit);
        self
    }

    /// Builds what compiles even when some shaders fail, and lists the
    /// failures in [`Report::failures`] instead of returning an error (what
    /// `cargo smolv build` does). Default: off, so one failure fails the build.
    pub fn keep_going(&mut self, keep_going: bool) -> &mut Self {
        self.keep_going = keep_going;
        self
    }

    /// Gives GLSL and HLSL shader inputs and outputs without a
    /// `layout(location = N)` one automatically, in declaration order (glslc's
    /// `-fauto-map-locations`). Default: off, so a missing location is an
    /// error, as Vulkan GLSL requires.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").auto_map_locations(true);
    /// ```
    pub fn auto_map_locations(&mut self, auto: bool) -> &mut Self {
        self.auto_map_locations = auto;
        self
    }

    /// Gives GLSL and HLSL uniforms, buffers, textures and images without a
    /// `layout(binding = N)` one automatically, in set 0 (glslc's
    /// `-fauto-bind-uniforms`). Default: off. Reflection data reports the
    /// bindings that were chosen.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").auto_bind_uniforms(true);
    /// ```
    pub fn auto_bind_uniforms(&mut self, auto: bool) -> &mut Self {
        self.auto_bind_uniforms = auto;
        self
    }

    /// Builds every shader. On failure, panics with a report that lists
    /// every error of every shader at `path:line:col`, which Cargo prints.
    pub fn compile(&self) -> Report {
        match self.try_compile() {
            Ok(report) => report,
            Err(error) => panic!("\n{error}\n"),
        }
    }

    /// Builds every shader, returning what was built or why it failed.
    pub fn try_compile(&self) -> Result<Report, Error> {
        crate::pipeline::run(self)
    }
}
