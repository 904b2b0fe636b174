//! The shaders the build embedded, decoded once at start, with their reflection.

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
    /// The shader's `version()` these words are of.
    #[cfg(feature = "hot-reload")]
    version: u64,
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
    /// How they were embedded (the packing smolv-build chose).
    pub(crate) encoding: String,
}

impl Shaders {
    /// Decodes every embedded module.
    pub(crate) fn load() -> Result<Self, GameError> {
        let start = Instant::now();
        let modules = SHADERS.shaders().iter().map(decode).collect::<Result<Vec<_>, _>>()?;
        let decode_time = start.elapsed();
        let spirv_bytes = modules.iter().map(|m| m.words.len() * 4).sum();
        let (embedded_bytes, encoding) = (SHADERS.stored_len(), SHADERS.packing().to_string());
        Ok(Self { modules, embedded_bytes, spirv_bytes, decode_time, encoding })
    }

    /// Every module.
    pub(crate) fn all(&self) -> &[LoadedShader] {
        &self.modules
    }

    /// How many modules come from each source language: `GLSL 7, WGSL 4, Slang 1`.
    pub(crate) fn languages(&self) -> String {
        let counts = LANGUAGES
            .map(|language| (language, self.modules.iter().filter(|m| language_of(&m.name) == language).count()));
        let counts: Vec<String> =
            counts.iter().filter(|(_, n)| *n > 0).map(|(language, n)| format!("{language} {n}")).collect();
        counts.join(", ")
    }

    /// The module called `name` (as `include_shaders!` names it).
    pub(crate) fn get(&self, name: &str) -> Result<&LoadedShader, GameError> {
        self.modules
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| GameError::Shader { name: name.to_owned(), reason: "not embedded".to_owned() })
    }

    /// Decodes again every module whose `version()` moved on (a reload); returns the previous
    /// ones, for [`restore`](Self::restore).
    #[cfg(feature = "hot-reload")]
    pub(crate) fn refresh_changed(&mut self) -> Result<Vec<LoadedShader>, GameError> {
        let mut previous = Vec::new();
        for (module, shader) in self.modules.iter_mut().zip(SHADERS.shaders()) {
            if shader.version() != module.version {
                previous.push(std::mem::replace(module, decode(shader)?));
            }
        }
        Ok(previous)
    }

    /// Puts modules [`refresh_changed`](Self::refresh_changed) replaced back, still counted as seen.
    #[cfg(feature = "hot-reload")]
    pub(crate) fn restore(&mut self, previous: Vec<LoadedShader>) {
        for mut previous in previous {
            if let Some(module) = self.modules.iter_mut().find(|m| m.name == previous.name) {
                previous.version = module.version;
                *module = previous;
            }
        }
    }

    /// A pipeline stage of module `name` with `specialization`.
    pub(crate) fn stage<'a>(&'a self, name: &str, specialization: &'a [(u32, Value)]) -> Result<Stage<'a>, GameError> {
        let module = self.get(name)?;
        Ok(Stage { spirv: &module.words, reflection: &module.reflection, specialization })
    }
}

/// Every shader the build embedded.
pub(crate) static SHADERS: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();

/// The languages smolv-build compiles, in the table's order.
const LANGUAGES: [&str; 5] = ["GLSL", "HLSL", "WGSL", "Slang", "SPIR-V"];

/// A module's source language, from its file's extension.
fn language_of(module: &str) -> &'static str {
    let file = module.split(['#', '@']).next().unwrap_or(module);
    match file.rsplit('.').next() {
        Some("wgsl") => "WGSL",
        Some("slang") => "Slang",
        Some("hlsl") => "HLSL",
        Some("spv") => "SPIR-V",
        _ => "GLSL",
    }
}

fn error(name: &str, e: &dyn std::fmt::Display) -> GameError {
    GameError::Shader { name: name.to_owned(), reason: e.to_string() }
}

/// One module: its words (the latest published, with hot reload) and their reflection.
fn decode(shader: &smolv_runtime::Shader) -> Result<LoadedShader, GameError> {
    // Read first: words published after it are seen as a change next time.
    #[cfg(feature = "hot-reload")]
    let version = shader.version();
    let words = shader.decode().map_err(|e| error(shader.name(), &e))?;
    let reflection = Reflection::from_spirv(&words).map_err(|e| error(shader.name(), &e))?;
    Ok(LoadedShader {
        name: shader.name().to_owned(),
        words,
        reflection,
        #[cfg(feature = "hot-reload")]
        version,
    })
}

#[cfg(test)]
mod tests {
    use super::language_of;

    #[test]
    fn a_module_s_language_comes_from_its_source_s_extension() {
        assert_eq!(language_of("particle.slang#fs_main"), "Slang");
        assert_eq!(language_of("hud.wgsl#vs_main"), "WGSL");
        assert_eq!(language_of("sprite.frag@additive"), "GLSL");
        assert_eq!(language_of("blur.comp.hlsl"), "HLSL");
    }
}
