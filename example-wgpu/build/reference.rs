//! The reference: the same shader sources compiled without smolv, the way
//! a wgpu user compiles them for wgpu's own paths. GLSL and HLSL through
//! `glslc`, Slang through `slangc` (both plain, unoptimized Vulkan SPIR-V,
//! for `wgpu::include_spirv!` / `ShaderSource::SpirV`), and WESL linked
//! into WGSL by the `wesl` crate (for `ShaderSource::Wgsl`, as
//! `include_wgsl!` would take it). WGSL needs nothing: the program reads
//! the original file. Written to `OUT_DIR/reference/`; the golden image and
//! `tests/paths.rs` compare smolv's output with what wgpu draws from these.

use std::path::{Path, PathBuf};
use std::process::Command;

/// GLSL and HLSL sources (relative to the crate) and glslc's extra
/// arguments; each becomes `reference/<file name>.spv`.
const GLSLC: [(&str, &[&str]); 6] = [
    ("shaders/quad.vert", &[]),
    ("shaders/tint.frag", &[]),
    ("tests/paths/up.vert", &[]),
    ("tests/paths/up.frag", &[]),
    ("tests/paths/up.vert.hlsl", &["-x", "hlsl", "-fshader-stage=vert"]),
    ("tests/paths/up.frag.hlsl", &["-x", "hlsl", "-fshader-stage=frag"]),
];

/// Slang sources, entry point and stage; each becomes
/// `reference/<file name>.<entry>.spv`.
const SLANGC: [(&str, &str, &str); 3] = [
    ("shaders/checker.slang", "fs_main", "fragment"),
    ("tests/paths/up.slang", "vs_main", "vertex"),
    ("tests/paths/up.slang", "fs_main", "fragment"),
];

/// A WESL root, a root module in it, and the features build.rs gives
/// smolv.
type WeslModule = (&'static str, &'static str, &'static [(&'static str, bool)]);

/// The WESL modules; each becomes `reference/<module>.wesl.wgsl`.
const WESL: [WeslModule; 2] = [("shaders", "ring", &[("glow", true)]), ("tests/paths", "up", &[])];

/// Compiles every reference, or reports the first failure as a Cargo
/// error and ends the build script.
pub(crate) fn compile() {
    if let Err(error) = try_compile() {
        for line in error.lines() {
            println!("cargo::error=reference shaders: {line}");
        }
        std::process::exit(1);
    }
}

#[allow(clippy::disallowed_methods, reason = "OUT_DIR, which Cargo sets")]
fn try_compile() -> Result<(), String> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?).join("reference");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    println!("cargo::rerun-if-env-changed=SMOLV_GLSLC");
    println!("cargo::rerun-if-env-changed=SMOLV_SLANGC");
    let glslc = tool("SMOLV_GLSLC", "glslc");
    for (source, extra) in GLSLC {
        let target = out.join(format!("{}.spv", file_name(source)));
        run(Command::new(&glslc).args(extra).arg(source).arg("-o").arg(&target))?;
    }
    let slangc = tool("SMOLV_SLANGC", "slangc");
    for (source, entry, stage) in SLANGC {
        let target = out.join(format!("{}.{entry}.spv", file_name(source)));
        // What smolv-build passes too (slangc's glslang back end is not
        // shipped with the binary setup.sh fetches; the entry point keeps
        // its name, as the generated `ENTRY_POINT` says), with no
        // optimization.
        let args = [
            "-target",
            "spirv",
            "-emit-spirv-directly",
            "-O0",
            "-fvk-use-entrypoint-name",
            "-entry",
            entry,
            "-stage",
            stage,
        ];
        run(Command::new(&slangc).arg(source).args(args).arg("-o").arg(&target))?;
    }
    for (root, module, features) in WESL {
        let mut compiler = wesl::Wesl::new(root);
        for &(name, on) in features {
            compiler.set_feature(name, on);
        }
        let path = format!("package::{module}").parse().map_err(|e| format!("{module}: {e}"))?;
        let linked = compiler.compile(&path).map_err(|e| format!("{root}/{module}.wesl: {e}"))?;
        let target = out.join(format!("{module}.wesl.wgsl"));
        std::fs::write(&target, linked.to_string()).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(())
}

/// The tool `variable` names, else `name` on the `PATH`.
#[allow(clippy::disallowed_methods, reason = "the reference compilers' variables, watched in try_compile")]
fn tool(variable: &str, name: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(|| PathBuf::from(name), PathBuf::from)
}

fn file_name(source: &str) -> &str {
    Path::new(source).file_name().and_then(|name| name.to_str()).unwrap_or(source)
}

/// Runs `command`; its failure, with its output, is the error.
fn run(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}
