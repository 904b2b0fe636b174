//! HLSL with 16-bit types through the `glslc` binary.
//!
//! glslc's `-fhlsl-16bit-types` makes `half`, `min16float` and their kin
//! real 16-bit types (`Float16`, `Int16`) instead of 32-bit ones marked
//! `RelaxedPrecision`. The shaderc C library has the switch
//! (`shaderc_compile_options_set_hlsl_16bit_types`), but the shaderc Rust
//! binding (0.10, the newest) does not expose it, and its options object
//! cannot be reached to set it. So HLSL jobs that ask for it run `glslc`,
//! the same shaderc as a program, with every other option passed as its
//! flag; the rest of the pipeline (spirv-opt, SMOL-V, the cache) is the
//! same. Includes are tracked from the depfile glslc writes (`-MD`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use super::external::{Scratch, hash_read, missing_candidates, parse_depfile, words};
use super::glslang_log::parse_log;
use super::{Compiled, CompiledModule};
use crate::cache::Cache;
use crate::compile::tool;
use crate::error::Diagnostic;
use crate::options::Language;
use crate::options::Optimization;
use crate::settings::Settings;
use crate::source::Job;

/// What the error says when `glslc` is not found.
const INSTALL_HINT: &str = "HLSL with 16-bit types (Config::hlsl_16bit_types, -fhlsl-16bit-types) is compiled by \
     the glslc binary, because the shaderc Rust binding has no switch for it, and glslc was not found: install it \
     (apt-get install glslc; the Vulkan SDK ships it too), then put glslc on PATH or set SMOLV_GLSLC (or \
     Config::glslc) to its path";

/// Finds `glslc`: the configured path, `SMOLV_GLSLC`, or `PATH`.
pub(crate) fn find_glslc(configured: Option<&Path>) -> Option<PathBuf> {
    tool::find(configured, "SMOLV_GLSLC", "glslc")
}

/// `glslc --version`'s first line (shaderc's version), for the cache keys
/// of the jobs it compiles.
pub(crate) fn identity(glslc: &Path, cache: &Cache) -> String {
    format!("glslc [{}];", tool::identity(glslc, "--version", cache))
}

/// Whether `glslc` compiles this job (instead of shaderc in-process).
pub(crate) fn compiles(job: &Job, settings: &Settings) -> bool {
    job.language == Language::Hlsl && settings.hlsl.sixteen_bit_types
}

