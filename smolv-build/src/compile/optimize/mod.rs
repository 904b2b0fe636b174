//! The size optimizer, for every language: SPIRV-Tools' `-Os` recipe (or
//! `-O`) on each compiled module, after HLSL's legalization where the
//! frontend left a module unlegalized.
//!
//! By default SPIRV-Tools runs in process, linked through the `spirv-tools`
//! crate (feature `optimizer`, [`linked`]): no binary on `PATH`, and no
//! process start per module. "In process" means in a worker process when
//! the build has workers (a request beside compiling and translating), so
//! a SPIRV-Tools crash (2023.1 segfaults on some valid modules, such as a
//! cooperative-matrix shader of our corpus), a hang or a runaway
//! allocation ends a worker, not the build; without workers, in the
//! build's own process.
//!
//! A `spirv-opt` binary named explicitly ([`Config::spirv_opt`] or
//! `SMOLV_SPIRV_OPT`) runs instead, as a child process ([`binary`]); it is
//! never looked up on `PATH`.
//!
//! What is cached after a failure depends on whether it would repeat (see
//! [`Failure`]): a module SPIRV-Tools refused with a message ships
//! unoptimized and is cached like any result. A failure to start, a crash
//! or an OOM kill is tried once more; if it fails again the module ships
//! unoptimized for this build only, and is neither cached nor uploaded, so
//! the next build optimizes it. A run past the time limit is not tried
//! again, and not cached either. A build without the optimizer (and
//! without a binary) ships the module unoptimized and does not cache it:
//! its cache key is the one a build with the optimizer computes.
//!
//! [`Config::spirv_opt`]: crate::Config::spirv_opt

mod binary;
#[cfg(feature = "optimizer")]
pub(crate) mod linked;

use serde::{Deserialize, Serialize};

pub(crate) use binary::find_spirv_opt;

use crate::cache::Cache;
use crate::compile::worker::Compilers;
use crate::options::{Optimization, TargetEnv};
use crate::settings::Settings;

/// The optimizer's part of every cache key when no binary is configured:
/// the exact `spirv-tools` crate the workspace pins (`=0.13.3` in the root
/// `Cargo.toml`), whose bundled SPIRV-Tools is the optimizer. The same
/// whether or not this build has the `optimizer` feature: a key is always
/// what a full build computes, which is why a build without it caches
/// nothing it could not optimize.
pub(crate) const SPIRV_TOOLS_IDENTITY: &str = "spirv-tools 0.13.3 (SPIRV-Tools v2025.3)";

/// What one module needs from SPIRV-Tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Recipe {
    /// `-Os`, `-O`, or none.
    pub(crate) level: Optimization,
    /// The environment the module's version needs
    /// ([`TargetEnv::accepting`]).
    pub(crate) env: TargetEnv,
    /// HLSL's legalization passes first (a module from a frontend that left
    /// HLSL unlegalized): `--legalize-hlsl`.
    pub(crate) legalize: bool,
}

impl Recipe {
    /// Whether there is nothing to run.
    pub(crate) fn is_empty(&self) -> bool {
        self.level == Optimization::None && !self.legalize
    }

    /// The recipe as `spirv-opt` flags, for messages and the binary.
    pub(crate) fn flags(&self) -> Vec<&'static str> {
        let mut flags = Vec::new();
        if self.legalize {
            flags.push("--legalize-hlsl");
        }
        match self.level {
            Optimization::None => {}
            Optimization::Size => flags.push("-Os"),
            Optimization::Performance => flags.push("-O"),
        }
        flags
    }

    /// [`Recipe::flags`] joined, for messages.
    pub(crate) fn describe(&self) -> String {
        self.flags().join(" ")
    }
}

/// Why the optimizer gave no module. Whether the failure would repeat
/// decides whether the module, shipped unoptimized, may be cached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// SPIRV-Tools ran to its end and refused the module with a message (an
    /// invalid module, an unsupported capability): the same module fails
    /// the same way next time, so the unoptimized result may be cached.
    Refused(String),
    /// It did not get to judge the module: it could not be started (a
    /// missing binary, too many open files, no worker), a signal ended it
    /// (a crash, the OOM killer), it exited without a word, or what it
    /// wrote is no module. The next try may work, so the result is never
    /// cached.
    Transient(String),
    /// This build has no optimizer: no `optimizer` feature and no binary.
    /// A build with one would optimize the module, so it is not cached.
    Unavailable,
}

/// Why one run gave no module.
#[derive(Debug)]
pub(crate) enum Once {
    Failed(Failure),
    /// Stopped at the time limit: transient, but not tried again.
    OverTime(String),
}

impl From<Failure> for Once {
    fn from(failure: Failure) -> Self {
        Self::Failed(failure)
    }
}

/// The optimizer's part of the cache key: a configured binary's
/// `--version` (remembered in the cache, [`binary::spirv_opt_identity`]),
/// else [`SPIRV_TOOLS_IDENTITY`].
pub(crate) fn identity(settings: &Settings, cache: &Cache) -> String {
    match &settings.spirv_opt {
        Some(tool) => binary::spirv_opt_identity(tool, cache),
        None => SPIRV_TOOLS_IDENTITY.to_owned(),
    }
}

