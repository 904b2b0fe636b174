//! The shader options that `build` and `types` both take, so that both see the same modules.

use std::path::{Path, PathBuf};

use smolv_build::cache::RemoteCacheMode;
use smolv_build::{Config, Language, Optimization, Packing, ResourceKind, SizeGoal, SpirvVersion, TargetEnv, Variant};
use smolv_runtime::reflect::ShaderStage;

/// How shaders are compiled: what `build` and `types` both take.
#[derive(clap::Args)]
pub(crate) struct ShaderArgs {
    /// Target environment.
    #[arg(long, value_name = "ENV", default_value = "vulkan1.0", value_parser = parse_target_env)]
    target_env: TargetEnv,
    /// SPIR-V version, 1.0 to 1.6 (default: the target environment's).
    #[arg(long, value_name = "VERSION", value_parser = parse_spirv_version)]
    spirv_version: Option<SpirvVersion>,
    /// How hard spirv-opt works: none, size or performance (default: size).
    #[arg(long, value_name = "LEVEL", value_parser = parse_optimization)]
    optimization: Option<Optimization>,
    /// Drop debug info (names, source, line info) from what ships.
    #[arg(long)]
    strip_debug: bool,
    /// With --strip-debug, keep the names that reflection reads at run time: bindings, spec
    /// constants, vertex inputs and fragment outputs.
    #[arg(long, requires = "strip_debug")]
    keep_interface_names: bool,
    /// `#define NAME VALUE` for every GLSL, HLSL and Slang shader, like glslc -D: -DNAME=VALUE,
    /// or -DNAME for an empty value. Repeatable.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = parse_define)]
    defines: Vec<(String, String)>,
    /// `#define` for one shader, by module name: --shader-define blur.comp:RADIUS=4. Repeatable.
    #[arg(long = "shader-define", value_name = "SHADER:NAME[=VALUE]", value_parser = parse_shader_define)]
    shader_defines: Vec<(String, (String, String))>,
    /// A variant of one shader: module SHADER@NAME, built beside SHADER with its own defines, e.g.
    /// --variant lit.frag@shadows:SHADOWS=1,PCF. Repeatable.
    #[arg(long = "variant", value_name = "SHADER@NAME[:NAME[=VALUE],...]", value_parser = parse_variant)]
    variants: Vec<(String, Variant)>,
    /// Directories searched by #include.
    #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// Cache directory (default: SMOLV_CACHE_DIR, else Cargo's target dir).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// How the embedded set is packed (default: SMOLV_PACKING, else auto, the smallest total).
    #[arg(long, value_name = "PACKING", value_parser = parse_packing)]
    packing: Option<Packing>,
    /// What auto packing makes smallest: the installed binary, or the download after xz -9
    /// (default: SMOLV_SIZE_GOAL, else installed).
    #[arg(long, value_name = "GOAL", value_parser = parse_goal)]
    goal: Option<SizeGoal>,
    /// What consumes the shaders: vulkan, or wgpu (WGSL or SPIR-V, whichever makes the game
    /// smaller), wgpu-wgsl or wgpu-spirv (default: SMOLV_TARGET, else vulkan).
    #[arg(long, value_name = "API", value_parser = parse_target)]
    target_api: Option<TargetApi>,
    /// Give GLSL/HLSL inputs and outputs without a location one (like glslc -fauto-map-locations).
    #[arg(long)]
    auto_map_locations: bool,
    /// Give GLSL/HLSL resources without a binding one, in set 0 (like glslc -fauto-bind-uniforms).
    #[arg(long)]
    auto_bind_uniforms: bool,
    /// The language of shaders named by stage (.vert, .frag, …), .glsl and .hlsl files, like glslc -x:
    /// `hlsl` for the whole tree, or `hlsl=PATH` for a directory, glob or file below DIR. Repeatable;
    /// the last one that covers a file wins.
    #[arg(short = 'x', long = "language", value_name = "glsl|hlsl[=PATH]", value_parser = parse_language)]
    languages: Vec<(Language, Option<String>)>,
    /// glslc's HLSL and binding flags: -fentry-point=NAME, -fhlsl-iomap, -fhlsl-offsets, -fhlsl-16bit-types,
    /// -fresource-set-binding=[STAGE,]REG,SET,BINDING (e.g. -fresource-set-binding=frag,t0,1,2),
    /// -f<image|sampler|texture|ubo|cbuffer|ssbo|uav>-binding-base=[STAGE,]BASE, -fauto-map-locations,
    /// -fauto-bind-uniforms.
    // `--help` text: its brackets mark optional parts, not Markdown links.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(short = 'f', value_name = "FLAG", value_parser = parse_glslc_flag)]
    glslc_flags: Vec<GlslcFlag>,
    /// A WESL `@if` feature for every WESL shader: `NAME` (on) or `NAME=false`. Repeatable; features
    /// not given are off.
    #[arg(long = "wesl-feature", value_name = "NAME[=BOOL]", value_parser = parse_wesl_feature)]
    wesl_features: Vec<(String, bool)>,
    /// A WESL package on disk: `import NAME::module::item;` reads DIR/module.wesl. Repeatable.
    #[arg(long = "wesl-package", value_name = "NAME=DIR", value_parser = parse_wesl_package)]
    wesl_packages: Vec<(String, PathBuf)>,
    /// The slangc that compiles .slang files (default: SMOLV_SLANGC, else slangc on PATH).
    #[arg(long, value_name = "PATH")]
    slangc: Option<PathBuf>,
    /// Deprecated and ignored: HLSL with -fhlsl-16bit-types compiles in process now, without glslc.
    #[arg(long, value_name = "PATH", hide = true)]
    glslc: Option<PathBuf>,
    /// A Bazel HTTP remote cache (bazel-remote, nginx WebDAV) behind the local one:
    /// http(s)://host[:port][/prefix] (default: SMOLV_REMOTE_CACHE). An auth header comes
    /// from SMOLV_REMOTE_CACHE_HEADER only, never from the command line.
    // `--help` text, as above.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "URL")]
    remote_cache: Option<String>,
    /// read-write (upload what was compiled), read-only or off (default:
    /// SMOLV_REMOTE_CACHE_MODE, else read-write).
    #[arg(long, value_name = "MODE", value_parser = parse_remote_mode)]
    remote_cache_mode: Option<RemoteCacheMode>,
    /// The most the remote cache may add to the build, in seconds; then it is off for the rest
    /// of the build (default: SMOLV_REMOTE_CACHE_TIME_LIMIT, else 30).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    remote_cache_time_limit: Option<std::time::Duration>,
}

