//! WGSL for wgpu targets (`Config::for_wgpu`): each module's
//! SPIR-V → minified WGSL through naga (`convert`, `minify`), the texts
//! packed as one stream (`stream`), and the choice between shipping that
//! or SPIR-V, front ends included (`choose`, with the cost table in
//! `packing::cost`).
//!
//! Without smolv-build's `wgpu` feature, nothing converts: every module is
//! refused, and the build ships SPIR-V (the option check in `config`
//! refuses a target that asks for WGSL before it gets here).

mod choose;
#[cfg(feature = "wgpu")]
mod convert;
#[cfg(feature = "wgpu")]
mod minify;
mod stream;

use rayon::prelude::*;

pub(crate) use choose::{WgpuChoice, WgpuPath, choose};
pub(crate) use stream::{PackedWgsl, pack_texts};

/// Why a module ships as SPIR-V in a build for wgpu: which step of naga's
/// refused it, and naga's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) step: &'static str,
    pub(crate) reason: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reason.lines().find(|l| !l.trim().is_empty()) {
            // One line: the reason's first, for a Cargo warning.
            Some(reason) => write!(f, "{}: {}", self.step, reason.trim()),
            None => f.write_str(self.step),
        }
    }
}

/// Each module's minified WGSL, or why naga refused it; in the order given.
pub(crate) fn convert_all(spirv: &[&[u32]]) -> Vec<Result<String, Refused>> {
    spirv.par_iter().map(|words| to_wgsl(words)).collect()
}

#[cfg(feature = "wgpu")]
fn to_wgsl(spirv: &[u32]) -> Result<String, Refused> {
    convert::to_wgsl(spirv)
}

#[cfg(not(feature = "wgpu"))]
fn to_wgsl(_: &[u32]) -> Result<String, Refused> {
    Err(Refused { step: "smolv-build was built without its `wgpu` feature", reason: String::new() })
}
