//! The [`Config`] builder: what to compile and how. Running it resolves
//! the builder and the environment into a [`Plan`] and hands that to
//! [`run`](crate::run::run).

use std::path::{Path, PathBuf};

use smolv_format::reflect::ShaderStage;

use crate::cache::remote::RemoteCacheMode;
use crate::cache::resolve_cache_dir;
use crate::compile::frontend;
use crate::compile::optimize;
use crate::env::{Env, cargo_var};
use crate::error::Error;
use crate::options::Language;
use crate::options::{
    BindingBase, Define, DictionaryMode, HlslOptions, Optimization, RegisterBinding, ResourceKind, SpirvVersion,
    TargetEnv, Variant,
};
use crate::options::{DeviceSpirv, Packing, RuntimeCodecs, SizeGoal, Target};
use crate::output::report::Report;
use crate::settings::{Inputs, PackSettings, Plan, Settings};

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
    pub(crate) programs: Vec<(String, Vec<String>)>,
    pub(crate) wesl_features: Vec<(String, bool)>,
    pub(crate) shader_wesl_features: Vec<(String, (String, bool))>,
    pub(crate) wesl_packages: Vec<(String, PathBuf)>,
    pub(crate) missing_language_advice: Option<String>,
    pub(crate) target_env: TargetEnv,
    pub(crate) spirv_version: Option<SpirvVersion>,
    pub(crate) optimization: Optimization,
    pub(crate) strip_debug: Option<bool>,
    pub(crate) keep_interface_names: bool,
    pub(crate) zstd_level: i32,
    pub(crate) dictionary: DictionaryMode,
    pub(crate) packing: Option<Packing>,
    pub(crate) size_goal: Option<SizeGoal>,
    pub(crate) target: Option<Target>,
    pub(crate) cache_dir: Option<PathBuf>,
    pub(crate) prepared_dir: Option<PathBuf>,
    pub(crate) out_dir: Option<PathBuf>,
    pub(crate) jobs: Option<usize>,
    pub(crate) spirv_opt: Option<PathBuf>,
    pub(crate) cargo_directives: Option<bool>,
    pub(crate) keep_going: bool,
    pub(crate) auto_map_locations: bool,
    pub(crate) auto_bind_uniforms: bool,
    pub(crate) wgsl_adjust_coordinate_space: Option<bool>,
    pub(crate) languages: Vec<(String, Language)>,
    pub(crate) hlsl_entry_point: Option<String>,
    pub(crate) hlsl: HlslOptions,
    pub(crate) binding_bases: Vec<BindingBase>,
    pub(crate) slangc: Option<PathBuf>,
    /// Setters in `remote_cache::settings`.
    pub(crate) remote_cache: crate::cache::remote::RemoteSettings,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// Defaults: Vulkan 1.0 (SPIR-V 1.0), optimize for size, strip debug info in release
    /// builds, the packing that makes the installed binary smallest, zstd
    /// level 19, automatic dictionary, Cargo's `NUM_JOBS`.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders");
    /// ```
    pub fn new() -> Self {
        Self {
            shader_dirs: Vec::new(),
            shader_files: Vec::new(),
            shader_globs: Vec::new(),
            include_dirs: Vec::new(),
            defines: Vec::new(),
            shader_defines: Vec::new(),
            variants: Vec::new(),
            programs: Vec::new(),
            wesl_features: Vec::new(),
            shader_wesl_features: Vec::new(),
            wesl_packages: Vec::new(),
            missing_language_advice: None,
            target_env: TargetEnv::default(),
            spirv_version: None,
            optimization: Optimization::default(),
            strip_debug: None,
            keep_interface_names: false,
            zstd_level: 19,
            dictionary: DictionaryMode::default(),
            packing: None,
            size_goal: None,
            target: None,
            cache_dir: None,
            prepared_dir: None,
            out_dir: None,
            jobs: None,
            spirv_opt: None,
            cargo_directives: None,
            keep_going: false,
            auto_map_locations: false,
            auto_bind_uniforms: false,
            wgsl_adjust_coordinate_space: None,
            languages: Vec::new(),
            hlsl_entry_point: None,
            hlsl: HlslOptions::default(),
            binding_bases: Vec::new(),
            slangc: None,
            remote_cache: Default::default(),
        }
    }

    /// Compiles every shader below `dir` (recursively). Module names are
    /// paths relative to it: `post/blur.comp`. Links to directories are
    /// followed, but each real directory is scanned once: a link that
    /// leads back into the tree (`shaders/all -> .`) is skipped with a
    /// warning.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").shader_dir("third_party/shaders");
    /// ```
    pub fn shader_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.shader_dirs.push(dir.as_ref().to_owned());
        self
    }

    /// Compiles one shader file; its module name is its file name.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader("assets/post.frag").shader("assets/sky.wgsl");
    /// ```
    pub fn shader(&mut self, file: impl AsRef<Path>) -> &mut Self {
        self.shader_files.push(file.as_ref().to_owned());
        self
    }

    /// Compiles the files matching a glob such as `shaders/**/*.frag`;
    /// module names are relative to the glob's fixed leading directory.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_glob("shaders/**/*.frag"); // shaders/ui/text.frag is the module `ui/text.frag`
    /// ```
    pub fn shader_glob(&mut self, pattern: impl Into<String>) -> &mut Self {
        self.shader_globs.push(pattern.into());
        self
    }

    /// Searched by `#include <...>`, and by `#include "..."` after the
    /// including file's own directory.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").include_dir("shaders/include");
    /// ```
    pub fn include_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.include_dirs.push(dir.as_ref().to_owned());
        self
    }

    /// `#define name value` for every GLSL and HLSL shader. WGSL has no
    /// preprocessor, so WGSL files do not see it (and a define given to a
    /// WGSL file alone, or through a variant, is an error).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").define("MAX_LIGHTS", "16");
    /// ```
    pub fn define(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.defines.push(Define { name: name.into(), value: Some(value.into()) });
        self
    }

    /// `#define name value` for one shader, by module name (`lit.frag`).
    /// A name that matches no shader is an error when the build runs.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").shader_define("blur.comp", "RADIUS", "4");
    /// ```
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
    ///
    /// ```
    /// use smolv_build::{Config, Variant};
    /// let mut config = Config::new();
    /// // lit.frag, lit.frag@shadows and lit.frag@fog
    /// config.shader_dir("shaders").variants(
    ///     "lit.frag",
    ///     [Variant::new("shadows").define("SHADOWS", "1"), Variant::new("fog").define("FOG", "1")],
    /// );
    /// ```
    pub fn variants(&mut self, shader: impl Into<String>, variants: impl IntoIterator<Item = Variant>) -> &mut Self {
        let shader = shader.into();
        self.variants.extend(variants.into_iter().map(|v| (shader.clone(), v)));
        self
    }

    /// Names a program: `modules` (module names, as `include_shader!`
    /// takes them) make one pipeline, and the generated types get a
    /// `pub mod` for it named after `name`, with the bindings and push
    /// constants of all its stages and its typed descriptor sets and bind
    /// groups (docs/types.md). Modules that share a base name
    /// (`tint.vert`, `tint.frag`) are a program without this; name one
    /// for modules that do not, as a vertex shader that several programs
    /// share. A program of the same name as a base name replaces it. A
    /// module that is not built, or modules that make no pipeline, are a
    /// warning.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").program("blur", ["fullscreen.vert", "blur.frag"]);
    /// ```
    pub fn program(
        &mut self,
        name: impl Into<String>,
        modules: impl IntoIterator<Item = impl Into<String>>,
    ) -> &mut Self {
        self.programs.push((name.into(), modules.into_iter().map(Into::into).collect()));
        self
    }

    /// Sets WESL's `@if` feature `name` to `value` for every WESL shader:
    /// WESL's counterpart of [`define`](Config::define). Features are
    /// booleans; one the build does not set is off. Other languages do not
    /// see them.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").wesl_feature("fog", true);
    /// ```
    pub fn wesl_feature(&mut self, name: impl Into<String>, value: bool) -> &mut Self {
        self.wesl_features.push((name.into(), value));
        self
    }

    /// Sets WESL's `@if` feature `name` to `value` for one WESL shader, by
    /// module name (`sky.wesl`), over what
    /// [`wesl_feature`](Config::wesl_feature) set. A name that matches no
    /// shader, or a shader in another language, is an error when the build
    /// runs. For more than one module of one source, use
    /// [`Variant::wesl_feature`].
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").shader_wesl_feature("sky.wesl", "stars", false);
    /// ```
    pub fn shader_wesl_feature(
        &mut self,
        shader: impl Into<String>,
        name: impl Into<String>,
        value: bool,
    ) -> &mut Self {
        self.shader_wesl_features.push((shader.into(), (name.into(), value)));
        self
    }

    /// What the error for a shader whose language this build has no
    /// compiler for tells the user to do, `{feature}` standing for the
    /// Cargo feature that adds it (`wesl`, `wgsl`, `glsl`). By default it
    /// names smolv-build's feature and `cargo smolv prepare`, which is
    /// right in a build script: ``enable smolv-build's `wesl` feature (in
    /// [build-dependencies]), or run `cargo smolv prepare` where the
    /// compilers are and commit the directory it writes``. A tool that links smolv-build, and whose
    /// users install it rather than depend on it, says how to install it
    /// with the feature; its features must then bear smolv-build's names.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.missing_language_advice("install the CLI with it: `cargo install cargo-smolv --features {feature}`");
    /// ```
    pub fn missing_language_advice(&mut self, advice: impl Into<String>) -> &mut Self {
        self.missing_language_advice = Some(advice.into());
        self
    }

    /// Makes the WESL files below `dir` (relative to the crate root) the
    /// package `name`: `import name::noise::hash;` in any WESL shader
    /// reads `dir/noise.wesl` (or `dir/noise.wgsl`), and
    /// `import name::a::b::item;` reads `dir/a/b.wesl`. Files of the
    /// shader directory itself need no package: `import package::…` and
    /// `import super::…` reach them. Package files are dependencies like
    /// any import: an edit rebuilds, misses the cache and hot-reloads.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").wesl_package("noise", "third_party/noise-wesl");
    /// ```
    pub fn wesl_package(&mut self, name: impl Into<String>, dir: impl AsRef<Path>) -> &mut Self {
        self.wesl_packages.push((name.into(), dir.as_ref().to_owned()));
        self
    }

    /// Target Vulkan version. Default: [`TargetEnv::Vulkan1_0`], whose
    /// SPIR-V 1.0 every Vulkan device accepts, as `glslc` and
    /// vulkano-shaders do. Raise it to match the `apiVersion` your
    /// application creates its instance with, when shaders need newer
    /// SPIR-V (subgroup operations need Vulkan 1.1, for example); the
    /// SPIR-V version follows ([`TargetEnv::default_spirv_version`]) unless
    /// [`spirv_version`](Config::spirv_version) sets it.
    ///
    /// GLSL, HLSL and WGSL compile to exactly the version asked for. Slang
    /// modules are SPIR-V 1.3 at least (`slangc` emits older versions only
    /// experimentally), so they need a Vulkan 1.1 device; precompiled `.spv`
    /// files keep the version they were written with.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").target_env(smolv_build::TargetEnv::Vulkan1_3);
    /// ```
    pub fn target_env(&mut self, env: TargetEnv) -> &mut Self {
        self.target_env = env;
        self
    }

    /// SPIR-V version (default: the target environment's). A version newer
    /// than the target environment takes raises the environment to the
    /// oldest one that takes it: SPIR-V 1.3 alone means Vulkan 1.1. One
    /// pair is read as it is: Vulkan 1.1 with SPIR-V 1.4 is a Vulkan 1.1
    /// device that enables VK_KHR_spirv_1_4 (the compilers still get the
    /// Vulkan 1.2 environment), so the build warns about modules newer
    /// than 1.4. Tell smolv's Vulkan layer too:
    /// `PipelineOptions::khr_spirv_1_4(true)`.
    ///
    /// ```
    /// use smolv_build::{Config, SpirvVersion, TargetEnv};
    /// let mut config = Config::new();
    /// // Vulkan 1.1 drivers, SPIR-V 1.3 modules.
    /// config.shader_dir("shaders").target_env(TargetEnv::Vulkan1_1).spirv_version(SpirvVersion::V1_3);
    /// ```
    pub fn spirv_version(&mut self, version: SpirvVersion) -> &mut Self {
        self.spirv_version = Some(version);
        self
    }

    /// Optimization level (default: size).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").optimization(smolv_build::Optimization::Performance);
    /// ```
    pub fn optimization(&mut self, level: Optimization) -> &mut Self {
        self.optimization = level;
        self
    }

    /// Strips debug info (names, source text, line info) from what ships.
    /// Default: on when Cargo's `PROFILE` is `release`, off otherwise.
    ///
    /// Stripped modules keep no names at all, as `glslc -Os` makes them, so
    /// reflection at run time (`Shader::reflection`) gives empty names. The
    /// build itself reflects before stripping: generated types and hot
    /// reload keep every name. To keep interface names at run time, see
    /// [`keep_interface_names`](Self::keep_interface_names).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").strip_debug(true); // in debug builds too
    /// ```
    pub fn strip_debug(&mut self, strip: bool) -> &mut Self {
        self.strip_debug = Some(strip);
        self
    }

    /// Ships the names a program reads at run time through reflection: of
    /// descriptor bindings (or their blocks), spec constants, and vertex
    /// inputs and fragment outputs. Only matters where debug info is
    /// stripped; the names come from the build's reflection, taken before
    /// stripping, and every other name is still dropped. Default: off,
    /// since names cost bytes that most programs never read (measured in
    /// `docs/size.md`, "Names at run time").
    ///
    /// Turn it on when the program looks shader resources up by name, e.g.
    /// `reflection.bindings.iter().find(|b| b.name == "camera")`: without
    /// it those names are empty in release builds.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").strip_debug(true).keep_interface_names(true);
    /// ```
    pub fn keep_interface_names(&mut self, keep: bool) -> &mut Self {
        self.keep_interface_names = keep;
        self
    }

    /// zstd level, 1–22 (default 19), for bundles and for embedded sets
    /// packed with zstd.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").zstd_level(22);
    /// ```
    pub fn zstd_level(&mut self, level: i32) -> &mut Self {
        self.zstd_level = level;
        self
    }

    /// Shared-dictionary policy (default: automatic).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").dictionary(smolv_build::DictionaryMode::Off);
    /// ```
    pub fn dictionary(&mut self, mode: DictionaryMode) -> &mut Self {
        self.dictionary = mode;
        self
    }

    /// How the embedded set (what `include_shaders!` and `include_shader!`
    /// put in the binary) is packed. Default: `SMOLV_PACKING` if set (one of
    /// [`Packing::NAMES`]: `auto`, `raw`, `relative-ids`, `relative-ids-lz4`,
    /// `relative-ids-lz4-stream`, `smolv`, `lz4`, `lz4-stream`, `zstd`,
    /// `zstd-stream`, `zstd-dictionary`), else [`Packing::Auto`], which picks the smallest
    /// total of stored bytes and the decoder code the packing links, for
    /// the [`size_goal`](Config::size_goal). This setter wins over the
    /// variable.
    ///
    /// ```no_run
    /// // build.rs: always ship SMOL-V + LZ4 as one stream.
    /// use smolv_build::{Config, Framing, Packing};
    /// Config::new().shader_dir("shaders").packing(Packing::Lz4 { framing: Framing::Stream }).compile();
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

    /// Builds for a game that draws through wgpu: the build ships WGSL or
    /// SPIR-V, whichever makes the game smaller with the naga front end
    /// each needs in it (wgpu's default `wgsl` feature, or its `spirv`
    /// one), by a measured cost table (docs/size.md#wgpu-targets); WGSL
    /// when the crate's smolv-runtime has `wgpu` without `wgpu-spirv`. WGSL is
    /// made from each module's SPIR-V by naga, minified and packed; the
    /// game reads it through `Shader::wgsl` (`None` for a shader that
    /// shipped SPIR-V, which `Shader::decode` gives). A shader naga cannot
    /// express as WGSL (a combined image sampler, for one) ships as SPIR-V,
    /// with a build warning naming it. [`for_wgpu_shipping`](Config::for_wgpu_shipping)
    /// forces one or the other. Needs smolv-build's `wgpu` feature.
    ///
    /// WGSL and WESL keep their `y` (see
    /// [`wgsl_adjust_coordinate_space`](Config::wgsl_adjust_coordinate_space)),
    /// so every shader draws what wgpu's own paths draw from its source.
    ///
    /// Default: `SMOLV_TARGET` if set (`vulkan`, `wgpu`, `wgpu-wgsl` or
    /// `wgpu-spirv`), else Vulkan; this setter wins over the variable.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").for_wgpu();
    /// ```
    pub fn for_wgpu(&mut self) -> &mut Self {
        self.target = Some(Target::Wgpu);
        self
    }

    /// Builds for wgpu as [`for_wgpu`](Config::for_wgpu) does, but ships
    /// WGSL (`wgsl: true`, SPIR-V only for the shaders naga refuses) or
    /// SPIR-V (`false`) whatever the cost table says.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").for_wgpu_shipping(true);
    /// ```
    pub fn for_wgpu_shipping(&mut self, wgsl: bool) -> &mut Self {
        self.target = Some(if wgsl { Target::WgpuWgsl } else { Target::WgpuSpirv });
        self
    }

    /// Builds SPIR-V for Vulkan, the default, whatever `SMOLV_TARGET` says
    /// (the way back from [`for_wgpu`](Config::for_wgpu)).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").for_wgpu().for_vulkan();
    /// ```
    pub fn for_vulkan(&mut self) -> &mut Self {
        self.target = Some(Target::Vulkan);
        self
    }

    /// Where compiled modules are cached. Default: `SMOLV_CACHE_DIR`, else
    /// `smolv-cache` in Cargo's target directory, shared by every crate and
    /// profile of the workspace.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").cache_dir("/var/cache/smolv");
    /// ```
    pub fn cache_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.cache_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// The project's prepared directory: compiled modules that `cargo smolv
    /// prepare` writes and the project commits, so that a build without
    /// the compilers (smolv-build's `glsl` feature off, say) takes its
    /// shaders from there. The build reads it after the local cache and
    /// before the remote one, and never writes it. A relative path starts
    /// at the crate root. Default: `.smolv` beside `Cargo.toml` (see
    /// `docs/prepare.md`).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// // One directory for every crate of the workspace.
    /// config.shader_dir("shaders").prepared_dir("../.smolv");
    /// ```
    pub fn prepared_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.prepared_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Where artifacts go. Default: Cargo's `OUT_DIR`.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// // Outside a build script, for a tool: no OUT_DIR there.
    /// config.shader_dir("shaders").out_dir("target/shaders").cargo_directives(false);
    /// ```
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Worker threads. Default: Cargo's `NUM_JOBS`, else every core. Under
    /// Cargo, each compile also runs on a token from Cargo's jobserver (as
    /// cc's do), so the shader crates of a workspace building at once
    /// together keep to `cargo build -j N`.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").jobs(2);
    /// ```
    pub fn jobs(&mut self, jobs: usize) -> &mut Self {
        self.jobs = Some(jobs.max(1));
        self
    }

    /// A `spirv-opt` binary to size-optimize every module with, instead of the SPIRV-Tools that
    /// the `optimizer` feature links in (and runs in the build's worker processes). Default:
    /// `SMOLV_SPIRV_OPT`, else none: `spirv-opt` is never looked up on `PATH`. The binary's
    /// `--version` is then part of every cache key.
    ///
    /// A module the optimizer fails on ships unoptimized, with a warning. If it refused the
    /// module with a message, that result is cached like any other. If it could not start or
    /// did not finish (a crash, an OOM kill), it is tried once more, and a second failure is
    /// neither cached nor uploaded: the next build optimizes the module again.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").spirv_opt("/opt/vulkan-sdk/bin/spirv-opt");
    /// ```
    pub fn spirv_opt(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.spirv_opt = Some(path.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo:` directives. Default: when running under a
    /// build script (`OUT_DIR` is set and no `out_dir` was given).
    ///
    /// With directives on, standard output is kept for Cargo while shaders
    /// compile: glslang, compiling in this process, prints to standard
    /// output on some inputs, so until the compiles end, standard output
    /// (descriptor 1, for every thread and for child processes) passes on
    /// only lines that start with `cargo:`, yours included, and sends every
    /// other line to stderr.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").out_dir("target/shaders").cargo_directives(false);
    /// ```
    pub fn cargo_directives(&mut self, emit: bool) -> &mut Self {
        self.cargo_directives = Some(emit);
        self
    }

    /// Builds what compiles even when some shaders fail, and lists the
    /// failures in [`Report::failures`] instead of returning an error (what
    /// `cargo smolv build` does). Default: off, so one failure fails the build.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").out_dir("target/shaders").keep_going(true);
    /// // let report = config.try_compile()?;
    /// // for failed in &report.failures { eprintln!("{}: {}", failed.name, failed.errors.join("\n")); }
    /// ```
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

    /// Whether WGSL and WESL vertex (and other pre-rasterization) shaders
    /// have the `y` of their `@builtin(position)` output negated, naga's
    /// `ADJUST_COORDINATE_SPACE`. WGSL's normalized device coordinates have
    /// `y` up, Vulkan's `y` down.
    ///
    /// Default: on for Vulkan, so that a WGSL shader written for WebGPU
    /// draws the same way up on Vulkan; off for wgpu
    /// ([`for_wgpu`](Config::for_wgpu), [`for_wgpu_shipping`](Config::for_wgpu_shipping),
    /// `SMOLV_TARGET=wgpu…`), whose Vulkan backend flips the viewport
    /// itself: a WGSL shader then draws what `wgpu::include_wgsl!` draws,
    /// whether it ships as WGSL, as SPIR-V or through passthrough
    /// (docs/wgpu.md#which-way-up). Turn it off for Vulkan when WGSL and
    /// GLSL shaders share a pass and the WGSL ones already use Vulkan's
    /// convention, as GLSL does: then both see the same NDC `y`. Turning it
    /// on for wgpu draws WGSL upside down there.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").wgsl_adjust_coordinate_space(false);
    /// ```
    pub fn wgsl_adjust_coordinate_space(&mut self, adjust: bool) -> &mut Self {
        self.wgsl_adjust_coordinate_space = Some(adjust);
        self
    }

    /// States the language of the GLSL-or-HLSL shaders in a directory
    /// (everything below it), a glob, or one file, relative to the crate
    /// root: glslc's `-x glsl` / `-x hlsl`. Real HLSL trees often name
    /// files by stage like GLSL (`triangle.vert`), which are otherwise read
    /// as GLSL. When several cover a file, the last one wins. It applies to
    /// files named by stage, `.glsl` and `.hlsl`; WGSL, Slang and SPIR-V
    /// are known by their extension, and stating them is an error, as is a
    /// pattern that covers no shader.
    ///
    /// ```
    /// use smolv_build::{Config, Language};
    /// let mut config = Config::new();
    /// config
    ///     .shader_dir("shaders")
    ///     .language("shaders/hlsl", Language::Hlsl) // a directory
    ///     .language("shaders/**/*.ps.vert", Language::Hlsl) // a glob
    ///     .language("shaders/hlsl/legacy.frag", Language::Glsl); // a file
    /// ```
    pub fn language(&mut self, path_or_glob: impl Into<String>, language: Language) -> &mut Self {
        self.languages.push((path_or_glob.into(), language));
        self
    }

    /// The entry point function of HLSL shaders (glslc's `-fentry-point`).
    /// Default: `main`.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").hlsl_entry_point("VSMain");
    /// ```
    pub fn hlsl_entry_point(&mut self, name: impl Into<String>) -> &mut Self {
        self.hlsl_entry_point = Some(name.into());
        self
    }

    /// Picks the binding shift of an HLSL resource by its register class
    /// (`t`, `s`, `b`, `u`) rather than by its type, as DXC does (glslc's
    /// `-fhlsl-iomap`): with it, a `StructuredBuffer` in `register(t1)` is
    /// shifted by the [`ResourceKind::Texture`] base, not the
    /// [`ResourceKind::StorageBuffer`] one. Default: off.
    ///
    /// ```
    /// use smolv_build::{Config, ResourceKind};
    /// let mut config = Config::new();
    /// config.shader_dir("shaders").hlsl_io_mapping(true).binding_base(ResourceKind::Texture, 20);
    /// ```
    pub fn hlsl_io_mapping(&mut self, on: bool) -> &mut Self {
        self.hlsl.io_mapping = on;
        self
    }

    /// Lays out GLSL uniform and storage blocks with HLSL's packing rules
    /// for member offsets (glslc's `-fhlsl-offsets`): a `vec2` after a
    /// `float` sits at offset 4, not 8. HLSL always uses those rules.
    /// Default: off.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").hlsl_offsets(true);
    /// ```
    pub fn hlsl_offsets(&mut self, on: bool) -> &mut Self {
        self.hlsl.offsets = on;
        self
    }

    /// Places HLSL register `register` (`b0`, `t3`, `u1`, `s2`) at
    /// descriptor `set` and `binding`, in every stage (glslc's
    /// `-fresource-set-binding <reg> <set> <binding>`).
    ///
    /// ```
    /// use smolv_build::{Config, ResourceKind};
    /// let mut config = Config::new();
    /// config
    ///     .shader_dir("shaders")
    ///     .hlsl_register_binding("b0", 1, 0)
    ///     .binding_base(ResourceKind::Texture, 16); // t0 → binding 16
    /// ```
    pub fn hlsl_register_binding(&mut self, register: impl Into<String>, set: u32, binding: u32) -> &mut Self {
        self.hlsl.register_bindings.push(RegisterBinding { stage: None, register: register.into(), set, binding });
        self
    }

    /// Like [`hlsl_register_binding`](Config::hlsl_register_binding), for
    /// shaders of one stage only (`-fresource-set-binding <stage> …`).
    pub fn hlsl_register_binding_for_stage(
        &mut self,
        stage: ShaderStage,
        register: impl Into<String>,
        set: u32,
        binding: u32,
    ) -> &mut Self {
        self.hlsl.register_bindings.push(RegisterBinding {
            stage: Some(stage),
            register: register.into(),
            set,
            binding,
        });
        self
    }

    /// Makes HLSL's `half`, `min16float`, `min16int`, `uint16_t` and their
    /// vectors real 16-bit types (glslc's `-fhlsl-16bit-types`): the
    /// SPIR-V declares `Float16`/`Int16` and computes at 16 bits, where
    /// without it they are 32-bit types marked `RelaxedPrecision`. The
    /// device must support `shaderFloat16`/`shaderInt16` (and 16-bit
    /// storage for 16-bit members of buffers and interfaces). Default: off.
    ///
    /// glslang compiles them in process, like every HLSL shader (its
    /// `EShMsgHlslEnable16BitTypes`). GLSL is not affected: it names
    /// 16-bit types itself (`float16_t`).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders/hlsl").hlsl_16bit_types(true);
    /// ```
    pub fn hlsl_16bit_types(&mut self, on: bool) -> &mut Self {
        self.hlsl.sixteen_bit_types = on;
        self
    }

    /// Did nothing but name the `glslc` binary that compiled HLSL with
    /// [`hlsl_16bit_types`](Config::hlsl_16bit_types); glslang compiles
    /// those in process now, and no `glslc` is run.
    #[deprecated(note = "HLSL with 16-bit types is compiled in process by glslang; no glslc is run")]
    pub fn glslc(&mut self, path: impl AsRef<Path>) -> &mut Self {
        let _ = path.as_ref();
        self
    }

    /// The lowest binding given to resources of `kind` (glslc's
    /// `-f<kind>-binding-base`, such as `-fubo-binding-base`): HLSL
    /// registers of that kind are shifted by `base`, and GLSL resources
    /// bound automatically ([`auto_bind_uniforms`](Config::auto_bind_uniforms))
    /// start there.
    pub fn binding_base(&mut self, kind: ResourceKind, base: u32) -> &mut Self {
        self.binding_bases.push(BindingBase { stage: None, kind, base });
        self
    }

    /// Like [`binding_base`](Config::binding_base), for shaders of one
    /// stage only (`-f<kind>-binding-base <stage> <base>`).
    pub fn binding_base_for_stage(&mut self, stage: ShaderStage, kind: ResourceKind, base: u32) -> &mut Self {
        self.binding_bases.push(BindingBase { stage: Some(stage), kind, base });
        self
    }

    /// The `slangc` binary that compiles `.slang` files. Default:
    /// `SMOLV_SLANGC`, else `slangc` on `PATH`. The Vulkan SDK ships it, and
    /// so does the `slangtorch` Python wheel (`pip install --no-deps
    /// slangtorch`; it is in `slangtorch/bin/`).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.shader_dir("shaders").slangc("/opt/vulkan-sdk/bin/slangc");
    /// ```
    pub fn slangc(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.slangc = Some(path.as_ref().to_owned());
        self
    }

    /// Builds every shader; on failure, reports the errors and ends the
    /// process without a panic.
    ///
    /// Under a build script, each error is one `cargo::error=` line,
    /// `path:line:col: message`, which Cargo shows once as
    /// `error: <crate>: path:line:col: message`. A last line names the
    /// build's log, `OUT_DIR/smolv-build.log`, which holds the errors in
    /// full (naga's annotated source included). A shader that crashes the
    /// compiler is one of those errors, naming the signal: the compilers
    /// run in worker processes (see [`worker_main`](Config::worker_main)).
    /// The build script then exits with status 0: Cargo fails
    /// the build on its own, because errors were logged (Cargo 1.84 and
    /// later), and prints nothing more, where a non-zero status would make
    /// it print the script's whole output again. Outside a build script
    /// ([`cargo_directives`](Config::cargo_directives) off), the errors go
    /// to stderr and the process exits with status 1.
    ///
    /// Code after `compile()` runs only when the build succeeded. To handle
    /// a failure yourself, call [`try_compile`](Config::try_compile).
    ///
    /// ```no_run
    /// // build.rs
    /// fn main() {
    ///     let report = smolv_build::Config::new().shader_dir("shaders").compile();
    ///     println!("cargo:warning={} modules, {} bytes in the bundle", report.modules.len(), report.total_bundle_bytes);
    /// }
    /// ```
    pub fn compile(&self) -> Report {
        match self.try_compile() {
            Ok(report) => report,
            Err(error) => {
                // Planned again without watching: `try_compile` watched.
                let plan = self.plan_reading(Env::default()).ok();
                let log = plan.map(|plan| plan.out_dir.join(crate::output::build_log::LOG_FILE));
                let log = log.filter(|log| log.is_file() && matches!(error, Error::Compile { .. }));
                if self.prints_cargo_directives() {
                    crate::output::emit::cargo_errors(&error, log.as_deref())
                        .iter()
                        .for_each(|line| println!("{line}"));
                    use std::io::Write;
                    let _ = std::io::stdout().flush();
                    std::process::exit(0)
                }
                eprintln!("{error}");
                if let Some(log) = log {
                    eprintln!("the build's log: {}", log.display());
                }
                std::process::exit(1)
            }
        }
    }

    /// Builds every shader, returning what was built or why it failed.
    ///
    /// A whole build outside Cargo, of a precompiled SPIR-V module (no
    /// shader compiler needed):
    ///
    /// ```
    /// use smolv_build::Config;
    /// let dir = tempfile::tempdir()?;
    /// let spirv: Vec<u8> = smolv_format::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
    /// std::fs::create_dir(dir.path().join("shaders"))?;
    /// std::fs::write(dir.path().join("shaders/fill.comp.spv"), spirv)?;
    ///
    /// let report = Config::new()
    ///     .shader_dir(dir.path().join("shaders"))
    ///     .out_dir(dir.path().join("out"))
    ///     .cache_dir(dir.path().join("cache"))
    ///     .cargo_directives(false)
    ///     .try_compile()?;
    /// assert_eq!(report.modules[0].name, "fill.comp.spv");
    /// assert!(dir.path().join("out/smolv/manifest.json").is_file());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_compile(&self) -> Result<Report, Error> {
        // A build script started again as a compiler worker serves here.
        crate::compile::worker::serve_if_asked();
        crate::run::run(&self.plan()?)
    }

    /// Serves as a shader compiler worker if this process was started as
    /// one, and never returns then; otherwise returns at once, having noted
    /// that this program can serve as a worker.
    ///
    /// smolv-build compiles GLSL, HLSL and WGSL in worker processes, so that
    /// a compiler crash fails one shader, not the whole build. A worker is
    /// this same program started again with an environment variable set,
    /// which it must notice before doing anything else:
    /// - a build script needs nothing: on Linux its workers serve before
    ///   `main` runs (smolv-build's constructor), so what `main` does
    ///   before `compile()` runs once per build. Elsewhere `compile()` and
    ///   `try_compile()` serve, so call them first in `main`, or call
    ///   `worker_main()` at its top;
    /// - any other program that builds shaders (a tool, a game with hot
    ///   reload through `smolv_reload::worker_main`) calls `worker_main()`
    ///   first in `main`. Without it, the compilers run in its own process,
    ///   where a crash ends it.
    ///
    /// ```no_run
    /// // The first line of the program's `main`:
    /// smolv_build::Config::worker_main();
    /// // ... the program itself.
    /// ```
    pub fn worker_main() {
        crate::compile::worker::main_hook();
    }

    /// Whether the build prints `cargo:` directives: as set, else when it
    /// runs under a build script with the default output directory.
    fn prints_cargo_directives(&self) -> bool {
        self.cargo_directives.unwrap_or(self.out_dir.is_none() && cargo_var("OUT_DIR").is_some())
    }

    /// The inputs, relative paths resolved against `base`.
    pub(crate) fn inputs(&self, base: &Path) -> Inputs {
        Inputs {
            base: base.to_owned(),
            shader_dirs: self.shader_dirs.clone(),
            shader_files: self.shader_files.clone(),
            shader_globs: self.shader_globs.clone(),
            defines: self.defines.clone(),
            shader_defines: self.shader_defines.clone(),
            variants: self.variants.clone(),
            wesl_features: self.wesl_features.clone(),
            shader_wesl_features: self.shader_wesl_features.clone(),
            languages: self.languages.clone(),
            hlsl_entry_point: self.hlsl_entry_point.clone(),
        }
    }

    /// Resolves the builder and the environment (`CARGO_MANIFEST_DIR`,
    /// `OUT_DIR`, `PROFILE`, `NUM_JOBS`, the `SMOLV_*` variables) into
    /// what the build runs on; a build that prints Cargo directives
    /// watches the variables it reads (see the `env` module).
    pub(crate) fn plan(&self) -> Result<Plan, Error> {
        self.plan_reading(Env::watching(self.prints_cargo_directives()))
    }

    fn plan_reading(&self, env: Env) -> Result<Plan, Error> {
        // Outside Cargo, relative paths stay relative (an empty base, not
        // `.`, so that messages say `shaders/a.frag`, not `./shaders/a.frag`).
        let base = cargo_var("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
        let out_dir = match (&self.out_dir, cargo_var("OUT_DIR")) {
            (Some(dir), _) => base.join(dir),
            (None, Some(dir)) => PathBuf::from(dir),
            (None, None) => {
                return Err(Error::Config(
                    "OUT_DIR is not set: call smolv-build from a build script, or set Config::out_dir".into(),
                ));
            }
        };
        if let Some(bad) = self.hlsl.register_bindings.iter().find(|b| !is_register_name(&b.register)) {
            return Err(Error::Config(format!(
                "hlsl_register_binding: {:?} is not an HLSL register; name one like b0, t3, u1 or s2",
                bad.register
            )));
        }
        if let Some((name, _)) = self.wesl_packages.iter().find(|(name, _)| !is_wesl_package_name(name)) {
            return Err(Error::Config(format!(
                "wesl_package: {name:?} cannot name a WESL package; use an identifier (letters, digits and `_`, \
                 not starting with a digit) other than package, self, super and constants"
            )));
        }
        if let Some((_, dir)) = self.wesl_packages.iter().find(|(_, dir)| !base.join(dir).is_dir()) {
            return Err(Error::io(
                base.join(dir),
                std::io::Error::from(std::io::ErrorKind::NotFound),
                "Config::wesl_package must name an existing directory (relative paths start at the crate root)",
            ));
        }
        let spirv_version = self.spirv_version.unwrap_or(self.target_env.default_spirv_version());
        let packing = packing_options(self, |name| env.var(name))?;
        // Read only to stay watched (see `env::WATCHED`).
        let _ = env.var_os("SMOLV_GLSLC");
        let settings = Settings {
            // A SPIR-V version the environment cannot take raises it:
            // `spirv_version(V1_3)` alone means Vulkan 1.1.
            target_env: self.target_env.accepting(spirv_version.word()),
            spirv_version,
            optimization: self.optimization,
            strip_debug: self.strip_debug.unwrap_or_else(|| cargo_var("PROFILE").as_deref() == Some("release")),
            keep_interface_names: self.keep_interface_names,
            include_dirs: self.include_dirs.iter().map(|d| base.join(d)).collect(),
            spirv_opt: optimize::find_spirv_opt(self.spirv_opt.as_deref(), env),
            auto_map_locations: self.auto_map_locations,
            auto_bind_uniforms: self.auto_bind_uniforms,
            wgsl_adjust_coordinate_space: self
                .wgsl_adjust_coordinate_space
                .unwrap_or(packing.target.adjusts_wgsl_position()),
            binding_bases: self.binding_bases.clone(),
            hlsl: self.hlsl.clone(),
            slangc: frontend::find_slangc(self.slangc.as_deref(), env),
            wesl_packages: self.wesl_packages.iter().map(|(name, dir)| (name.clone(), base.join(dir))).collect(),
            missing_language_advice: self.missing_language_advice.clone(),
        };
        Ok(Plan {
            inputs: self.inputs(&base),
            settings,
            device: DeviceSpirv::new(self.target_env, self.spirv_version),
            cache_dir: resolve_cache_dir(self.cache_dir.as_deref(), &out_dir, env),
            out_dir,
            threads: self.jobs.or_else(|| cargo_var("NUM_JOBS").and_then(|n| n.parse().ok())).unwrap_or(0),
            dictionary: self.dictionary,
            zstd_level: self.zstd_level,
            packing,
            keep_going: self.keep_going,
            directives: self.prints_cargo_directives(),
            print_report: env.var("SMOLV_REPORT").is_some_and(|v| v != "0"),
            remote_cache: self.remote_cache.clone(),
            // Outside a crate (the CLI), only where the caller says.
            // Without `..`: crates that share one directory (`../.smolv`)
            // must name it alike, or each one's prepare run would remove
            // the others' entries.
            prepared_dir: match &self.prepared_dir {
                Some(dir) => Some(crate::output::emit::normalized(&base.join(dir))),
                None => (!base.as_os_str().is_empty()).then(|| base.join(crate::cache::prepared::DEFAULT_DIR)),
            },
            prepare_session: env.var(crate::cache::prepared::PREPARE_ENV).map(PathBuf::from),
            programs: self.programs.clone(),
        })
    }
}

/// A name `import name::…` can use for a package: an identifier, and not
/// one of the names WESL gives a meaning of its own.
fn is_wesl_package_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_"
        && !["package", "self", "super", "constants"].contains(&name)
}

