//! Descriptor sets, made from reflection: one per set a program's shaders declare, each binding
//! filled by what it holds.

use std::collections::BTreeSet;

use ash::vk;
use smolv_runtime::reflect::{DescriptorKind, Reflection};

use crate::error::{GameError, vk_check};

/// The resources bindings refer to.
pub(crate) struct Resources {
    pub(crate) frame: vk::Buffer,
    pub(crate) particles: vk::Buffer,
    pub(crate) scene_view: vk::ImageView,
    pub(crate) sampler: vk::Sampler,
}

/// The descriptor sets of one program: `(set number, set)`.
pub(crate) struct ProgramSets {
    pub(crate) sets: Vec<(u32, vk::DescriptorSet)>,
    /// The bindings, to rewrite when a resource changes (resize).
    bindings: Vec<(vk::DescriptorSet, u32, DescriptorKind)>,
}

/// One pool for every set the game makes.
pub(crate) struct Descriptors {
    device: ash::Device,
    pool: vk::DescriptorPool,
}

impl Descriptors {
    pub(crate) fn new(device: &ash::Device) -> Result<Self, GameError> {
        let sizes = [
            vk::DescriptorPoolSize { ty: vk::DescriptorType::UNIFORM_BUFFER, descriptor_count: 16 },
            vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: 4 },
            vk::DescriptorPoolSize { ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER, descriptor_count: 8 },
        ];
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(32).pool_sizes(&sizes);
        // SAFETY: creation on a live device; destroyed in Drop.
        let pool = vk_check("vkCreateDescriptorPool", unsafe { device.create_descriptor_pool(&info, None) })?;
        Ok(Self { device: device.clone(), pool })
    }

    /// Allocates and fills the sets `stages` use, with `set_layouts` (by
    /// set number) from the program's layout.
    pub(crate) fn program_sets(
        &self,
        stages: &[&Reflection],
        set_layouts: &[vk::DescriptorSetLayout],
        resources: &Resources,
    ) -> Result<ProgramSets, GameError> {
        let used: BTreeSet<u32> = stages.iter().flat_map(|s| s.bindings.iter().map(|b| b.set)).collect();
        let mut program = ProgramSets { sets: Vec::new(), bindings: Vec::new() };
        for number in used {
            let Some(&layout) = set_layouts.get(number as usize) else { continue };
            let layouts = [layout];
            let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(self.pool).set_layouts(&layouts);
            // SAFETY: the pool and layout are live.
            let set = vk_check("vkAllocateDescriptorSets", unsafe { self.device.allocate_descriptor_sets(&info) })?[0];
            program.sets.push((number, set));
            for binding in stages.iter().flat_map(|s| &s.bindings).filter(|b| b.set == number) {
                if !program.bindings.iter().any(|&(s, b, _)| s == set && b == binding.binding) {
                    program.bindings.push((set, binding.binding, binding.kind));
                }
            }
        }
        self.write(&program, resources)?;
        Ok(program)
    }

    /// Points every binding of `program` at `resources`.
    pub(crate) fn write(&self, program: &ProgramSets, resources: &Resources) -> Result<(), GameError> {
        for &(set, binding, kind) in &program.bindings {
            let image = [vk::DescriptorImageInfo {
                sampler: resources.sampler,
                image_view: resources.scene_view,
                image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            }];
            let (ty, buffer) = match kind {
                DescriptorKind::UniformBuffer => (vk::DescriptorType::UNIFORM_BUFFER, Some(resources.frame)),
                DescriptorKind::StorageBuffer => (vk::DescriptorType::STORAGE_BUFFER, Some(resources.particles)),
                DescriptorKind::CombinedImageSampler => (vk::DescriptorType::COMBINED_IMAGE_SAMPLER, None),
                other => {
                    return Err(GameError::Shader {
                        name: format!("binding {binding}"),
                        reason: format!("the game has no resource for a {other:?} binding"),
                    });
                }
            };
            let buffers = buffer.map(|buffer| [vk::DescriptorBufferInfo { buffer, offset: 0, range: vk::WHOLE_SIZE }]);
            let write = vk::WriteDescriptorSet::default().dst_set(set).dst_binding(binding).descriptor_type(ty);
            let write = match &buffers {
                Some(buffers) => write.buffer_info(buffers),
                None => write.image_info(&image),
            };
            // SAFETY: the set, buffers, view and sampler are live and not in use by the GPU.
            unsafe { self.device.update_descriptor_sets(&[write], &[]) };
        }
        Ok(())
    }
}

impl Drop for Descriptors {
    fn drop(&mut self) {
        // SAFETY: the GPU is idle (the renderer waits before dropping).
        unsafe { self.device.destroy_descriptor_pool(self.pool, None) };
    }
}