/// One of glslc's `-f` flags that `build` takes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GlslcFlag {
    EntryPoint(String),
    HlslIoMap,
    HlslOffsets,
    Hlsl16BitTypes,
    AutoMapLocations,
    AutoBindUniforms,
    ResourceSetBinding { stage: Option<ShaderStage>, register: String, set: u32, binding: u32 },
    BindingBase { stage: Option<ShaderStage>, kind: ResourceKind, base: u32 },
}

/// `hlsl` or `hlsl=PATH`.
fn parse_language(text: &str) -> Result<(Language, Option<String>), String> {
    let (name, path) = text.split_once('=').map_or((text, None), |(name, path)| (name, Some(path.to_owned())));
    match Language::parse(name) {
        Some(language @ (Language::Glsl | Language::Hlsl)) => Ok((language, path)),
        _ => Err(format!("{name:?} is not glsl or hlsl; WGSL, Slang and SPIR-V files are known by their extension")),
    }
}

/// The value after `-f`: glslc's flag name, with `=` and commas for its arguments.
fn parse_glslc_flag(text: &str) -> Result<GlslcFlag, String> {
    let (name, value) = text.split_once('=').map_or((text, None), |(name, value)| (name, Some(value)));
    let number = |part: &str| part.trim().parse::<u32>().map_err(|_| format!("-f{name}: {part:?} is not a number"));
    // `[STAGE,]rest`: the stage, when the first part names one, and the rest.
    let staged = |value: &str, parts: usize| -> Result<(Option<ShaderStage>, Vec<String>), String> {
        let mut all: Vec<String> = value.split(',').map(|p| p.trim().to_owned()).collect();
        let stage = all.first().and_then(|first| ShaderStage::from_name_or_extension(first));
        if stage.is_some() {
            all.remove(0);
        }
        if all.len() != parts {
            return Err(format!("-f{name} takes {parts} comma-separated values, after an optional stage"));
        }
        Ok((stage, all))
    };
    let flag = match (name, value) {
        ("entry-point", Some(entry)) if !entry.is_empty() => GlslcFlag::EntryPoint(entry.to_owned()),
        ("hlsl-iomap", None) => GlslcFlag::HlslIoMap,
        ("hlsl-offsets", None) => GlslcFlag::HlslOffsets,
        ("auto-map-locations", None) => GlslcFlag::AutoMapLocations,
        ("auto-bind-uniforms", None) => GlslcFlag::AutoBindUniforms,
        ("hlsl-16bit-types", None) => GlslcFlag::Hlsl16BitTypes,
        ("resource-set-binding", Some(value)) => {
            let (stage, parts) = staged(value, 3)?;
            GlslcFlag::ResourceSetBinding {
                stage,
                register: parts[0].clone(),
                set: number(&parts[1])?,
                binding: number(&parts[2])?,
            }
        }
        (flag, Some(value)) if flag.ends_with("-binding-base") => {
            let kind = ResourceKind::parse(flag.trim_end_matches("-binding-base"))
                .ok_or_else(|| format!("-f{flag}: the kinds are image, sampler, texture, ubo, cbuffer, ssbo, uav"))?;
            let (stage, parts) = staged(value, 1)?;
            GlslcFlag::BindingBase { stage, kind, base: number(&parts[0])? }
        }
        _ => {
            return Err(format!(
                "-f{text} is not one of -fentry-point=NAME, -fhlsl-iomap, -fhlsl-offsets, -fhlsl-16bit-types, \
                 -fresource-set-binding=[STAGE,]REG,SET,BINDING, -f<kind>-binding-base=[STAGE,]BASE, \
                 -fauto-map-locations, -fauto-bind-uniforms"
            ));
        }
    };
    Ok(flag)
}

