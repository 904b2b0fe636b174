//! Shader modules for one pipeline creation, destroyed once it exists.

use std::ffi::CString;

use ash::vk;

use super::specialization::SpecializationData;
use super::{VulkanError, check};
use crate::reflect::Reflection;
use smolv_codec::specialize::Value;

/// One stage, ready for the driver: its code and the values left for it.
pub(crate) struct StageCode<'a> {
    pub(crate) stage: vk::ShaderStageFlags,
    pub(crate) code: &'a [u32],
    pub(crate) values: &'a [(u32, Value)],
    pub(crate) reflection: &'a Reflection,
}

/// A [`StageCode`] that owns what it holds, so that it can travel to a worker.
pub(crate) struct OwnedStageCode {
    pub(crate) stage: vk::ShaderStageFlags,
    pub(crate) code: Vec<u32>,
    pub(crate) values: Vec<(u32, Value)>,
    pub(crate) reflection: Reflection,
}

impl OwnedStageCode {
    pub(crate) fn borrow(&self) -> StageCode<'_> {
        StageCode { stage: self.stage, code: &self.code, values: &self.values, reflection: &self.reflection }
    }
}

/// Shader modules (destroyed on drop), their specialization data and entry names.
pub(crate) struct ShaderModules<'d> {
    device: &'d ash::Device,
    stages: Vec<(vk::ShaderStageFlags, vk::ShaderModule, CString)>,
    /// One per stage, in the order of `stages`.
    specialization: Vec<SpecializationData>,
}

impl<'d> ShaderModules<'d> {
    /// Creates one module per stage.
    ///
    /// # Safety
    /// Each stage's code is valid SPIR-V for `device`.
    pub(crate) unsafe fn new(device: &'d ash::Device, stages: &[StageCode<'_>]) -> Result<Self, VulkanError> {
        let mut modules = Self { device, stages: Vec::new(), specialization: Vec::new() };
        for stage in stages {
            let specialization = SpecializationData::new(stage.code, stage.values)?;
            let info = vk::ShaderModuleCreateInfo::default().code(stage.code);
            // SAFETY: valid SPIR-V (the contract), alive across the call.
            let module = check("vkCreateShaderModule", unsafe { device.create_shader_module(&info, None) })?;
            // `main` for a name with a NUL, which no valid module has.
            let entry = CString::new(stage.reflection.entry_point.as_str()).unwrap_or_else(|_| c"main".to_owned());
            modules.stages.push((stage.stage, module, entry));
            modules.specialization.push(specialization);
        }
        Ok(modules)
    }

    /// The specialization infos, to keep alive while [`stage_infos`](Self::stage_infos) is used.
    pub(crate) fn specialization_infos(&self) -> Vec<Option<vk::SpecializationInfo<'_>>> {
        self.specialization.iter().map(SpecializationData::info).collect()
    }

    /// Destroys the modules; a library keeps the specialization data (validation reads it at links).
    pub(super) fn into_specialization(mut self) -> Vec<SpecializationData> {
        std::mem::take(&mut self.specialization)
    }

    /// The stage create infos.
    pub(crate) fn stage_infos<'a>(
        &'a self,
        specializations: &'a [Option<vk::SpecializationInfo<'a>>],
    ) -> Vec<vk::PipelineShaderStageCreateInfo<'a>> {
        self.stages
            .iter()
            .zip(specializations)
            .map(|((stage, module, entry), specialization)| {
                let info = vk::PipelineShaderStageCreateInfo::default().stage(*stage).module(*module).name(entry);
                if let Some(specialization) = specialization { info.specialization_info(specialization) } else { info }
            })
            .collect()
    }
}

impl Drop for ShaderModules<'_> {
    fn drop(&mut self) {
        for (_, module, _) in self.stages.drain(..) {
            // SAFETY: pipeline creation returned, and nothing else holds these.
            unsafe { self.device.destroy_shader_module(module, None) };
        }
    }
}
