//! Descriptor-set and pipeline layouts from reflection, deduplicated.

use std::collections::HashMap;
use std::sync::Mutex;

use ash::vk;

use super::{VulkanError, check, lock};
use crate::reflect::{DescriptorKind, Reflection};

/// A bindless set: one large array of descriptors at a fixed set index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BindlessSet {
    /// The set number (default 3).
    pub set: u32,
    /// What the array holds.
    pub kind: DescriptorKind,
    /// Size (upper bound, with descriptor indexing) of the array.
    pub max_descriptors: u32,
    /// Make the array partially bound, variable-count and updatable after
    /// binding. Needs the descriptor-indexing features (which lavapipe
    /// 22.3, for one, lacks); without it the set is a plain array.
    pub descriptor_indexing: bool,
}

impl Default for BindlessSet {
    fn default() -> Self {
        Self { set: 3, kind: DescriptorKind::CombinedImageSampler, max_descriptors: 4096, descriptor_indexing: true }
    }
}

/// How program layouts are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutOptions {
    /// Add a bindless set.
    pub bindless: Option<BindlessSet>,
    /// Create layouts with independent sets and one layout per stage, for
    /// graphics pipeline libraries (needs VK_EXT_graphics_pipeline_library
    /// enabled on the device). Default: on. Off gives plain layouts for
    /// monolithic pipelines.
    pub independent_sets: bool,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        Self { bindless: None, independent_sets: true }
    }
}

/// The layouts of a program: one set layout per set number, the full
/// pipeline layout, and one independent-sets layout per stage.
#[derive(Clone, Debug)]
pub struct ProgramLayout {
    /// Set layouts by set number; unused numbers hold an empty layout.
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    /// Push-constant ranges, merged over the stages.
    pub push_constants: Vec<vk::PushConstantRange>,
    /// The pipeline layout of the whole program.
    pub pipeline_layout: vk::PipelineLayout,
    /// Per stage: the pipeline layout of a library holding just that stage,
    /// with the other stages' sets left `VK_NULL_HANDLE` (empty without
    /// [`LayoutOptions::independent_sets`]).
    pub stage_layouts: Vec<(vk::ShaderStageFlags, vk::PipelineLayout)>,
}

/// One binding as it goes into a set layout: the hash key of that layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct BindingKey {
    binding: u32,
    descriptor_type: i32,
    count: u32,
    stages: u32,
    bindless: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PipelineLayoutKey {
    sets: Vec<u64>,
    push_constants: Vec<(u32, u32, u32)>,
    independent_sets: bool,
}

/// Creates layouts and keeps them: the same bindings always give the same
/// handle. Destroys everything it created when dropped.
pub struct LayoutCache {
    device: ash::Device,
    set_layouts: Mutex<HashMap<Vec<BindingKey>, vk::DescriptorSetLayout>>,
    pipeline_layouts: Mutex<HashMap<PipelineLayoutKey, vk::PipelineLayout>>,
}

impl std::fmt::Debug for LayoutCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayoutCache")
            .field("set_layouts", &self.set_layouts.lock().map_or(0, |m| m.len()))
            .field("pipeline_layouts", &self.pipeline_layouts.lock().map_or(0, |m| m.len()))
            .finish()
    }
}

impl LayoutCache {
    /// A cache creating layouts on `device`. The device must outlive it.
    pub fn new(device: ash::Device) -> Self {
        Self { device, set_layouts: Mutex::default(), pipeline_layouts: Mutex::default() }
    }

    /// How many distinct set and pipeline layouts exist.
    pub fn len(&self) -> (usize, usize) {
        (self.set_layouts.lock().map_or(0, |m| m.len()), self.pipeline_layouts.lock().map_or(0, |m| m.len()))
    }

