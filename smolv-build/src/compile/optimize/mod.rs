//! The optimizer: SPIRV-Tools' `-Os` (or `-O`) on each module, after HLSL's legalization where needed;
//! [`linked`] (in a worker where there are workers), or a configured [`binary`].

mod binary;
#[cfg(feature = "optimizer")]
pub(crate) mod linked;

use serde::{Deserialize, Serialize};

pub(crate) use binary::find_spirv_opt;

use crate::cache::Cache;
use crate::compile::worker::Compilers;
use crate::options::{Optimization, TargetEnv};
use crate::settings::Settings;

/// The optimizer's part of every cache key without a binary, with or without the `optimizer` feature.
pub(crate) const SPIRV_TOOLS_IDENTITY: &str = "spirv-tools 0.13.3 (SPIRV-Tools v2025.3)";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Recipe {
    pub(crate) level: Optimization,
    /// The environment the module's version needs ([`TargetEnv::accepting`]).
    pub(crate) env: TargetEnv,
    /// HLSL's legalization passes first (`--legalize-hlsl`).
    pub(crate) legalize: bool,
}

impl Recipe {
    pub(crate) fn is_empty(&self) -> bool {
        self.level == Optimization::None && !self.legalize
    }

    /// The recipe as `spirv-opt` flags.
    pub(crate) fn flags(&self) -> Vec<&'static str> {
        let level = match self.level {
            Optimization::None => None,
            Optimization::Size => Some("-Os"),
            Optimization::Performance => Some("-O"),
        };
        self.legalize.then_some("--legalize-hlsl").into_iter().chain(level).collect()
    }

    pub(crate) fn describe(&self) -> String {
        self.flags().join(" ")
    }
}

/// Why the optimizer gave no module: whether the result may be cached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// SPIRV-Tools refused the module with a message: it would again.
    Refused(String),
    /// It did not get to judge the module (no start, a crash): never cached.
    Transient(String),
    /// This build has no optimizer: not cached.
    Unavailable,
}

#[derive(Debug)]
pub(crate) enum Once {
    Failed(Failure),
    /// Stopped at the time limit: not tried again.
    OverTime(String),
}

impl From<Failure> for Once {
    fn from(failure: Failure) -> Self {
        Self::Failed(failure)
    }
}

/// The optimizer's part of the cache key: a configured binary's `--version`, else [`SPIRV_TOOLS_IDENTITY`].
pub(crate) fn identity(settings: &Settings, cache: &Cache) -> String {
    match &settings.spirv_opt {
        Some(tool) => crate::compile::tool::identity(tool, "--version", cache),
        None => SPIRV_TOOLS_IDENTITY.to_owned(),
    }
}

/// Runs `recipe` on `spirv`: the configured binary, else the linked SPIRV-Tools (retried if transient).
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
        #[cfg(feature = "optimizer")]
        None => retrying(|| compilers.optimize(spirv, recipe)),
        #[cfg(not(feature = "optimizer"))]
        None => {
            let _ = compilers;
            Err(Failure::Unavailable)
        }
    }
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