pub(super) fn compile(job: &Job, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    let glslc = settings.glslc.as_deref().ok_or_else(|| fail(INSTALL_HINT.to_owned()))?;
    let stage =
        job.stage.ok_or_else(|| fail("no shader stage: use a stage extension or #pragma shader_stage".into()))?;
    let scratch = Scratch::new().map_err(|e| fail(format!("cannot create a directory for glslc's output: {e}")))?;
    let started = SystemTime::now();
    let run = |level: &str, name: &str| -> Result<(Vec<u32>, Vec<String>, PathBuf), Vec<Diagnostic>> {
        let (output, depfile) = (scratch.path().join(format!("{name}.spv")), scratch.path().join(format!("{name}.d")));
        let mut command = Command::new(glslc);
        command.args(args(job, stage, settings)).arg(level).arg("-MD").arg("-MF").arg(&depfile).arg("-o").arg(&output);
        command.arg(&job.path);
        // Under the limits of every tool: a hang or a runaway costs this
        // shader alone.
        let limits = tool::Limits::from_env();
        let result = tool::run(&mut command, None, limits).map_err(|stopped| match stopped {
            tool::Stopped::Start(e) => fail(format!("cannot run glslc ({}): {e}; {INSTALL_HINT}", glslc.display())),
            over_time => fail(format!(
                "glslc {over_time} on this shader; the other shaders were compiled. Simplify the shader, or raise \
                 the limit"
            )),
        })?;
        let log = String::from_utf8_lossy(&result.stderr);
        if let Some(how) = crate::compile::tool::crashed(result.status) {
            return Err(fail(format!(
                "the shader compiler crashed on this shader: glslc {how}; this is a compiler bug (or a shader beyond \
                 the limits of {}): rewrite the construct it fails on, or use another glslc version{}",
                limits.describe(),
                if log.trim().is_empty() { String::new() } else { format!("; it printed: {}", log.trim()) }
            )));
        }
        if !result.status.success() {
            return Err(if log.trim().is_empty() {
                fail(format!("glslc failed ({}) and printed nothing", result.status))
            } else {
                parse_log(&log, &job.path)
            });
        }
        let bytes = std::fs::read(&output).map_err(|e| fail(format!("glslc wrote no module: {e}")))?;
        let spirv = words(&bytes).ok_or_else(|| fail("glslc wrote no SPIR-V module".to_owned()))?;
        let warnings = log.lines().filter(|line| line.contains(": warning: ")).map(str::to_owned).collect();
        Ok((spirv, warnings, depfile))
    };
    let (spirv, warnings, depfile) = run("-O0", "unoptimized")?;
    // As with shaderc in-process: spirv-opt optimizes afterwards when it is
    // installed, else glslc's own levels run the same recipe.
    let optimized = match (settings.optimization, &settings.spirv_opt) {
        (Optimization::None, _) | (_, Some(_)) => None,
        (Optimization::Size, None) => Some(run("-Os", "size")?.0),
        (Optimization::Performance, None) => Some(run("-O", "performance")?.0),
    };
    let source = job.path.canonicalize().unwrap_or_else(|_| job.path.clone());
    let mut read: Vec<PathBuf> = parse_depfile(&std::fs::read_to_string(&depfile).unwrap_or_default())
        .into_iter()
        .map(|path| path.canonicalize().unwrap_or(path))
        .filter(|path| *path != source)
        .collect();
    read.sort();
    read.dedup();
    let dependencies = read.iter().map(|path| (path.clone(), hash_read(path, started))).collect();
    Ok(Compiled {
        modules: vec![CompiledModule {
            name: job.name.clone(),
            stage,
            entry_point: job.entry_point.clone(),
            spirv,
            optimized,
            needs_legalization: false,
        }],
        dependencies,
        missing: missing_candidates(job, settings, &read),
        warnings,
    })
}

