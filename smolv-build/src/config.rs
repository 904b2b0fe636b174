//! The [`Config`] builder: what to compile and how, resolved with the
//! environment into a [`Plan`] for [`run`](crate::run::run).

use std::path::{Path, PathBuf};

use smolv_format::reflect::ShaderStage;

use crate::cache::remote::RemoteCacheMode;
use crate::cache::resolve_cache_dir;
use crate::compile::frontend;
use crate::compile::optimize;
use crate::env::{Env, cargo_var, setting};
use crate::error::Error;
use crate::options::Language;
use crate::options::{
    BindingBase, Define, DictionaryMode, HlslOptions, Optimization, RegisterBinding, ResourceKind, SpirvVersion,
    TargetEnv, Variant,
};
use crate::options::{DeviceSpirv, Packing, RuntimeCodecs, SizeGoal, Target};
use crate::output::report::Report;
use crate::settings::{Inputs, PackSettings, Plan, Settings};

/// The builder's plain setters, one row each: `name(args) => field = value;` sets a field, `name(args) => list +=
/// item;` pushes onto one; each returns `self` for chaining.
macro_rules! setters {
    () => {};
    ($(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) => $($field:ident).+ = $value:expr; $($rest:tt)*) => {
        $(#[$attr])* pub fn $name(&mut self, $($arg: $ty),*) -> &mut Self {
            self.$($field).+ = $value;
            self
        }
        setters!($($rest)*);
    };
    ($(#[$attr:meta])* $name:ident($($arg:ident: $ty:ty),*) => $($field:ident).+ += $value:expr; $($rest:tt)*) => {
        $(#[$attr])* pub fn $name(&mut self, $($arg: $ty),*) -> &mut Self {
            self.$($field).+.push($value);
            self
        }
        setters!($($rest)*);
    };
}

/// Configures and runs the shader build. Setters take `&mut self` and return it; those for one shader take its
/// module name (`lit.frag`), and one that names none fails the build. A setter wins over its `SMOLV_*` variable
/// ([crate docs](crate#environment)); relative paths start at the crate root.
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
#[derive(Clone, Debug, Default)]
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
    zstd_level: ZstdLevel,
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
    pub(crate) remote_cache: crate::cache::remote::RemoteSettings,
}

/// zstd's level: 19 unless set; `{:?}` shows the number alone.
#[derive(Clone, Copy)]
struct ZstdLevel(i32);

impl Default for ZstdLevel {
    fn default() -> Self {
        Self(19)
    }
}