/// `NAME`, `NAME=true` or `NAME=false`.
fn parse_wesl_feature(text: &str) -> Result<(String, bool), String> {
    let (name, value) = text.split_once('=').unwrap_or((text, "true"));
    let value = match value {
        "true" | "1" | "on" => true,
        "false" | "0" | "off" => false,
        other => return Err(format!("{other:?} is not true or false")),
    };
    if name.is_empty() {
        return Err("name the feature: --wesl-feature NAME[=true|false]".into());
    }
    Ok((name.to_owned(), value))
}

/// `NAME=DIR`.
fn parse_wesl_package(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((name, dir)) if !name.is_empty() && !dir.is_empty() => Ok((name.to_owned(), PathBuf::from(dir))),
        _ => Err(format!("{text:?}: give the package as NAME=DIR")),
    }
}

pub(crate) fn parse_target_env(text: &str) -> Result<TargetEnv, String> {
    TargetEnv::parse(text).ok_or_else(|| format!("{text:?} is not one of vulkan1.0, vulkan1.1, vulkan1.2, vulkan1.3"))
}

fn parse_spirv_version(text: &str) -> Result<SpirvVersion, String> {
    SpirvVersion::parse(text).ok_or_else(|| format!("{text:?} is not a SPIR-V version from 1.0 to 1.6"))
}

fn parse_optimization(text: &str) -> Result<Optimization, String> {
    match text {
        "none" | "0" => Ok(Optimization::None),
        "size" | "s" => Ok(Optimization::Size),
        "performance" | "perf" => Ok(Optimization::Performance),
        _ => Err(format!("{text:?} is not one of none, size, performance")),
    }
}

/// `NAME=VALUE`, or `NAME` for an empty value, as glslc's `-D` takes it.
fn parse_define(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').unwrap_or((text, ""));
    let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Err(format!("{name:?} is not a macro name: write NAME or NAME=VALUE"));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// `SHADER:NAME[=VALUE]`.
fn parse_shader_define(text: &str) -> Result<(String, (String, String)), String> {
    match text.split_once(':') {
        Some((shader, define)) if !shader.is_empty() => Ok((shader.to_owned(), parse_define(define)?)),
        _ => Err(format!("{text:?} is not SHADER:NAME[=VALUE], e.g. blur.comp:RADIUS=4")),
    }
}

/// `SHADER@NAME[:DEFINE,DEFINE...]`, each define `NAME[=VALUE]`.
fn parse_variant(text: &str) -> Result<(String, Variant), String> {
    let usage = || format!("{text:?} is not SHADER@NAME[:NAME[=VALUE],...], e.g. lit.frag@shadows:SHADOWS=1,PCF");
    let (shader, rest) = text.split_once('@').ok_or_else(usage)?;
    let (name, defines) = rest.split_once(':').unwrap_or((rest, ""));
    if shader.is_empty() || name.is_empty() {
        return Err(usage());
    }
    let mut variant = Variant::new(name);
    for define in defines.split(',').filter(|d| !d.is_empty()) {
        let (name, value) = parse_define(define)?;
        variant = variant.define(name, value);
    }
    Ok((shader.to_owned(), variant))
}

fn parse_packing(text: &str) -> Result<Packing, String> {
    Packing::parse(text).ok_or_else(|| format!("{text:?} is not one of {}", Packing::NAMES.join(", ")))
}

/// `30`, `2.5`: a non-negative number of seconds.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    smolv_build::cache::parse_seconds(text)
        .ok_or_else(|| format!("{text:?} is not a number of seconds (like 30 or 2.5)"))
}

