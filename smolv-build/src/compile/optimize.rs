//! The size optimizer, for every language.
//!
//! It runs the `spirv-opt` binary with the SPIRV-Tools `-Os` recipe (or
//! `-O`) on each compiled module, rather than optimizing in-process (GLSL
//! and HLSL are compiled by shaderc without optimization first; shaderc's
//! own size level, the same recipe in-process, is used only when `spirv-opt`
//! is not installed):
//! - No C++ build. Debian's SPIRV-Tools has no C API for the optimizer, and
//!   the `spirv-tools` crate builds SPIRV-Tools from source with CMake,
//!   minutes per clean build; the binary is one `apt-get install
//!   spirv-tools` away and is what every Vulkan SDK ships.
//! - Crash isolation. SPIRV-Tools 2023.1 segfaults on some valid modules
//!   (a cooperative-matrix shader of our corpus, several of glslang's own
//!   test shaders); in a separate process a crash is just a failed step,
//!   and the build falls back to the unoptimized module with a warning,
//!   where in-process it would kill the build script.
//!
//! What is cached after a failure depends on whether it would repeat (see
//! [`Failure`]): a module spirv-opt refused with a message ships
//! unoptimized and is cached like any result. A failure to start, a crash
//! or an OOM kill is tried once more; if it fails again the module ships
//! unoptimized for this build only, and is neither cached nor uploaded, so
//! the next build optimizes it.
//! - It is exactly the recipe users know from the command line.
//!
//! Spawning costs a few milliseconds per module, paid only on cache misses.
//! Each run has the limits of every child process of the build
//! ([`tool::run`]): a run past the time limit is stopped with its children
//! and not tried again (the module ships unoptimized, for this build only),
//! and a runaway allocation ends at the memory cap.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::Cache;
use crate::compile::tool;
use crate::options::{Optimization, TargetEnv};

/// Finds `spirv-opt`: the configured path, `SMOLV_SPIRV_OPT`, or `PATH`.
pub(crate) fn find_spirv_opt(configured: Option<&Path>) -> Option<PathBuf> {
    tool::find(configured, "SMOLV_SPIRV_OPT", "spirv-opt")
}

/// `spirv-opt --version`, for cache keys, remembered in the cache by the
/// tool's path, size and modification time (see [`tool::identity`]).
pub(crate) fn spirv_opt_identity(tool: &Path, cache: &Cache) -> String {
    tool::identity(tool, "--version", cache)
}

/// Why `spirv-opt` gave no module. Whether the failure would repeat
/// decides whether the module, shipped unoptimized, may be cached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// spirv-opt ran to its end and refused the module with a message (an
    /// invalid module, an unsupported capability): the same module fails
    /// the same way next time, so the unoptimized result may be cached.
    Refused(String),
    /// It did not get to judge the module: it could not be started (a
    /// missing binary, too many open files), a signal ended it (a crash,
    /// the OOM killer), it exited without a word, or what it wrote is no
    /// module. The next try may work, so the result is never cached.
    Transient(String),
}

/// Optimizes `spirv` with `tool`, trying a second time after a
/// [`Failure::Transient`] one (but for a run past the time limit, which
/// would only cost that time again). The caller warns and keeps the
/// unoptimized module on failure, and caches that only for a
/// [`Failure::Refused`].
pub(crate) fn optimize(spirv: &[u32], level: Optimization, env: TargetEnv, tool: &Path) -> Result<Vec<u32>, Failure> {
    match optimize_once(spirv, level, env, tool) {
        Err(Once::OverTime(why)) => Err(Failure::Transient(why)),
        Err(Once::Failed(Failure::Transient(first))) => {
            optimize_once(spirv, level, env, tool).map_err(|again| match again {
                Once::Failed(Failure::Transient(why)) | Once::OverTime(why) if why == first => {
                    Failure::Transient(format!("{why} (twice)"))
                }
                Once::Failed(Failure::Transient(why)) | Once::OverTime(why) => {
                    Failure::Transient(format!("{first}; tried again: {why}"))
                }
                Once::Failed(refused) => refused,
            })
        }
        Err(Once::Failed(failure)) => Err(failure),
        Ok(optimized) => Ok(optimized),
    }
}

/// Why one run gave no module.
enum Once {
    Failed(Failure),
    /// Stopped at the time limit: transient, but not tried again.
    OverTime(String),
}

impl From<Failure> for Once {
    fn from(failure: Failure) -> Self {
        Self::Failed(failure)
    }
}

