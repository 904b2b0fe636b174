//! A `spirv-opt` binary named explicitly (`Config::spirv_opt`, `SMOLV_SPIRV_OPT`), run with the recipe.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Failure, Once, Recipe};
use crate::compile::tool;
use crate::env::Env;

/// The `spirv-opt` to run instead of the linked optimizer: configured, else `SMOLV_SPIRV_OPT`; never `PATH`'s.
pub(crate) fn find_spirv_opt(configured: Option<&Path>, env: Env) -> Option<PathBuf> {
    configured.map(Path::to_owned).or(env.var("SMOLV_SPIRV_OPT").map(PathBuf::from))
}

pub(super) fn optimize_once(spirv: &[u32], recipe: &Recipe, tool: &Path) -> Result<Vec<u32>, Once> {
    // `--scalar-block-layout`: see `linked::validator_options`.
    let target_env = format!("--target-env={}", recipe.env.name());
    let mut command = Command::new(tool);
    command.args(recipe.flags()).args(["--scalar-block-layout", &target_env, "-", "-o", "-"]);
    let recipe = recipe.describe();
    let input: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    let limits = tool::Limits::from_env();
    let output = match tool::run(&mut command, Some(input), limits) {
        Ok(output) => output,
        Err(tool::Stopped::Start(e)) => {
            return Err(Failure::Transient(format!("cannot run {}: {e}", tool.display())).into());
        }
        Err(stopped) => return Err(Once::OverTime(format!("spirv-opt {recipe} {stopped}"))),
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
    crate::compile::frontend::spirv_words(&output.stdout)
        .ok_or_else(|| Failure::Transient("spirv-opt produced no valid module".to_owned()).into())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cache::Cache;
    use crate::compile::optimize::tests::corpus_module;
    use crate::options::{Optimization, TargetEnv};

    /// What the build does with a binary: a run, and one more after a
    /// transient failure.
    fn optimize(spirv: &[u32], level: Optimization, env: TargetEnv, tool: &Path) -> Result<Vec<u32>, Failure> {
        let recipe = Recipe { level, env, legalize: false };
        super::super::retrying(|| optimize_once(spirv, &recipe, tool))
    }

    /// SPIRV-Tools as installed (Debian's 2023.1 here), for the tests of a
    /// real binary.
    pub(crate) fn installed_spirv_opt() -> Option<PathBuf> {
        tool::find(None, crate::env::var_os("SMOLV_SPIRV_OPT"), "spirv-opt")
    }

    #[test]
    fn spirv_opt_is_never_looked_up_on_path() {
        // This machine's PATH may well hold one (Debian's, in CI): only the
        // configured path or the variable name a binary.
        let env = Env::default();
        assert_eq!(find_spirv_opt(None, env), crate::env::var("SMOLV_SPIRV_OPT").map(PathBuf::from));
        let sdk = Path::new("/opt/vulkan-sdk/bin/spirv-opt");
        assert_eq!(find_spirv_opt(Some(sdk), env).as_deref(), Some(sdk));
    }

    #[test]
    fn optimizer_crash_is_an_error_not_a_dead_build() {
        // spirv-opt 2023.1 segfaults on this valid cooperative-matrix module.
        let module = corpus_module("glslang/spv.1.3.coopmat.comp.spv");
        let Some(tool) = installed_spirv_opt() else {
            assert!(crate::env::var_os("CI").is_none(), "CI must have spirv-opt");
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
        let module = corpus_module("blender/43_spv16_overlay_edit_mesh_edge_next_vert.spv");
        let Some(tool) = installed_spirv_opt() else {
            assert!(crate::env::var_os("CI").is_none(), "CI must have spirv-opt");
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
        assert_eq!(tool::identity(&tool, "--version", &cache), "SPIRV-Tools v1");
        assert_eq!(tool::identity(&tool, "--version", &cache), "SPIRV-Tools v1");
        assert_eq!(runs(), 1, "the second lookup spawns nothing");
        install(&script.replace("v1", "v22"));
        assert_eq!(tool::identity(&tool, "--version", &cache), "SPIRV-Tools v22", "a replaced binary is asked again");
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
        let module = smolv_format::doc_example_module();
        let optimized = optimize(&module, Optimization::Size, TargetEnv::Vulkan1_0, &tool);
        assert_eq!(optimized, Ok(module));
        assert_eq!(runs(dir.path()), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_crash_every_time_is_transient_and_a_diagnostic_is_refused() {
        let module = smolv_format::doc_example_module();
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
        let module = smolv_format::doc_example_module();
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
        let module = smolv_format::doc_example_module();
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