impl std::fmt::Debug for ZstdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl Config {
    /// A builder with every setting at its default.
    ///
    /// ```
    /// smolv_build::Config::new().shader_dir("shaders");
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    setters! {
        /// Compiles every shader below `dir` (following links), named by its relative path: `post/blur.comp`.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").shader_dir("third_party/shaders");
        /// ```
        shader_dir(dir: impl AsRef<Path>) => shader_dirs += dir.as_ref().to_owned();

        /// Compiles one shader file; its module name is its file name.
        ///
        /// ```
        /// smolv_build::Config::new().shader("assets/post.frag").shader("assets/sky.wgsl");
        /// ```
        shader(file: impl AsRef<Path>) => shader_files += file.as_ref().to_owned();

        /// Compiles the files matching a glob, named relative to its fixed leading directory.
        ///
        /// ```
        /// // shaders/ui/text.frag is the module `ui/text.frag`
        /// smolv_build::Config::new().shader_glob("shaders/**/*.frag");
        /// ```
        shader_glob(pattern: impl Into<String>) => shader_globs += pattern.into();

        /// Searched by `#include <...>`, and by `#include "..."` after the including file's directory.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").include_dir("shaders/include");
        /// ```
        include_dir(dir: impl AsRef<Path>) => include_dirs += dir.as_ref().to_owned();

        /// `#define name value` for every shader but WGSL and WESL (one given to them alone is an error).
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").define("MAX_LIGHTS", "16");
        /// ```
        define(name: impl Into<String>, value: impl Into<String>)
            => defines += Define { name: name.into(), value: Some(value.into()) };

        /// `#define name value` for one shader.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").shader_define("blur.comp", "RADIUS", "4");
        /// ```
        shader_define(shader: impl Into<String>, name: impl Into<String>, value: impl Into<String>)
            => shader_defines += (shader.into(), Define { name: name.into(), value: Some(value.into()) });

        /// Names a program: `modules` make one pipeline, a `pub mod name` in the generated types (docs/types.md).
        /// Modules sharing a base name (`tint.vert`, `tint.frag`) are one without this.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").program("blur", ["fullscreen.vert", "blur.frag"]);
        /// ```
        program(name: impl Into<String>, modules: impl IntoIterator<Item = impl Into<String>>)
            => programs += (name.into(), modules.into_iter().map(Into::into).collect());

        /// Sets WESL's `@if` feature `name` for every WESL shader (unset features are off).
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").wesl_feature("fog", true);
        /// ```
        wesl_feature(name: impl Into<String>, value: bool) => wesl_features += (name.into(), value);

        /// [`wesl_feature`](Config::wesl_feature) for one WESL shader, over the global one.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").shader_wesl_feature("sky.wesl", "stars", false);
        /// ```
        shader_wesl_feature(shader: impl Into<String>, name: impl Into<String>, value: bool)
            => shader_wesl_features += (shader.into(), (name.into(), value));

        /// The advice of the error for a language not compiled in; `{feature}` stands for its Cargo feature.
        ///
        /// ```
        /// let mut config = smolv_build::Config::new();
        /// config.missing_language_advice("install the CLI with it: `cargo install cargo-smolv --features {feature}`");
        /// ```
        missing_language_advice(advice: impl Into<String>) => missing_language_advice = Some(advice.into());

        /// Makes the WESL files below `dir` the package `name`: `import name::a::b::item;` reads `dir/a/b.wesl`
        /// (or `.wgsl`). The shader directory is `package` without this.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").wesl_package("noise", "third_party/noise-wesl");
        /// ```
        wesl_package(name: impl Into<String>, dir: impl AsRef<Path>)
            => wesl_packages += (name.into(), dir.as_ref().to_owned());

        /// Target Vulkan version (default [`TargetEnv::Vulkan1_0`]); see [`TargetEnv::default_spirv_version`].
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").target_env(smolv_build::TargetEnv::Vulkan1_3);
        /// ```
        target_env(env: TargetEnv) => target_env = env;

        /// SPIR-V version; a newer one raises the environment to the oldest that takes it, except SPIR-V 1.4 on
        /// Vulkan 1.1 (VK_KHR_spirv_1_4, `PipelineOptions::khr_spirv_1_4(true)` in smolv's Vulkan layer).
        ///
        /// ```
        /// use smolv_build::{Config, SpirvVersion, TargetEnv};
        /// // Vulkan 1.1 drivers, SPIR-V 1.3 modules.
        /// Config::new().shader_dir("shaders").target_env(TargetEnv::Vulkan1_1).spirv_version(SpirvVersion::V1_3);
        /// ```
        spirv_version(version: SpirvVersion) => spirv_version = Some(version);

        /// Optimization level (default: size).
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").optimization(smolv_build::Optimization::Performance);
        /// ```
        optimization(level: Optimization) => optimization = level;

        /// Strips debug info from what ships. Default: on when Cargo's `PROFILE` is `release`.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").strip_debug(true); // in debug builds too
        /// ```
        strip_debug(strip: bool) => strip_debug = Some(strip);

        /// Ships the names run-time reflection reads despite [`strip_debug`](Self::strip_debug). Default: off.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").strip_debug(true).keep_interface_names(true);
        /// ```
        keep_interface_names(keep: bool) => keep_interface_names = keep;

        /// zstd level, 1–22 (default 19), for bundles and zstd-packed sets.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").zstd_level(22);
        /// ```
        zstd_level(level: i32) => zstd_level = ZstdLevel(level);

        /// Shared-dictionary policy (default: automatic).
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").dictionary(smolv_build::DictionaryMode::Off);
        /// ```
        dictionary(mode: DictionaryMode) => dictionary = mode;

        /// How the embedded set is packed (`SMOLV_PACKING`: one of [`Packing::NAMES`]). Default: [`Packing::Auto`].
        ///
        /// ```no_run
        /// // build.rs: always ship SMOL-V + LZ4 as one stream.
        /// use smolv_build::{Config, Framing, Packing};
        /// Config::new().shader_dir("shaders").packing(Packing::Lz4 { framing: Framing::Stream }).compile();
        /// ```
        packing(packing: Packing) => packing = Some(packing);

        /// What [`Packing::Auto`] makes smallest (`SMOLV_SIZE_GOAL`). Default: [`SizeGoal::Installed`].
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").size_goal(smolv_build::SizeGoal::Download);
        /// ```
        size_goal(goal: SizeGoal) => size_goal = Some(goal);

        /// Builds for wgpu (`SMOLV_TARGET`; feature `wgpu`): ships WGSL made by naga or SPIR-V, whichever makes
        /// the game smaller (docs/size.md#wgpu-targets). Default: Vulkan.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").for_wgpu();
        /// ```
        for_wgpu() => target = Some(Target::Wgpu);

        /// [`for_wgpu`](Config::for_wgpu), shipping WGSL (`true`, SPIR-V where naga refuses) or SPIR-V (`false`).
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").for_wgpu_shipping(true);
        /// ```
        for_wgpu_shipping(wgsl: bool) => target = Some(if wgsl { Target::WgpuWgsl } else { Target::WgpuSpirv });

        /// Builds SPIR-V for Vulkan, the default.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").for_wgpu().for_vulkan();
        /// ```
        for_vulkan() => target = Some(Target::Vulkan);

        /// Where compiled modules are cached (`SMOLV_CACHE_DIR`). Default: `smolv-cache` in Cargo's target directory.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").cache_dir("/var/cache/smolv");
        /// ```
        cache_dir(dir: impl AsRef<Path>) => cache_dir = Some(dir.as_ref().to_owned());

        /// The modules `cargo smolv prepare` wrote, read after the local cache (`docs/prepare.md`). Default: `.smolv`.
        ///
        /// ```
        /// // One directory for every crate of the workspace.
        /// smolv_build::Config::new().shader_dir("shaders").prepared_dir("../.smolv");
        /// ```
        prepared_dir(dir: impl AsRef<Path>) => prepared_dir = Some(dir.as_ref().to_owned());

        /// Where artifacts go. Default: Cargo's `OUT_DIR`.
        ///
        /// ```
        /// // Outside a build script, for a tool: no OUT_DIR there.
        /// smolv_build::Config::new().shader_dir("shaders").out_dir("target/shaders").cargo_directives(false);
        /// ```
        out_dir(dir: impl AsRef<Path>) => out_dir = Some(dir.as_ref().to_owned());

        /// Worker threads, each also holding a token of Cargo's jobserver. Default: `NUM_JOBS`, else every core.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").jobs(2);
        /// ```
        jobs(jobs: usize) => jobs = Some(jobs.max(1));

        /// A `spirv-opt` binary to run instead of the linked SPIRV-Tools (`SMOLV_SPIRV_OPT`; `PATH` is never
        /// searched). Its `--version` is part of every cache key.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").spirv_opt("/opt/vulkan-sdk/bin/spirv-opt");
        /// ```
        spirv_opt(path: impl AsRef<Path>) => spirv_opt = Some(path.as_ref().to_owned());

        /// Whether to print `cargo:` directives. Default: when `OUT_DIR` is set and no `out_dir` given.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").out_dir("target/shaders").cargo_directives(false);
        /// ```
        cargo_directives(emit: bool) => cargo_directives = Some(emit);

        /// Builds what compiles, listing failures in [`Report::failures`] instead of an error. Default: off.
        ///
        /// ```
        /// let mut config = smolv_build::Config::new();
        /// config.shader_dir("shaders").out_dir("target/shaders").keep_going(true);
        /// // let report = config.try_compile()?;
        /// // for failed in &report.failures { eprintln!("{}: {}", failed.name, failed.errors.join("\n")); }
        /// ```
        keep_going(keep_going: bool) => keep_going = keep_going;

        /// Locates unlocated GLSL and HLSL inputs and outputs (glslc's `-fauto-map-locations`). Default: off.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").auto_map_locations(true);
        /// ```
        auto_map_locations(auto: bool) => auto_map_locations = auto;

        /// Binds unbound GLSL and HLSL resources in set 0 (glslc's `-fauto-bind-uniforms`). Default: off.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").auto_bind_uniforms(true);
        /// ```
        auto_bind_uniforms(auto: bool) => auto_bind_uniforms = auto;

        /// Whether WGSL and WESL negate the position's `y` (naga's `ADJUST_COORDINATE_SPACE`). Default: on for
        /// Vulkan, off for wgpu, which flips the viewport itself (docs/wgpu.md#which-way-up).
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").wgsl_adjust_coordinate_space(false);
        /// ```
        wgsl_adjust_coordinate_space(adjust: bool) => wgsl_adjust_coordinate_space = Some(adjust);

        /// States the language of the stage-named, `.glsl` and `.hlsl` files in a directory, glob or file (glslc's
        /// `-x`); the last that covers a file wins. Another language, or covering no shader, is an error.
        ///
        /// ```
        /// use smolv_build::{Config, Language};
        /// Config::new()
        ///     .shader_dir("shaders")
        ///     .language("shaders/hlsl", Language::Hlsl) // a directory
        ///     .language("shaders/**/*.ps.vert", Language::Hlsl) // a glob
        ///     .language("shaders/hlsl/legacy.frag", Language::Glsl); // a file
        /// ```
        language(path_or_glob: impl Into<String>, language: Language) => languages += (path_or_glob.into(), language);

        /// The entry point of HLSL shaders (glslc's `-fentry-point`). Default: `main`.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").hlsl_entry_point("VSMain");
        /// ```
        hlsl_entry_point(name: impl Into<String>) => hlsl_entry_point = Some(name.into());

        /// Shifts HLSL bindings by register class, as DXC does (glslc's `-fhlsl-iomap`). Default: off.
        ///
        /// ```
        /// use smolv_build::{Config, ResourceKind};
        /// Config::new().shader_dir("shaders").hlsl_io_mapping(true).binding_base(ResourceKind::Texture, 20);
        /// ```
        hlsl_io_mapping(on: bool) => hlsl.io_mapping = on;

        /// Lays out GLSL blocks with HLSL's member offsets (glslc's `-fhlsl-offsets`). Default: off.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").hlsl_offsets(true);
        /// ```
        hlsl_offsets(on: bool) => hlsl.offsets = on;

        /// Places HLSL `register` (`b0`, `t3`) at `set` and `binding` (glslc's `-fresource-set-binding`).
        ///
        /// ```
        /// use smolv_build::{Config, ResourceKind};
        /// Config::new()
        ///     .shader_dir("shaders")
        ///     .hlsl_register_binding("b0", 1, 0)
        ///     .binding_base(ResourceKind::Texture, 16); // t0 → binding 16
        /// ```
        hlsl_register_binding(register: impl Into<String>, set: u32, binding: u32)
            => hlsl.register_bindings += RegisterBinding { stage: None, register: register.into(), set, binding };

        /// [`hlsl_register_binding`](Config::hlsl_register_binding) for one stage only.
        hlsl_register_binding_for_stage(stage: ShaderStage, register: impl Into<String>, set: u32, binding: u32)
            => hlsl.register_bindings +=
                RegisterBinding { stage: Some(stage), register: register.into(), set, binding };

        /// Makes HLSL's `half`, `min16float`, … 16-bit types (glslc's `-fhlsl-16bit-types`). Default: off.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders/hlsl").hlsl_16bit_types(true);
        /// ```
        hlsl_16bit_types(on: bool) => hlsl.sixteen_bit_types = on;

        /// The lowest binding of resources of `kind` (glslc's `-f<kind>-binding-base`).
        binding_base(kind: ResourceKind, base: u32) => binding_bases += BindingBase { stage: None, kind, base };

        /// [`binding_base`](Config::binding_base) for one stage only.
        binding_base_for_stage(stage: ShaderStage, kind: ResourceKind, base: u32)
            => binding_bases += BindingBase { stage: Some(stage), kind, base };

        /// The `slangc` binary for `.slang` files (`SMOLV_SLANGC`). Default: `slangc` on `PATH`.
        ///
        /// ```
        /// smolv_build::Config::new().shader_dir("shaders").slangc("/opt/vulkan-sdk/bin/slangc");
        /// ```
        slangc(path: impl AsRef<Path>) => slangc = Some(path.as_ref().to_owned());
    }

