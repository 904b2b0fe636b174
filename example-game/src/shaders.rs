//! The shaders the build embedded, decoded once at start.
//!
//! Normally they come from the smolv bundle that `include_shaders!` embeds
//! (zstd + SMOL-V + reflection). With the `raw-spirv` feature the same
//! modules are embedded as plain SPIR-V instead, which is what
//! `tests/binary_size.rs` compares against.

use std::time::{Duration, Instant};

use smolv_runtime::reflect::Reflection;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::Stage;

use crate::error::GameError;

/// One decoded module.
#[derive(Debug)]
pub(crate) struct LoadedShader {
    pub(crate) name: String,
    pub(crate) words: Vec<u32>,
    pub(crate) reflection: Reflection,
    /// Identifies the code in pipeline-cache keys.
    pub(crate) code_hash: u64,
}

/// Every module, and what loading them cost.
#[derive(Debug)]
pub(crate) struct Shaders {
    modules: Vec<LoadedShader>,
    /// Bytes the binary carries for the shaders.
    pub(crate) embedded_bytes: usize,
    /// Bytes of SPIR-V after decoding.
    pub(crate) spirv_bytes: usize,
    /// Time to decode (decompress + SMOL-V decode) all of them.
    pub(crate) decode_time: Duration,
    /// How they were embedded.
    pub(crate) encoding: &'static str,
}

impl Shaders {
    /// Decodes every embedded module.
    pub(crate) fn load() -> Result<Self, GameError> {
        let start = Instant::now();
        let (modules, embedded_bytes, encoding) = embedded::load()?;
        let decode_time = start.elapsed();
        let spirv_bytes = modules.iter().map(|m| m.words.len() * 4).sum();
        Ok(Self { modules, embedded_bytes, spirv_bytes, decode_time, encoding })
    }

    /// The number of modules.
    pub(crate) fn len(&self) -> usize {
        self.modules.len()
    }

    /// The module called `name` (as `include_shaders!` names it).
    pub(crate) fn get(&self, name: &str) -> Result<&LoadedShader, GameError> {
        self.modules
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| GameError::Shader { name: name.to_owned(), reason: "not embedded".to_owned() })
    }

    /// A pipeline stage of module `name` with `specialization`.
    pub(crate) fn stage<'a>(&'a self, name: &str, specialization: &'a [(u32, Value)]) -> Result<Stage<'a>, GameError> {
        let module = self.get(name)?;
        Ok(Stage { spirv: &module.words, reflection: &module.reflection, code_hash: module.code_hash, specialization })
    }
}

#[cfg(not(feature = "raw-spirv"))]
mod embedded {
    use super::{GameError, LoadedShader};

    static SHADERS: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();

    pub(super) fn load() -> Result<(Vec<LoadedShader>, usize, &'static str), GameError> {
        let error =
            |name: &str, e: &dyn std::fmt::Display| GameError::Shader { name: name.to_owned(), reason: e.to_string() };
        let mut modules = Vec::with_capacity(SHADERS.len());
        for shader in SHADERS.iter() {
            let words = shader.decode().map_err(|e| error(shader.name(), &e))?;
            let code_hash = shader.content_hash().map_err(|e| error(shader.name(), &e))?.short();
            modules.push(LoadedShader {
                name: shader.name().to_owned(),
                words,
                reflection: shader.reflection().clone(),
                code_hash,
            });
        }
        Ok((modules, SHADERS.bundle_bytes().len(), "smolv bundle"))
    }
}

#[cfg(feature = "raw-spirv")]
mod embedded {
    use std::hash::{Hash, Hasher};

    use smolv_runtime::reflect::Reflection;

    use super::{GameError, LoadedShader};

    include!(concat!(env!("OUT_DIR"), "/raw_shaders.rs"));

    pub(super) fn load() -> Result<(Vec<LoadedShader>, usize, &'static str), GameError> {
        let mut modules = Vec::with_capacity(RAW_SHADERS.len());
        let mut embedded = 0;
        for &(name, spirv, reflection) in RAW_SHADERS {
            embedded += spirv.len() + reflection.len();
            let words = spirv.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
            let reflection = Reflection::from_bytes(reflection)
                .map_err(|e| GameError::Shader { name: name.to_owned(), reason: e.to_string() })?;
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            spirv.hash(&mut hasher);
            modules.push(LoadedShader { name: name.to_owned(), words, reflection, code_hash: hasher.finish() });
        }
        Ok((modules, embedded, "raw SPIR-V"))
    }
}
