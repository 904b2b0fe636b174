//! One shader of a recorded pipeline: its stage, name, hashes and spec-constant values, and how a shader the
//! game has now compares with it.

use ash::vk;

use crate::reflect::Reflection;
use smolv_codec::specialize::Value;

/// Most bytes in a recorded shader name.
pub(super) const MAX_NAME: usize = 1024;
/// Most spec-constant values a recorded stage holds.
pub(super) const MAX_CONSTANTS: usize = 256;

/// BLAKE3 of SPIR-V words, as little-endian bytes.
fn code_hash(spirv: &[u32]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    for word in spirv {
        hasher.update(&word.to_le_bytes());
    }
    *hasher.finalize().as_bytes()
}

/// BLAKE3 of a reflection's bytes (all zero where it does not serialize).
fn interface_hash(reflection: &Reflection) -> [u8; 32] {
    reflection.to_bytes().map(|bytes| *blake3::hash(&bytes).as_bytes()).unwrap_or_default()
}

/// One shader of a recorded pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedStage {
    /// The Vulkan stage (`VK_SHADER_STAGE_*_BIT`).
    pub stage: vk::ShaderStageFlags,
    /// The name the game gave the shader (`sprite.frag@additive`) with the [`Recorder`](super::Recorder), or empty.
    pub name: String,
    /// BLAKE3 of the SPIR-V words (little-endian bytes).
    pub code_hash: [u8; 32],
    /// BLAKE3 of the stage's reflection: a changed module with the same one is rebuilt on replay, else dropped.
    pub interface_hash: [u8; 32],
    /// The spec-constant values, `(constant id, value)`.
    pub specialization: Vec<(u32, Value)>,
}

/// How a shader the game has now compares with a recorded one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderChange {
    /// The same SPIR-V.
    Unchanged,
    /// Other SPIR-V with the same reflection: a replay builds it.
    CodeChanged,
    /// Another stage or reflection: a replay drops the entry.
    InterfaceChanged,
}

impl RecordedStage {
    /// How `spirv`, reflected as `reflection`, compares with this stage.
    ///
    /// ```
    /// use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// use smolv_runtime::vulkan::ash::vk;
    /// use smolv_runtime::vulkan::warmup::{RecordedStage, ShaderChange};
    /// let reflection = Reflection::new(ShaderStage::Compute, "main");
    /// let stage = RecordedStage::of(vk::ShaderStageFlags::COMPUTE, "fill.comp", &[1, 2], &reflection, &[]);
    /// assert_eq!(stage.compare(&[1, 2], &reflection), ShaderChange::Unchanged);
    /// assert_eq!(stage.compare(&[1, 3], &reflection), ShaderChange::CodeChanged);
    /// assert_eq!(stage.compare(&[1, 3], &Reflection::new(ShaderStage::Compute, "other")), ShaderChange::InterfaceChanged);
    /// ```
    pub fn compare(&self, spirv: &[u32], reflection: &Reflection) -> ShaderChange {
        if reflection.stage.vk_stage_flag() != self.stage.as_raw() {
            ShaderChange::InterfaceChanged
        } else if code_hash(spirv) == self.code_hash {
            ShaderChange::Unchanged
        } else if interface_hash(reflection) == self.interface_hash {
            ShaderChange::CodeChanged
        } else {
            ShaderChange::InterfaceChanged
        }
    }

    /// The recorded form of a shader.
    pub fn of(
        stage: vk::ShaderStageFlags,
        name: &str,
        spirv: &[u32],
        reflection: &Reflection,
        values: &[(u32, Value)],
    ) -> Self {
        Self {
            stage,
            name: name.to_owned(),
            code_hash: code_hash(spirv),
            interface_hash: interface_hash(reflection),
            specialization: values.to_vec(),
        }
    }
}