    /// Adds named variants of one shader, each a module `shader@variant` next to the plain `shader`.
    ///
    /// ```
    /// use smolv_build::{Config, Variant};
    /// // lit.frag, lit.frag@shadows and lit.frag@fog
    /// Config::new().shader_dir("shaders").variants(
    ///     "lit.frag",
    ///     [Variant::new("shadows").define("SHADOWS", "1"), Variant::new("fog").define("FOG", "1")],
    /// );
    /// ```
    pub fn variants(&mut self, shader: impl Into<String>, variants: impl IntoIterator<Item = Variant>) -> &mut Self {
        let shader = shader.into();
        self.variants.extend(variants.into_iter().map(|v| (shader.clone(), v)));
        self
    }

    /// Does nothing: glslang compiles HLSL with 16-bit types in process.
    #[deprecated(note = "HLSL with 16-bit types is compiled in process by glslang; no glslc is run")]
    pub fn glslc(&mut self, path: impl AsRef<Path>) -> &mut Self {
        let _ = path.as_ref();
        self
    }

    /// Builds every shader; on failure prints the errors (as `cargo::error=` lines under a build script) and
    /// exits. [`try_compile`](Config::try_compile) returns them instead.
    ///
    /// ```no_run
    /// // build.rs
    /// fn main() {
    ///     let report = smolv_build::Config::new().shader_dir("shaders").compile();
    ///     println!("cargo:warning={} modules, {} bytes in the bundle", report.modules.len(), report.total_bundle_bytes);
    /// }
    /// ```
    pub fn compile(&self) -> Report {
        self.try_compile().unwrap_or_else(|error| {
            // Planned again without watching: `try_compile` watched.
            let plan = self.plan_reading(Env::default()).ok();
            let log = plan.map(|plan| plan.out_dir.join(crate::output::build_log::LOG_FILE));
            let log = log.filter(|log| log.is_file() && matches!(error, Error::Compile { .. }));
            if self.prints_cargo_directives() {
                crate::output::emit::cargo_errors(&error, log.as_deref()).iter().for_each(|line| println!("{line}"));
                use std::io::Write;
                let _ = std::io::stdout().flush();
                std::process::exit(0)
            }
            eprintln!("{error}");
            if let Some(log) = log {
                eprintln!("the build's log: {}", log.display());
            }
            std::process::exit(1)
        })
    }