/// glslc's flags for the job, but for the optimization level and outputs:
/// the same options the in-process compile sets on shaderc.
fn args(job: &Job, stage: smolv_runtime::reflect::ShaderStage, settings: &Settings) -> Vec<OsString> {
    let (major, minor) = settings.spirv_version.major_minor();
    let mut args: Vec<OsString> = vec![
        "-x".into(),
        "hlsl".into(),
        format!("-fshader-stage={}", stage.name()).into(),
        format!("-fentry-point={}", job.entry_point).into(),
        format!("--target-env={}", settings.target_env.name()).into(),
        format!("--target-spv=spv{major}.{minor}").into(),
        "-fhlsl-16bit-types".into(),
    ];
    let flag = |on: bool, name: &str| on.then(|| OsString::from(name));
    args.extend(flag(settings.auto_map_locations, "-fauto-map-locations"));
    args.extend(flag(settings.auto_bind_uniforms, "-fauto-bind-uniforms"));
    args.extend(flag(settings.hlsl.offsets, "-fhlsl-offsets"));
    args.extend(flag(settings.hlsl.io_mapping, "-fhlsl-iomap"));
    args.extend(flag(!settings.strip_debug, "-g"));
    for base in &settings.binding_bases {
        args.push(format!("-f{}-binding-base", base.kind.name()).into());
        args.extend(base.stage.map(|stage| stage.name().into()));
        args.push(base.base.to_string().into());
    }
    for binding in &settings.hlsl.register_bindings {
        args.push("-fresource-set-binding".into());
        args.extend(binding.stage.map(|stage| stage.name().into()));
        args.extend([binding.register.clone(), binding.set.to_string(), binding.binding.to_string()].map(Into::into));
    }
    for define in &job.defines {
        args.push(match &define.value {
            Some(value) => format!("-D{}={value}", define.name).into(),
            None => format!("-D{}", define.name).into(),
        });
    }
    for dir in &settings.include_dirs {
        args.push("-I".into());
        args.push(dir.clone().into());
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{BindingBase, RegisterBinding, ResourceKind};
    use smolv_runtime::reflect::ShaderStage;

    /// Compiles `shaders/lit.frag` (HLSL with 16-bit types) with `glslc`
    /// and `limits`.
    #[cfg(unix)]
    fn compile_with(glslc: PathBuf, limits: tool::Limits) -> Vec<Diagnostic> {
        let job =
            Job { stage: Some(ShaderStage::Fragment), ..Job::for_test("lit.frag", "shaders/lit.frag", Language::Hlsl) };
        let mut settings = crate::compile::job::tests::settings();
        settings.hlsl.sixteen_bit_types = true;
        settings.glslc = Some(glslc);
        tool::tests::with_limits(limits, || compile(&job, &settings)).unwrap_err()
    }

    #[cfg(unix)]
    #[test]
    fn a_hung_glslc_costs_its_shader_and_its_children_stop() {
        let dir = tempfile::tempdir().unwrap();
        let ticks = dir.path().join("ticks");
        let glslc = tool::tests::hanging_tool(dir.path(), "glslc", &ticks);
        let limits = tool::Limits { time: std::time::Duration::from_millis(500), memory_bytes: 1 << 30 };
        let errors = compile_with(glslc, limits);
        assert_eq!(errors[0].path, Path::new("shaders/lit.frag"));
        assert!(errors[0].message.contains("glslc took longer than 0.5 s"), "{}", errors[0].message);
        tool::tests::assert_still(&ticks);
    }

    #[cfg(unix)]
    #[test]
    fn a_runaway_glslc_ends_at_the_memory_cap_and_costs_its_shader() {
        let dir = tempfile::tempdir().unwrap();
        let glslc = tool::tests::allocating_tool(dir.path(), "glslc");
        let limits = tool::Limits { time: std::time::Duration::from_secs(120), memory_bytes: 128 << 20 };
        let errors = compile_with(glslc, limits);
        assert_eq!(errors[0].path, Path::new("shaders/lit.frag"));
        assert!(
            errors[0].message.contains("crashed on this shader: glslc was killed by signal"),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn every_option_becomes_its_glslc_flag() {
        let job = Job {
            stage: Some(ShaderStage::Fragment),
            entry_point: "PSMain".to_owned(),
            defines: vec![crate::Define::new("FAST", None), crate::Define::new("TAPS", Some("4"))],
            ..Job::for_test("lit.frag", "shaders/lit.frag", Language::Hlsl)
        };
        let mut settings = crate::compile::job::tests::settings();
        settings.hlsl.sixteen_bit_types = true;
        settings.hlsl.io_mapping = true;
        settings.hlsl.register_bindings.push(RegisterBinding {
            stage: Some(ShaderStage::Fragment),
            register: "t0".to_owned(),
            set: 1,
            binding: 2,
        });
        settings.binding_bases.push(BindingBase { stage: None, kind: ResourceKind::UniformBuffer, base: 8 });
        settings.include_dirs.push(PathBuf::from("shaders/include"));
        settings.strip_debug = true;
        assert!(compiles(&job, &settings));
        let args: Vec<String> =
            args(&job, ShaderStage::Fragment, &settings).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(
            args.join(" "),
            "-x hlsl -fshader-stage=fragment -fentry-point=PSMain --target-env=vulkan1.2 --target-spv=spv1.5 \
             -fhlsl-16bit-types -fhlsl-iomap -fubo-binding-base 8 -fresource-set-binding fragment t0 1 2 -DFAST \
             -DTAPS=4 -I shaders/include"
        );
        settings.hlsl.sixteen_bit_types = false;
        assert!(!compiles(&job, &settings), "without 16-bit types, shaderc compiles it in-process");
    }
}