/// An HLSL register name: a letter and a number (`b0`, `t12`).
fn is_register_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && !chars.as_str().is_empty()
        && chars.all(|c| c.is_ascii_digit())
}

/// The packing and goal: the [`Config`] setters, else `SMOLV_PACKING` and
/// `SMOLV_SIZE_GOAL` (looked up with `var`), else the defaults. A variable
/// naming nothing known is an error rather than a silent default.
fn packing_options(config: &Config, var: impl Fn(&str) -> Option<String>) -> Result<PackSettings, Error> {
    let packing = match (config.packing, var("SMOLV_PACKING")) {
        (Some(packing), _) => packing,
        (None, Some(text)) => Packing::parse(text.trim()).ok_or_else(|| {
            Error::Config(format!("SMOLV_PACKING={text:?} is not one of {}", Packing::NAMES.join(", ")))
        })?,
        (None, None) => Packing::default(),
    };
    let goal = match (config.size_goal, var("SMOLV_SIZE_GOAL")) {
        (Some(goal), _) => goal,
        (None, Some(text)) => SizeGoal::parse(text.trim())
            .ok_or_else(|| Error::Config(format!("SMOLV_SIZE_GOAL={text:?} is not one of installed, download")))?,
        (None, None) => SizeGoal::default(),
    };
    let target = match (config.target, var("SMOLV_TARGET")) {
        (Some(target), _) => target,
        (None, Some(text)) => Target::parse(text.trim()).ok_or_else(|| {
            Error::Config(format!("SMOLV_TARGET={text:?} is not one of {}", Target::NAMES.join(", ")))
        })?,
        (None, None) => Target::default(),
    };
    if target.may_ship_wgsl() && !cfg!(feature = "wgpu") {
        return Err(Error::Config(format!(
            "target {} makes WGSL with naga: enable smolv-build's `wgpu` feature, or ship SPIR-V \
             (`Config::for_wgpu_shipping(false)`, SMOLV_TARGET=wgpu-spirv, `--target-api wgpu-spirv`)",
            target.name()
        )));
    }
    let runtime = RuntimeCodecs::from_env(var);
    Ok(PackSettings { packing, goal, zstd_level: config.zstd_level, runtime, target })
}