    /// Builds every shader, returning the report or the error; here outside Cargo, of a SPIR-V module:
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

    /// Serves as a compiler worker, never returning, if this process is one. Call it first in `main` of a
    /// program that builds shaders (a build script needs it except on Linux).
    ///
    /// ```no_run
    /// // The first line of the program's `main`:
    /// smolv_build::Config::worker_main();
    /// // ... the program itself.
    /// ```
    pub fn worker_main() {
        crate::compile::worker::main_hook();
    }

    /// Whether the build prints `cargo:` directives.
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

    /// The builder and the environment resolved, watching the variables read
    /// where the build prints Cargo directives.
    pub(crate) fn plan(&self) -> Result<Plan, Error> {
        self.plan_reading(Env::watching(self.prints_cargo_directives()))
    }

    fn plan_reading(&self, env: Env) -> Result<Plan, Error> {
        // Empty outside Cargo, so that messages say `shaders/a.frag`, not `./shaders/a.frag`.
        let base = cargo_var("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
        let out_dir = self.out_dir.as_ref().map(|dir| base.join(dir)).or(cargo_var("OUT_DIR").map(PathBuf::from));
        let out_dir = out_dir.ok_or_else(|| {
            Error::Config("OUT_DIR is not set: call smolv-build from a build script, or set Config::out_dir".into())
        })?;
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
            return Err(Error::not_found(
                base.join(dir),
                "Config::wesl_package must name an existing directory (relative paths start at the crate root)",
            ));
        }
        let spirv_version = self.spirv_version.unwrap_or(self.target_env.default_spirv_version());
        let packing = packing_options(self, |name| env.var(name))?;
        // Read only to stay watched (see `env::WATCHED`).
        let _ = env.var_os("SMOLV_GLSLC");
        let settings = Settings {
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
            zstd_level: self.zstd_level.0,
            packing,
            keep_going: self.keep_going,
            directives: self.prints_cargo_directives(),
            print_report: env.var("SMOLV_REPORT").is_some_and(|v| v != "0"),
            remote_cache: self.remote_cache.clone(),
            // Without `..`, so that crates sharing one directory name it alike.
            prepared_dir: match &self.prepared_dir {
                Some(dir) => Some(crate::output::emit::normalized(&base.join(dir))),
                None => (!base.as_os_str().is_empty()).then(|| base.join(crate::cache::prepared::DEFAULT_DIR)),
            },
            prepare_session: env.var(crate::cache::prepared::PREPARE_ENV).map(PathBuf::from),
            programs: self.programs.clone(),
        })
    }
}