/// One run of `spirv-opt` on `spirv`, under the limits of every tool
/// ([`tool::run`]).
fn optimize_once(spirv: &[u32], level: Optimization, env: TargetEnv, tool: &Path) -> Result<Vec<u32>, Once> {
    let recipe = match level {
        Optimization::None => return Ok(spirv.to_vec()),
        Optimization::Size => "-Os",
        Optimization::Performance => "-O",
    };
    // `--scalar-block-layout` lets the validator that runs first accept
    // blocks in GL_EXT_scalar_block_layout's `scalar` layout, which carries
    // no OpExtension of its own; without it such modules shipped
    // unoptimized. Other layouts are valid scalar layouts too.
    let mut command = Command::new(tool);
    command.args([recipe, "--scalar-block-layout", &format!("--target-env={}", env.name()), "-", "-o", "-"]);
    let input: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    let limits = tool::Limits::from_env();
    let output = match tool::run(&mut command, Some(input), limits) {
        Ok(output) => output,
        Err(tool::Stopped::Start(e)) => {
            return Err(Failure::Transient(format!("cannot run {}: {e}", tool.display())).into());
        }
        Err(stopped @ tool::Stopped::OverTime(_)) => {
            return Err(Once::OverTime(format!("spirv-opt {recipe} {stopped}")));
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        return Err(match crate::compile::tool::crashed(output.status) {
            Some(how) => Failure::Transient(format!(
                "spirv-opt {recipe} crashed on it: it {how} (a tool's limits are {}): {stderr}",
                limits.describe()
            )),
            None if stderr.is_empty() => {
                Failure::Transient(format!("spirv-opt {recipe} failed ({}) and said nothing", output.status))
            }
            None => Failure::Refused(format!("spirv-opt {recipe} failed ({}): {stderr}", output.status)),
        }
        .into());
    }
    let bytes = output.stdout;
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) || bytes[..4] != 0x0723_0203u32.to_le_bytes() {
        return Err(Failure::Transient("spirv-opt produced no valid module".to_owned()).into());
    }
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn corpus_module(name: &str) -> Option<Vec<u32>> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/spirv").join(name);
        let bytes = std::fs::read(path).ok()?;
        Some(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    #[test]
    fn optimizer_crash_is_an_error_not_a_dead_build() {
        // spirv-opt 2023.1 segfaults on this valid cooperative-matrix module.
        let (Some(tool), Some(module)) = (find_spirv_opt(None), corpus_module("glslang/spv.1.3.coopmat.comp.spv"))
        else {
            assert!(std::env::var_os("CI").is_none(), "CI must have spirv-opt and the corpus");
            return;
        };
        match optimize(&module, Optimization::Size, TargetEnv::Vulkan1_1, &tool) {
            // A crash is never taken for a verdict on the module.
            Err(failure) => {
                assert!(matches!(&failure, Failure::Transient(why) if why.contains("spirv-opt")), "{failure:?}")
            }
            // A fixed spirv-opt may optimize it; then the output must still be SPIR-V.
            Ok(optimized) => assert_eq!(optimized[0], 0x0723_0203),
        }
    }

    #[test]
    fn optimizing_shrinks_a_real_module() {
        let (Some(tool), Some(module)) =
            (find_spirv_opt(None), corpus_module("blender/43_spv16_overlay_edit_mesh_edge_next_vert.spv"))
        else {
            assert!(std::env::var_os("CI").is_none(), "CI must have spirv-opt and the corpus");
            return;
        };
        let optimized = optimize(&module, Optimization::Size, TargetEnv::Vulkan1_3, &tool).unwrap();
        assert!(optimized.len() < module.len());
    }

    #[cfg(unix)]
    #[test]
    fn the_version_is_asked_once_per_binary() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (tool, log) = (dir.path().join("spirv-opt"), dir.path().join("log"));
        let script = format!("#!/bin/sh\necho run >> '{}'\necho 'SPIRV-Tools v1'\n", log.display());
        // Written aside and renamed: an executable open for writing while a
        // test thread forks could fail with "text file busy".
        let install = |script: &str| {
            let temp = dir.path().join("spirv-opt.new");
            std::fs::write(&temp, script).unwrap();
            std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
            std::fs::rename(&temp, &tool).unwrap();
        };
        install(&script);
        let cache = Cache::new(dir.path().join("cache"));
        let runs = || std::fs::read_to_string(&log).map_or(0, |l| l.lines().count());
        assert_eq!(spirv_opt_identity(&tool, &cache), "SPIRV-Tools v1");
        assert_eq!(spirv_opt_identity(&tool, &cache), "SPIRV-Tools v1");
        assert_eq!(runs(), 1, "the second lookup spawns nothing");
        install(&script.replace("v1", "v22"));
        assert_eq!(spirv_opt_identity(&tool, &cache), "SPIRV-Tools v22", "a replaced binary is asked again");
        assert_eq!(runs(), 2);
    }

    /// A stand-in `spirv-opt` running `body` (sh), which logs each run to
    /// `runs` in `dir`.
    #[cfg(unix)]
    pub(crate) fn fake_spirv_opt(dir: &Path, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let (tool, temp) = (dir.join("spirv-opt"), dir.join("spirv-opt.new"));
        let log = dir.join("runs");
        std::fs::write(&temp, format!("#!/bin/sh\necho run >> '{}'\n{body}\n", log.display())).unwrap();
        std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Renamed into place: see `the_version_is_asked_once_per_binary`.
        std::fs::rename(&temp, &tool).unwrap();
        tool
    }

    #[cfg(unix)]
    pub(crate) fn runs(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join("runs")).map_or(0, |log| log.lines().count())
    }

    #[cfg(unix)]
    #[test]
    fn a_killed_optimizer_is_tried_once_more() {
        let dir = tempfile::tempdir().unwrap();
        // Killed (as the OOM killer does) on its first run, then it works.
        let marker = dir.path().join("killed-once");
        let body = format!("if [ ! -e '{0}' ]; then touch '{0}'; kill -9 $$; fi\ncat", marker.display());
        let tool = fake_spirv_opt(dir.path(), &body);
        let module = smolv_runtime::doc_example_module();
        let optimized = optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool);
        assert_eq!(optimized, Ok(module));
        assert_eq!(runs(dir.path()), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_crash_every_time_is_transient_and_a_diagnostic_is_refused() {
        let module = smolv_runtime::doc_example_module();
        let dir = tempfile::tempdir().unwrap();
        let tool = fake_spirv_opt(dir.path(), "kill -SEGV $$");
        let failure = optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool).unwrap_err();
        assert!(matches!(&failure, Failure::Transient(why) if why.contains("SIGSEGV")), "{failure:?}");
        assert_eq!(runs(dir.path()), 2, "tried once more");

        let dir = tempfile::tempdir().unwrap();
        let tool = fake_spirv_opt(dir.path(), "echo 'error: line 0: Invalid capability' >&2\nexit 1");
        let failure = optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool).unwrap_err();
        assert!(matches!(&failure, Failure::Refused(why) if why.contains("Invalid capability")), "{failure:?}");
        assert_eq!(runs(dir.path()), 1, "a verdict on the module is not asked for twice");

        let dir = tempfile::tempdir().unwrap();
        let tool = fake_spirv_opt(dir.path(), "exit 3");
        let failure = optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool).unwrap_err();
        assert!(matches!(failure, Failure::Transient(_)), "an exit without a message is no verdict: {failure:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_hung_optimizer_is_stopped_with_its_children_and_not_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let ticks = dir.path().join("ticks");
        let body = format!(
            "(while :; do echo tick >> '{}'; sleep 0.05; done) </dev/null >/dev/null 2>&1 &\nsleep 60",
            ticks.display()
        );
        let tool = fake_spirv_opt(dir.path(), &body);
        let limits = tool::Limits { time: std::time::Duration::from_millis(500), memory_bytes: 1 << 30 };
        let module = smolv_runtime::doc_example_module();
        let failure = tool::tests::with_limits(limits, || {
            optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool).unwrap_err()
        });
        assert!(matches!(&failure, Failure::Transient(why) if why.contains("took longer than 0.5 s")), "{failure:?}");
        assert_eq!(runs(dir.path()), 1, "a hang is not waited for twice");
        tool::tests::assert_still(&ticks);
    }

    #[cfg(unix)]
    #[test]
    fn a_runaway_optimizer_ends_at_the_memory_cap() {
        let dir = tempfile::tempdir().unwrap();
        let tool =
            fake_spirv_opt(dir.path(), "x=a; i=0; while [ $i -lt 29 ]; do x=\"$x$x\"; i=$((i+1)); done; echo survived");
        let limits = tool::Limits { time: std::time::Duration::from_secs(120), memory_bytes: 128 << 20 };
        let module = smolv_runtime::doc_example_module();
        let failure = tool::tests::with_limits(limits, || {
            optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool).unwrap_err()
        });
        // Had it lived on to print `survived`, that would be no module.
        assert!(matches!(&failure, Failure::Transient(why) if !why.contains("no valid module")), "{failure:?}");
    }

    #[test]
    fn a_missing_tool_is_an_error() {
        let err = optimize(
            &[0x0723_0203, 0x0001_0000, 0, 1, 0],
            Optimization::Size,
            TargetEnv::Vulkan1_0,
            Path::new("/no/such/spirv-opt"),
        );
        assert!(matches!(err, Err(Failure::Transient(why)) if why.contains("cannot run")));
    }
}