/// The remote cache (feature `remote-cache`; `cache::remote` does the work).
impl Config {
    /// Adds a second cache level on a server that speaks Bazel's HTTP
    /// remote-cache protocol (bazel-remote, nginx with WebDAV `PUT`,
    /// BuildBuddy, NativeLink, …): `http(s)://host[:port][/prefix]`. On a
    /// local miss the build asks the server; after compiling it uploads
    /// (unless [`remote_cache_mode`](Config::remote_cache_mode) is
    /// read-only). Default: `SMOLV_REMOTE_CACHE`, else none. Needs the
    /// `remote-cache` feature (the `cargo smolv` CLI has it).
    ///
    /// The remote never fails a build: a corrupt or truncated entry is a
    /// miss with a warning, and the first connection failure or timeout
    /// (a few seconds) turns the remote off for the rest of the build, with
    /// one warning. So does reaching its time limit
    /// ([`remote_cache_time_limit`](Config::remote_cache_time_limit)).
    /// Entries over 64 MiB are neither uploaded nor downloaded.
    /// `docs/format.md` describes what is stored.
    ///
    /// ```no_run
    /// // build.rs of a developer machine: read what CI uploaded.
    /// use smolv_build::{cache::RemoteCacheMode, Config};
    /// Config::new()
    ///     .shader_dir("shaders")
    ///     .remote_cache("https://cache.example.com/shaders")
    ///     .remote_cache_mode(RemoteCacheMode::ReadOnly)
    ///     .compile();
    /// ```
    pub fn remote_cache(&mut self, url: impl Into<String>) -> &mut Self {
        self.remote_cache.url = Some(url.into());
        self
    }