/// An identifier WESL does not reserve.
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

/// The packing, goal and target: the setters, else the variables (read either way, to be watched), else defaults.
fn packing_options(config: &Config, var: impl Fn(&str) -> Option<String>) -> Result<PackSettings, Error> {
    let unknown =
        |name: &str, text: String, names: &str| Error::Config(format!("{name}={text:?} is not one of {names}"));
    let packing = setting(config.packing, var("SMOLV_PACKING"), Packing::parse)
        .map_err(|text| unknown("SMOLV_PACKING", text, &Packing::NAMES.join(", ")))?
        .unwrap_or_default();
    let goal = setting(config.size_goal, var("SMOLV_SIZE_GOAL"), SizeGoal::parse)
        .map_err(|text| unknown("SMOLV_SIZE_GOAL", text, "installed, download"))?
        .unwrap_or_default();
    let target = setting(config.target, var("SMOLV_TARGET"), Target::parse)
        .map_err(|text| unknown("SMOLV_TARGET", text, &Target::ALL.map(Target::name).join(", ")))?
        .unwrap_or_default();
    if target.may_ship_wgsl() && !cfg!(feature = "wgpu") {
        return Err(Error::Config(format!(
            "target {} makes WGSL with naga: enable smolv-build's `wgpu` feature, or ship SPIR-V \
             (`Config::for_wgpu_shipping(false)`, SMOLV_TARGET=wgpu-spirv, `--target-api wgpu-spirv`)",
            target.name()
        )));
    }
    let runtime = RuntimeCodecs::from_env(var);
    Ok(PackSettings { packing, goal, zstd_level: config.zstd_level.0, runtime, target })
}