/// Runs `recipe` on `spirv`: with the configured binary, else with the
/// linked SPIRV-Tools in a worker (or here, without workers), trying a
/// second time after a [`Failure::Transient`] failure (but for a run past
/// the time limit, which would only cost that time again). The caller
/// warns and keeps the unoptimized module on failure, and caches that only
/// for a [`Failure::Refused`].
pub(crate) fn optimize(
    spirv: &[u32],
    recipe: &Recipe,
    settings: &Settings,
    compilers: &Compilers,
) -> Result<Vec<u32>, Failure> {
    if recipe.is_empty() {
        return Ok(spirv.to_vec());
    }
    match &settings.spirv_opt {
        Some(tool) => retrying(|| binary::optimize_once(spirv, recipe, tool)),
        None => with_linked(spirv, recipe, compilers),
    }
}

#[cfg(feature = "optimizer")]
fn with_linked(spirv: &[u32], recipe: &Recipe, compilers: &Compilers) -> Result<Vec<u32>, Failure> {
    retrying(|| compilers.optimize(spirv, recipe))
}

#[cfg(not(feature = "optimizer"))]
fn with_linked(_: &[u32], _: &Recipe, _: &Compilers) -> Result<Vec<u32>, Failure> {
    Err(Failure::Unavailable)
}

/// Runs `once`, and again after a transient failure.
fn retrying(mut once: impl FnMut() -> Result<Vec<u32>, Once>) -> Result<Vec<u32>, Failure> {
    match once() {
        Err(Once::OverTime(why)) => Err(Failure::Transient(why)),
        Err(Once::Failed(Failure::Transient(first))) => once().map_err(|again| match again {
            Once::Failed(Failure::Transient(why)) | Once::OverTime(why) if why == first => {
                Failure::Transient(format!("{why} (twice)"))
            }
            Once::Failed(Failure::Transient(why)) | Once::OverTime(why) => {
                Failure::Transient(format!("{first}; tried again: {why}"))
            }
            Once::Failed(other) => other,
        }),
        Err(Once::Failed(failure)) => Err(failure),
        Ok(optimized) => Ok(optimized),
    }
}

/// `words` if they start like a SPIR-V module, else a transient failure
/// (`who` produced no module).
fn checked(words: Vec<u32>, who: &str) -> Result<Vec<u32>, Failure> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(Failure::Transient(format!("{who} produced no valid module")));
    }
    Ok(words)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    #[cfg(unix)]
    pub(crate) use binary::tests::{fake_spirv_opt, runs};

    /// A module of the shared corpus's `spirv/` (`SMOLV_CORPUS_DIR`, else
    /// `../shared/corpus` next to the workspace; see its README), as words.
    pub(crate) fn corpus_module(name: &str) -> Vec<u32> {
        let path = corpus_spirv().join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("the corpus module {}: {e} (set SMOLV_CORPUS_DIR to the corpus)", path.display())
        });
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    /// The corpus's `spirv/` directory.
    pub(crate) fn corpus_spirv() -> std::path::PathBuf {
        crate::env::var_os("SMOLV_CORPUS_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
            .join("spirv")
    }

    #[test]
    fn the_identity_names_the_pinned_crate_of_cargo_lock() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
        let locked = lock
            .split("[[package]]")
            .find(|package| package.contains("\nname = \"spirv-tools\"\n"))
            .and_then(|package| package.lines().find_map(|l| l.strip_prefix("version = \"")))
            .and_then(|version| version.strip_suffix('"'))
            .expect("spirv-tools in Cargo.lock");
        assert!(
            SPIRV_TOOLS_IDENTITY.starts_with(&format!("spirv-tools {locked} (")),
            "{SPIRV_TOOLS_IDENTITY} is not the locked {locked}"
        );
        // Pinned exactly, so that no `cargo update` changes the optimizer
        // under an unchanged key.
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let pin = manifest.lines().find(|l| l.starts_with("spirv-tools =")).expect("the workspace's spirv-tools");
        assert!(pin.contains(&format!("version = \"={locked}\"")), "{pin}");
    }

    #[test]
    fn the_key_part_is_the_binary_s_version_only_when_one_is_configured() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let settings = crate::compile::job::tests::settings();
        assert_eq!(identity(&settings, &cache), SPIRV_TOOLS_IDENTITY);
    }

    #[test]
    fn recipes_read_as_spirv_opt_flags() {
        let recipe = Recipe { level: Optimization::Size, env: TargetEnv::Vulkan1_0, legalize: true };
        assert_eq!(recipe.describe(), "--legalize-hlsl -Os");
        let none = Recipe { level: Optimization::None, legalize: false, ..recipe };
        assert!(none.is_empty());
        assert!(!Recipe { legalize: true, ..none }.is_empty());
        assert_eq!(Recipe { level: Optimization::Performance, ..none }.describe(), "-O");
    }

    #[test]
    fn a_transient_failure_is_tried_once_more_and_a_verdict_is_not() {
        let mut runs = 0;
        let result = retrying(|| {
            runs += 1;
            if runs == 1 { Err(Once::Failed(Failure::Transient("crashed".into()))) } else { Ok(vec![1]) }
        });
        assert_eq!((result, runs), (Ok(vec![1]), 2));
        let mut runs = 0;
        let result = retrying(|| {
            runs += 1;
            Err(Once::Failed(Failure::Refused("invalid".into())))
        });
        assert_eq!((result, runs), (Err(Failure::Refused("invalid".into())), 1));
        let mut runs = 0;
        let result = retrying(|| {
            runs += 1;
            Err(Once::OverTime("took too long".into()))
        });
        assert_eq!((result, runs), (Err(Failure::Transient("took too long".into())), 1));
        let result = retrying(|| Err(Once::Failed(Failure::Transient("crashed".into()))));
        assert_eq!(result, Err(Failure::Transient("crashed (twice)".into())));
    }
}