fn parse_remote_mode(text: &str) -> Result<RemoteCacheMode, String> {
    RemoteCacheMode::parse(text).ok_or_else(|| format!("{text:?} is not one of {}", RemoteCacheMode::NAMES.join(", ")))
}

/// What `--target-api` names: the `Config` setter of that consumer.
type TargetApi = fn(&mut Config) -> &mut Config;

fn parse_target(text: &str) -> Result<TargetApi, String> {
    Ok(match text {
        "vulkan" => Config::for_vulkan,
        "wgpu" => Config::for_wgpu,
        "wgpu-wgsl" => |config| config.for_wgpu_shipping(true),
        "wgpu-spirv" => |config| config.for_wgpu_shipping(false),
        _ => return Err(format!("{text:?} is not one of vulkan, wgpu, wgpu-wgsl, wgpu-spirv")),
    })
}

fn parse_goal(text: &str) -> Result<SizeGoal, String> {
    SizeGoal::parse(text).ok_or_else(|| format!("{text:?} is not one of installed, download"))
}

/// What a shader whose language this install lacks is told (`{feature}`: smolv-build's feature name).
pub(crate) const MISSING_LANGUAGE_ADVICE: &str =
    "this cargo-smolv was installed without it; add it with `cargo install cargo-smolv --features {feature}`";