/// The remote cache (feature `remote-cache`).
impl Config {
    setters! {
        /// Adds a Bazel HTTP remote cache, `http(s)://host[:port][/prefix]`, asked on a local miss and uploaded to
        /// unless [read-only](Config::remote_cache_mode) (`SMOLV_REMOTE_CACHE`). It never fails a build: a bad entry
        /// is a miss; a failure or its [time limit](Config::remote_cache_time_limit) turns it off with a warning.
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
        remote_cache(url: impl Into<String>) => remote_cache.url = Some(url.into());

        /// Whether the remote cache is read and written, only read, or off (`SMOLV_REMOTE_CACHE_MODE`).
        ///
        /// ```
        /// // even if SMOLV_REMOTE_CACHE is set
        /// smolv_build::Config::new().remote_cache_mode(smolv_build::cache::RemoteCacheMode::Off);
        /// ```
        remote_cache_mode(mode: RemoteCacheMode) => remote_cache.mode = Some(mode);

        /// A `Name: value` header for every remote-cache request (`SMOLV_REMOTE_CACHE_HEADER`); never printed.
        ///
        /// ```
        /// let mut config = smolv_build::Config::new();
        /// config.remote_cache_header("Authorization: Bearer not-a-real-token");
        /// assert!(!format!("{config:?}").contains("not-a-real-token"));
        /// ```
        remote_cache_header(header: impl Into<String>) => remote_cache.header = Some(header.into());

        /// The most the build may wait on the remote cache in all (`SMOLV_REMOTE_CACHE_TIME_LIMIT`). Default: 30 s.
        ///
        /// ```
        /// // a slow link: give up sooner
        /// smolv_build::Config::new().remote_cache_time_limit(std::time::Duration::from_secs(10));
        /// ```
        remote_cache_time_limit(limit: std::time::Duration) => remote_cache.time_limit = Some(limit);
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