    fn set_layout(&self, mut bindings: Vec<BindingKey>) -> Result<vk::DescriptorSetLayout, VulkanError> {
        bindings.sort();
        let mut cache = lock(&self.set_layouts);
        if let Some(&layout) = cache.get(&bindings) {
            return Ok(layout);
        }
        let vk_bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = bindings
            .iter()
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(vk::DescriptorType::from_raw(b.descriptor_type))
                    .descriptor_count(b.count)
                    .stage_flags(vk::ShaderStageFlags::from_raw(b.stages))
            })
            .collect();
        let bindless = bindings.iter().any(|b| b.bindless);
        let flags: Vec<vk::DescriptorBindingFlags> = bindings
            .iter()
            .map(|b| {
                if b.bindless {
                    vk::DescriptorBindingFlags::PARTIALLY_BOUND
                        | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND
                        | vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT
                } else {
                    vk::DescriptorBindingFlags::empty()
                }
            })
            .collect();
        let mut binding_flags = vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
        let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&vk_bindings);
        if bindless {
            info = info.flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL).push_next(&mut binding_flags);
        }
        // SAFETY: `info` and what it points to live across the call.
        let layout =
            check("vkCreateDescriptorSetLayout", unsafe { self.device.create_descriptor_set_layout(&info, None) })?;
        cache.insert(bindings, layout);
        Ok(layout)
    }

    fn pipeline_layout(
        &self,
        sets: &[vk::DescriptorSetLayout],
        push_constants: &[vk::PushConstantRange],
        independent_sets: bool,
    ) -> Result<vk::PipelineLayout, VulkanError> {
        use ash::vk::Handle;
        let key = PipelineLayoutKey {
            sets: sets.iter().map(|s| s.as_raw()).collect(),
            push_constants: push_constants.iter().map(|p| (p.stage_flags.as_raw(), p.offset, p.size)).collect(),
            independent_sets,
        };
        let mut cache = lock(&self.pipeline_layouts);
        if let Some(&layout) = cache.get(&key) {
            return Ok(layout);
        }
        let flags = if independent_sets {
            vk::PipelineLayoutCreateFlags::INDEPENDENT_SETS_EXT
        } else {
            vk::PipelineLayoutCreateFlags::empty()
        };
        let info =
            vk::PipelineLayoutCreateInfo::default().flags(flags).set_layouts(sets).push_constant_ranges(push_constants);
        // SAFETY: `info` and the slices it points to live across the call.
        let layout = check("vkCreatePipelineLayout", unsafe { self.device.create_pipeline_layout(&info, None) })?;
        cache.insert(key, layout);
        Ok(layout)
    }

    /// The layouts of a program made of `shaders` (one reflection per
    /// stage). Bindings of the same set and number are merged across
    /// stages; a disagreement on their type or count is an error.
    pub fn program(&self, shaders: &[&Reflection], options: &LayoutOptions) -> Result<ProgramLayout, VulkanError> {
        // set -> binding -> key
        let mut sets: Vec<Vec<BindingKey>> = Vec::new();
        let mut stage_sets: Vec<(vk::ShaderStageFlags, Vec<u32>)> = Vec::new();
        for reflection in shaders {
            let stage = vk::ShaderStageFlags::from_raw(reflection.stage.vk_stage_flag());
            let mut used = Vec::new();
            for b in &reflection.bindings {
                if options.bindless.is_some_and(|bindless| bindless.set == b.set) {
                    return Err(VulkanError::BindlessSetTaken(b.set));
                }
                let set = b.set as usize;
                if sets.len() <= set {
                    sets.resize(set + 1, Vec::new());
                }
                let key = BindingKey {
                    binding: b.binding,
                    descriptor_type: b.kind.vk_descriptor_type(),
                    count: b.count.max(1),
                    stages: b.stages | stage.as_raw(),
                    bindless: false,
                };
                match sets[set].iter_mut().find(|k| k.binding == b.binding) {
                    Some(existing)
                        if existing.descriptor_type != key.descriptor_type || existing.count != key.count =>
                    {
                        return Err(VulkanError::BindingConflict {
                            set: b.set,
                            binding: b.binding,
                            first: format!(
                                "{:?} × {}",
                                vk::DescriptorType::from_raw(existing.descriptor_type),
                                existing.count
                            ),
                            second: format!("{:?} × {}", b.kind, key.count),
                        });
                    }
                    Some(existing) => existing.stages |= key.stages,
                    None => sets[set].push(key),
                }
                used.push(b.set);
            }
            used.sort_unstable();
            used.dedup();
            stage_sets.push((stage, used));
        }
        if let Some(bindless) = options.bindless {
            let set = bindless.set as usize;
            if sets.len() <= set {
                sets.resize(set + 1, Vec::new());
            }
            let all = shaders.iter().fold(0, |acc, r| acc | r.stage.vk_stage_flag());
            sets[set] = vec![BindingKey {
                binding: 0,
                descriptor_type: bindless.kind.vk_descriptor_type(),
                count: bindless.max_descriptors,
                stages: all,
                bindless: bindless.descriptor_indexing,
            }];
        }
        let set_layouts = sets.into_iter().map(|bindings| self.set_layout(bindings)).collect::<Result<Vec<_>, _>>()?;
        let push_constants = merged_push_constants(shaders);
        let pipeline_layout = self.pipeline_layout(&set_layouts, &push_constants, options.independent_sets)?;
        if !options.independent_sets {
            return Ok(ProgramLayout { set_layouts, push_constants, pipeline_layout, stage_layouts: Vec::new() });
        }
        let bindless_set = options.bindless.map(|b| b.set);
        let stage_layouts = stage_sets
            .into_iter()
            .map(|(stage, used)| {
                let sets: Vec<vk::DescriptorSetLayout> = set_layouts
                    .iter()
                    .enumerate()
                    .map(|(i, &layout)| {
                        let i = i as u32;
                        if used.contains(&i) || bindless_set == Some(i) {
                            layout
                        } else {
                            vk::DescriptorSetLayout::null()
                        }
                    })
                    .collect();
                Ok((stage, self.pipeline_layout(&sets, &push_constants, true)?))
            })
            .collect::<Result<Vec<_>, VulkanError>>()?;
        Ok(ProgramLayout { set_layouts, push_constants, pipeline_layout, stage_layouts })
    }
}

/// One range covering every stage's push constants (ranges of all stages
/// must be identical across independent-set layouts).
fn merged_push_constants(shaders: &[&Reflection]) -> Vec<vk::PushConstantRange> {
    let ranges = shaders.iter().flat_map(|r| r.push_constants.iter());
    let (mut start, mut end, mut stages) = (u32::MAX, 0u32, 0u32);
    for range in ranges {
        start = start.min(range.offset);
        end = end.max(range.offset + range.size);
        stages |= range.stages;
    }
    if end == 0 {
        return Vec::new();
    }
    vec![vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::from_raw(stages),
        offset: start,
        size: end - start,
    }]
}

impl Drop for LayoutCache {
    fn drop(&mut self) {
        // SAFETY: the caller keeps the device alive and idle with respect to
        // these layouts when the cache is dropped, as documented on `new`.
        unsafe {
            for (_, layout) in self.pipeline_layouts.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
                self.device.destroy_pipeline_layout(layout, None);
            }
            for (_, layout) in self.set_layouts.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
                self.device.destroy_descriptor_set_layout(layout, None);
            }
        }
    }
}
