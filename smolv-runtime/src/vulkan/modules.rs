//! Shader modules for one pipeline creation: created from SPIR-V, pointed
//! at by the stage create infos, destroyed once the pipeline exists. Their
//! specialization data can outlive them
//! ([`into_specialization`](ShaderModules::into_specialization)).

use std::ffi::CString;

use ash::vk;

use super::specialization::SpecializationData;
use super::{VulkanError, check};
use crate::reflect::Reflection;
use smolv_codec::specialize::Value;

/// One stage, ready for the driver: its code (specialized ahead or not)
/// and the values left for the driver.
pub(crate) struct StageCode<'a> {
    pub(crate) stage: vk::ShaderStageFlags,
    pub(crate) code: &'a [u32],
    pub(crate) values: &'a [(u32, Value)],
    pub(crate) reflection: &'a Reflection,
}

/// Shader modules, their specialization data and entry names; the modules
/// are destroyed on drop.
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
    /// Each stage's code is valid SPIR-V for `device` (the contract of the
    /// manager's pipeline calls).
    pub(crate) unsafe fn new(device: &'d ash::Device, stages: &[StageCode<'_>]) -> Result<Self, VulkanError> {
        let mut modules =
            Self { device, stages: Vec::with_capacity(stages.len()), specialization: Vec::with_capacity(stages.len()) };
        for stage in stages {
            let specialization = SpecializationData::new(stage.code, stage.values)?;
            let info = vk::ShaderModuleCreateInfo::default().code(stage.code);
            // SAFETY: `info` points at the code, alive across the call; the
            // code is valid SPIR-V (this function's contract). On error the
            // modules made so far are destroyed with `modules`.
            let module = check("vkCreateShaderModule", unsafe { device.create_shader_module(&info, None) })?;
            modules.stages.push((stage.stage, module, entry_name(stage.reflection)));
            modules.specialization.push(specialization);
        }
        Ok(modules)
    }

    /// The specialization infos, to keep alive while [`stage_infos`](Self::stage_infos) is used.
    pub(crate) fn specialization_infos(&self) -> Vec<Option<vk::SpecializationInfo<'_>>> {
        self.specialization.iter().map(SpecializationData::info).collect()
    }

    /// Destroys the modules and gives back the specialization data, for a
    /// library to keep: the Khronos validation layer (1.3.239) keeps only
    /// the pointer to each stage's specialization data and reads it again
    /// whenever a pipeline is linked from the library
    /// (`VUID-VkPipelineShaderStageCreateInfo-pSpecializationInfo-06719`
    /// on garbage otherwise). Moving the data leaves its buffers where
    /// they are, so the pointers the layer holds stay good.
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
                match specialization {
                    Some(specialization) => info.specialization_info(specialization),
                    None => info,
                }
            })
            .collect()
    }
}

impl Drop for ShaderModules<'_> {
    fn drop(&mut self) {
        for (_, module, _) in self.stages.drain(..) {
            // SAFETY: modules may be destroyed once pipeline creation returned,
            // and nothing else holds these.
            unsafe { self.device.destroy_shader_module(module, None) };
        }
    }
}

/// The entry point's name as a C string (`main` if it holds a NUL, which
/// no valid module's does).
pub(crate) fn entry_name(reflection: &Reflection) -> CString {
    CString::new(reflection.entry_point.as_str()).unwrap_or_else(|_| c"main".to_owned())
}