    /// Whether the build uploads to the remote cache, only reads it, or
    /// ignores it. Default: `SMOLV_REMOTE_CACHE_MODE` (`read-write`,
    /// `read-only` or `off`), else read-write.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.remote_cache_mode(smolv_build::cache::RemoteCacheMode::Off); // even if SMOLV_REMOTE_CACHE is set
    /// ```
    pub fn remote_cache_mode(&mut self, mode: RemoteCacheMode) -> &mut Self {
        self.remote_cache.mode = Some(mode);
        self
    }

    /// One header sent with every remote-cache request, as `Name: value`
    /// (for example `Authorization: Bearer <token>`). Default:
    /// `SMOLV_REMOTE_CACHE_HEADER`. It is never printed, never written to
    /// the report and never shown by `{:?}`, and Cargo is not asked to
    /// watch the variable (it would store its value in its fingerprints).
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.remote_cache_header("Authorization: Bearer not-a-real-token");
    /// assert!(!format!("{config:?}").contains("not-a-real-token"));
    /// ```
    pub fn remote_cache_header(&mut self, header: impl Into<String>) -> &mut Self {
        self.remote_cache.header = Some(header.into());
        self
    }

    /// The most the remote cache may add to one build: the time the build
    /// waits on it, in all (the lookups before compiling, the uploads still
    /// running at the end). Once it is spent, the remote is off for the
    /// rest of the build, with one warning. Default:
    /// `SMOLV_REMOTE_CACHE_TIME_LIMIT` (seconds, like `30` or `2.5`), else
    /// 30 seconds.
    ///
    /// ```
    /// let mut config = smolv_build::Config::new();
    /// config.remote_cache_time_limit(std::time::Duration::from_secs(10)); // a slow link: give up sooner
    /// ```
    pub fn remote_cache_time_limit(&mut self, limit: std::time::Duration) -> &mut Self {
        self.remote_cache.time_limit = Some(limit);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn packing_and_goal_come_from_setters_then_variables_then_defaults() {
        let mut config = Config::new();
        let defaults = packing_options(&config, vars(&[])).unwrap();
        assert_eq!((defaults.packing, defaults.goal), (Packing::Auto, SizeGoal::Installed));
        let from_env =
            packing_options(&config, vars(&[("SMOLV_PACKING", "zstd-stream"), ("SMOLV_SIZE_GOAL", "download")]))
                .unwrap();
        let zstd_stream = Packing::Zstd { framing: crate::options::Framing::Stream };
        assert_eq!((from_env.packing, from_env.goal), (zstd_stream, SizeGoal::Download));
        config.packing(Packing::Raw).size_goal(SizeGoal::Installed);
        let set = packing_options(&config, vars(&[("SMOLV_PACKING", "lz4"), ("SMOLV_SIZE_GOAL", "download")])).unwrap();
        assert_eq!((set.packing, set.goal), (Packing::Raw, SizeGoal::Installed), "setters win");
    }

    #[test]
    fn unknown_packing_or_goal_values_are_config_errors() {
        let config = Config::new();
        let error = packing_options(&config, vars(&[("SMOLV_PACKING", "brotli")])).unwrap_err();
        assert!(matches!(&error, Error::Config(why) if why.contains("\"brotli\"") && why.contains("lz4-stream")));
        let error = packing_options(&config, vars(&[("SMOLV_SIZE_GOAL", "tiny")])).unwrap_err();
        assert!(matches!(&error, Error::Config(why) if why.contains("installed, download")));
    }

    #[test]
    fn register_names_are_a_letter_and_a_number() {
        assert!(is_register_name("b0") && is_register_name("t12"));
        assert!(!is_register_name("b") && !is_register_name("0b") && !is_register_name("b\0") && !is_register_name(""));
        let mut config = Config::new();
        config.out_dir("out").hlsl_register_binding("b\0", 0, 0);
        assert!(matches!(config.plan(), Err(Error::Config(why)) if why.contains("not an HLSL register")));
    }

    #[test]
    fn wgsl_keeps_its_y_for_wgpu_and_has_it_negated_for_vulkan_unless_set() {
        let adjusts = |config: &mut Config| config.out_dir("out").plan().unwrap().settings.wgsl_adjust_coordinate_space;
        assert!(adjusts(Config::new().for_vulkan()));
        assert!(!adjusts(Config::new().for_wgpu_shipping(false)));
        if cfg!(feature = "wgpu") {
            assert!(!adjusts(Config::new().for_wgpu()));
            assert!(!adjusts(Config::new().for_wgpu_shipping(true)));
        }
        assert!(adjusts(Config::new().for_wgpu_shipping(false).wgsl_adjust_coordinate_space(true)), "the setter wins");
        assert!(!adjusts(Config::new().for_vulkan().wgsl_adjust_coordinate_space(false)));
    }

    #[test]
    fn cargo_reruns_the_build_when_a_packing_variable_changes() {
        let knobs = crate::env::WATCHED;
        assert!(knobs.contains(&"SMOLV_PACKING") && knobs.contains(&"SMOLV_SIZE_GOAL"));
    }

    #[test]
    fn the_prepared_directory_is_dot_smolv_at_the_crate_root_unless_configured() {
        // `cargo test` runs in the crate's directory with CARGO_MANIFEST_DIR set, as a build script does.
        let base = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let plan = Config::new().out_dir("out").plan().unwrap();
        assert_eq!(plan.prepared_dir, Some(base.join(".smolv")));
        let plan = Config::new().out_dir("out").prepared_dir("../.smolv").plan().unwrap();
        let parent = base.parent().unwrap();
        assert_eq!(plan.prepared_dir, Some(parent.join(".smolv")), "relative to the crate root, without `..`");
        // Two crates of a workspace sharing it name it alike.
        let from_b = Config::new().out_dir("out").prepared_dir("../b/../.smolv").plan().unwrap();
        assert_eq!(from_b.prepared_dir, plan.prepared_dir);
        assert_eq!(crate::output::emit::normalized(Path::new("../x/./y/..")), Path::new("../x"));
        assert!(crate::env::WATCHED.contains(&"SMOLV_PREPARE"), "a new session must rerun the build script");
    }

    #[test]
    fn remote_cache_setters_fill_the_remote_settings() {
        let mut config = Config::new();
        config.remote_cache("https://other").remote_cache_mode(RemoteCacheMode::ReadOnly).remote_cache_header("A: b");
        config.remote_cache_time_limit(std::time::Duration::from_secs(3));
        let settings = &config.remote_cache;
        assert_eq!(settings.time_limit, Some(std::time::Duration::from_secs(3)));
        assert_eq!(settings.url.as_deref(), Some("https://other"));
        assert_eq!(settings.mode, Some(RemoteCacheMode::ReadOnly));
        assert_eq!(settings.header.as_deref(), Some("A: b"));
    }
}