/// A `Config` for the shaders in `dir`, built into `out_dir`, as `args` say.
pub(crate) fn config(dir: &Path, out_dir: &Path, args: &ShaderArgs) -> Config {
    /// Calls `call` with each of `values` (an `Option` or a list).
    fn set<I: IntoIterator>(config: &mut Config, values: I, mut call: impl FnMut(&mut Config, I::Item) -> &mut Config) {
        for value in values {
            call(config, value);
        }
    }
    let mut config = Config::new();
    config
        .missing_language_advice(MISSING_LANGUAGE_ADVICE)
        .shader_dir(dir)
        .out_dir(out_dir)
        .target_env(args.target_env)
        .optimization(args.optimization.unwrap_or_default())
        .strip_debug(args.strip_debug)
        .keep_interface_names(args.keep_interface_names)
        .cargo_directives(false)
        .auto_map_locations(args.auto_map_locations)
        .auto_bind_uniforms(args.auto_bind_uniforms)
        .keep_going(true);
    set(&mut config, &args.include_dirs, Config::include_dir);
    set(&mut config, args.spirv_version, Config::spirv_version);
    set(&mut config, &args.defines, |config, (name, value)| config.define(name, value));
    set(&mut config, &args.shader_defines, |config, (shader, (name, value))| config.shader_define(shader, name, value));
    set(&mut config, &args.variants, |config, (shader, variant)| config.variants(shader, [variant.clone()]));
    set(&mut config, args.cache_dir.as_ref(), Config::cache_dir);
    set(&mut config, args.jobs, Config::jobs);
    set(&mut config, args.packing, Config::packing);
    set(&mut config, args.goal, Config::size_goal);
    set(&mut config, args.target_api, |config, api| api(config));
    set(&mut config, &args.languages, |config, (language, path)| {
        let pattern = path.as_ref().map_or_else(|| dir.to_path_buf(), |path| dir.join(path));
        config.language(pattern.to_string_lossy(), *language)
    });
    set(&mut config, &args.glslc_flags, |config, flag| match flag {
        GlslcFlag::EntryPoint(name) => config.hlsl_entry_point(name),
        GlslcFlag::HlslIoMap => config.hlsl_io_mapping(true),
        GlslcFlag::HlslOffsets => config.hlsl_offsets(true),
        GlslcFlag::Hlsl16BitTypes => config.hlsl_16bit_types(true),
        GlslcFlag::AutoMapLocations => config.auto_map_locations(true),
        GlslcFlag::AutoBindUniforms => config.auto_bind_uniforms(true),
        GlslcFlag::ResourceSetBinding { stage: None, register, set, binding } => {
            config.hlsl_register_binding(register, *set, *binding)
        }
        GlslcFlag::ResourceSetBinding { stage: Some(stage), register, set, binding } => {
            config.hlsl_register_binding_for_stage(*stage, register, *set, *binding)
        }
        GlslcFlag::BindingBase { stage: None, kind, base } => config.binding_base(*kind, *base),
        GlslcFlag::BindingBase { stage: Some(stage), kind, base } => {
            config.binding_base_for_stage(*stage, *kind, *base)
        }
    });
    set(&mut config, &args.wesl_features, |config, (name, value)| config.wesl_feature(name, *value));
    set(&mut config, &args.wesl_packages, |config, (name, dir)| config.wesl_package(name, dir));
    set(&mut config, args.slangc.as_ref(), Config::slangc);
    if let Some(glslc) = &args.glslc {
        #[allow(deprecated, reason = "--glslc stays for old command lines; smolv-build runs no glslc now")]
        config.glslc(glslc);
    }
    set(&mut config, args.remote_cache.as_ref(), Config::remote_cache);
    set(&mut config, args.remote_cache_mode, Config::remote_cache_mode);
    set(&mut config, args.remote_cache_time_limit, Config::remote_cache_time_limit);
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glslc_flags_parse_with_an_optional_stage() {
        assert_eq!(parse_glslc_flag("entry-point=PSMain"), Ok(GlslcFlag::EntryPoint("PSMain".into())));
        assert_eq!(parse_glslc_flag("hlsl-16bit-types"), Ok(GlslcFlag::Hlsl16BitTypes));
        assert_eq!(
            parse_glslc_flag("resource-set-binding=frag,t0,1,2"),
            Ok(GlslcFlag::ResourceSetBinding {
                stage: Some(ShaderStage::Fragment),
                register: "t0".into(),
                set: 1,
                binding: 2
            })
        );
        assert_eq!(
            parse_glslc_flag("cbuffer-binding-base=10"),
            Ok(GlslcFlag::BindingBase { stage: None, kind: ResourceKind::UniformBuffer, base: 10 })
        );
        assert_eq!(
            parse_glslc_flag("uav-binding-base=compute,3"),
            Ok(GlslcFlag::BindingBase {
                stage: Some(ShaderStage::Compute),
                kind: ResourceKind::UnorderedAccessView,
                base: 3
            })
        );
        // Every stage, by its name or its extension, as before the table moved to smolv-format.
        for (text, stage) in [("tesc", ShaderStage::TessellationControl), ("rchit", ShaderStage::ClosestHit)] {
            let parsed = parse_glslc_flag(&format!("ssbo-binding-base={text},4"));
            assert_eq!(
                parsed,
                Ok(GlslcFlag::BindingBase { stage: Some(stage), kind: ResourceKind::StorageBuffer, base: 4 })
            );
        }
        assert_eq!(parse_language("hlsl=legacy/**/*.vert"), Ok((Language::Hlsl, Some("legacy/**/*.vert".into()))));
        assert_eq!(parse_language("GLSL"), Ok((Language::Glsl, None)));
        assert_eq!(parse_wesl_feature("shadows"), Ok(("shadows".into(), true)));
        assert_eq!(parse_wesl_feature("fog=false"), Ok(("fog".into(), false)));
        assert!(parse_wesl_feature("fog=maybe").is_err());
        assert_eq!(parse_wesl_package("noise=vendor/noise"), Ok(("noise".into(), PathBuf::from("vendor/noise"))));
        assert!(parse_wesl_package("noise").is_err());
    }

    #[test]
    fn defines_and_variants_parse_as_glslc_and_config_spell_them() {
        assert_eq!(parse_define("MAX_LIGHTS=16"), Ok(("MAX_LIGHTS".into(), "16".into())));
        assert_eq!(parse_define("FOG"), Ok(("FOG".into(), String::new())));
        assert!(parse_define("1X=2").is_err() && parse_define("=2").is_err());
        assert_eq!(parse_shader_define("blur.comp:RADIUS=4"), Ok(("blur.comp".into(), ("RADIUS".into(), "4".into()))));
        assert!(parse_shader_define("RADIUS=4").is_err());
        assert_eq!(
            parse_variant("lit.frag@shadows:SHADOWS=1,PCF"),
            Ok(("lit.frag".into(), Variant::new("shadows").define("SHADOWS", "1").define("PCF", "")))
        );
        assert_eq!(parse_variant("sky.wgsl#main@plain"), Ok(("sky.wgsl#main".into(), Variant::new("plain"))));
        assert!(parse_variant("lit.frag").is_err() && parse_variant("@x").is_err() && parse_variant("a@").is_err());
        assert!(parse_variant("lit.frag@x:A B").is_err());
        assert_eq!(parse_spirv_version("1.3"), Ok(SpirvVersion::V1_3));
        assert!(parse_spirv_version("1.7").is_err());
        assert_eq!(parse_optimization("performance"), Ok(Optimization::Performance));
    }
}
