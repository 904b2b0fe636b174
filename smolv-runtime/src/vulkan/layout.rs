//! Descriptor-set and pipeline layouts from reflection, deduplicated.

use std::collections::HashMap;
use std::sync::Mutex;

use ash::vk;

use super::{VulkanError, check, lock};
use crate::interface::Binding;
use crate::reflect::{DescriptorKind, Reflection};

/// A bindless set: one large array of descriptors at a fixed set index.
///
/// ```
/// use smolv_runtime::reflect::DescriptorKind;
/// use smolv_runtime::vulkan::{BindlessSet, LayoutOptions};
/// let textures = BindlessSet { set: 3, kind: DescriptorKind::CombinedImageSampler, max_descriptors: 4096, descriptor_indexing: true };
/// let options = LayoutOptions::new().bindless(textures);
/// assert_eq!(options.bindless, Some(textures));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BindlessSet {
    /// The set number (default 3).
    pub set: u32,
    /// What the array holds.
    pub kind: DescriptorKind,
    /// Size (upper bound, with descriptor indexing) of the array.
    pub max_descriptors: u32,
    /// Partially bound, variable-count, update-after-bind (descriptor indexing); else plain.
    pub descriptor_indexing: bool,
}

impl Default for BindlessSet {
    fn default() -> Self {
        Self { set: 3, kind: DescriptorKind::CombinedImageSampler, max_descriptors: 4096, descriptor_indexing: true }
    }
}

/// How program layouts are built: [`new`](Self::new), then the setters.
///
/// ```
/// use smolv_runtime::vulkan::LayoutOptions;
/// // Plain layouts, for monolithic pipelines only.
/// let options = LayoutOptions::new().independent_sets(false);
/// assert!(options.bindless.is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct LayoutOptions {
    /// Add a bindless set.
    pub bindless: Option<BindlessSet>,
    /// Independent sets and one layout per stage, for pipeline libraries (default: on).
    pub independent_sets: bool,
}

impl LayoutOptions {
    /// The defaults: no bindless set, independent sets on.
    ///
    /// ```
    /// use smolv_runtime::vulkan::LayoutOptions;
    /// let options = LayoutOptions::new();
    /// assert!(options.bindless.is_none() && options.independent_sets);
    /// assert_eq!(options, LayoutOptions::default());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { bindless: None, independent_sets: true }
    }

    /// Adds a bindless set (default: none).
    ///
    /// ```
    /// use smolv_runtime::vulkan::{BindlessSet, LayoutOptions};
    /// let options = LayoutOptions::new().bindless(BindlessSet { set: 2, ..BindlessSet::default() });
    /// assert_eq!(options.bindless.map(|b| b.set), Some(2));
    /// ```
    #[must_use]
    pub const fn bindless(mut self, set: BindlessSet) -> Self {
        self.bindless = Some(set);
        self
    }

    /// Sets [`independent_sets`](Self#structfield.independent_sets) (default: on).
    ///
    /// ```
    /// let options = smolv_runtime::vulkan::LayoutOptions::new().independent_sets(false);
    /// assert!(!options.independent_sets);
    /// ```
    #[must_use]
    pub const fn independent_sets(mut self, independent: bool) -> Self {
        self.independent_sets = independent;
        self
    }
}

impl Default for LayoutOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// The layouts of a program, owned by the cache or manager that returned them.
///
/// ```no_run
/// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties, vertex: &smolv_runtime::reflect::Reflection, fragment: &smolv_runtime::reflect::Reflection) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{LayoutCache, LayoutOptions};
/// // SAFETY: `device` is valid, outlives the cache, and is idle when the cache drops.
/// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
/// let program = layouts.program(&[vertex, fragment], &LayoutOptions::default())?;
/// let set_layout = program.set_layouts[0]; // for vkAllocateDescriptorSets
/// let pipeline_layout = program.pipeline_layout; // for the whole program
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ProgramLayout {
    /// Set layouts by set number; unused numbers hold an empty layout.
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    /// Push-constant ranges, merged over the stages.
    pub push_constants: Vec<vk::PushConstantRange>,
    /// The pipeline layout of the whole program.
    pub pipeline_layout: vk::PipelineLayout,
    /// Per stage: a library's layout, other stages' sets null (empty without
    /// [`LayoutOptions::independent_sets`](LayoutOptions#structfield.independent_sets)).
    pub stage_layouts: Vec<(vk::ShaderStageFlags, vk::PipelineLayout)>,
}

/// One binding of a set layout's hash key (its `set` 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct BindingKey {
    binding: Binding,
    bindless: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PipelineLayoutKey {
    sets: Vec<u64>,
    push_constants: Vec<(u32, u32, u32)>,
    independent_sets: bool,
}

/// Creates layouts once per distinct key, destroying them when dropped.
///
/// ```no_run
/// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties, vertex: &smolv_runtime::reflect::Reflection, fragment: &smolv_runtime::reflect::Reflection) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{LayoutCache, LayoutOptions};
/// // SAFETY: `device` is valid, outlives the cache, and is idle when the cache drops.
/// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
/// let first = layouts.program(&[vertex, fragment], &LayoutOptions::default())?;
/// let again = layouts.program(&[vertex, fragment], &LayoutOptions::default())?;
/// assert_eq!(first.pipeline_layout, again.pipeline_layout, "created once");
/// # Ok(())
/// # }
/// ```
pub struct LayoutCache {
    device: ash::Device,
    limits: vk::PhysicalDeviceLimits,
    set_layouts: Mutex<HashMap<Vec<BindingKey>, vk::DescriptorSetLayout>>,
    pipeline_layouts: Mutex<HashMap<PipelineLayoutKey, vk::PipelineLayout>>,
}

impl std::fmt::Debug for LayoutCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (sets, pipelines) = self.len();
        f.debug_struct("LayoutCache").field("set_layouts", &sets).field("pipeline_layouts", &pipelines).finish()
    }
}

impl LayoutCache {
    /// A cache creating layouts on `device`, refusing those past `limits`.
    ///
    /// # Safety
    /// - `device` is valid and outlives the cache; `limits` are its physical device's (or lower).
    /// - When the cache drops, no pipeline creation or recording uses its layouts.
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::LayoutCache;
    /// // SAFETY: `device` is valid, `limits` are its physical device's, and the
    /// // device outlives the cache and is idle when it drops.
    /// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
    /// assert_eq!(layouts.len(), (0, 0));
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn new(device: ash::Device, limits: &vk::PhysicalDeviceLimits) -> Self {
        Self { device, limits: *limits, set_layouts: Mutex::default(), pipeline_layouts: Mutex::default() }
    }

    /// How many distinct set and pipeline layouts exist.
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties, vertex: &smolv_runtime::reflect::Reflection, fragment: &smolv_runtime::reflect::Reflection) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{LayoutCache, LayoutOptions};
    /// // SAFETY: as in `LayoutCache::new`.
    /// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
    /// layouts.program(&[vertex], &LayoutOptions::default())?;
    /// let (set_layouts, pipeline_layouts) = layouts.len();
    /// println!("{set_layouts} set layouts, {pipeline_layouts} pipeline layouts");
    /// # Ok(())
    /// # }
    /// ```
    pub fn len(&self) -> (usize, usize) {
        (self.set_layouts.lock().map_or(0, |m| m.len()), self.pipeline_layouts.lock().map_or(0, |m| m.len()))
    }

    fn set_layout(&self, mut bindings: Vec<BindingKey>) -> Result<vk::DescriptorSetLayout, VulkanError> {
        bindings.sort_by_key(|b| b.binding.binding);
        let mut cache = lock(&self.set_layouts);
        if let Some(&layout) = cache.get(&bindings) {
            return Ok(layout);
        }
        let vk_bindings: Vec<_> = bindings.iter().map(|b| b.binding.vk_layout_binding()).collect();
        let bindless = bindings.iter().any(|b| b.bindless);
        use vk::DescriptorBindingFlags as B;
        let bindless_flags = B::PARTIALLY_BOUND | B::UPDATE_AFTER_BIND | B::VARIABLE_DESCRIPTOR_COUNT;
        let flags: Vec<B> = bindings.iter().map(|b| if b.bindless { bindless_flags } else { B::empty() }).collect();
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
        use vk::PipelineLayoutCreateFlags as F;
        let flags = if independent_sets { F::INDEPENDENT_SETS_EXT } else { F::empty() };
        let info =
            vk::PipelineLayoutCreateInfo::default().flags(flags).set_layouts(sets).push_constant_ranges(push_constants);
        // SAFETY: `info` and the slices it points to live across the call.
        let layout = check("vkCreatePipelineLayout", unsafe { self.device.create_pipeline_layout(&info, None) })?;
        cache.insert(key, layout);
        Ok(layout)
    }

    /// The layouts of a program of `shaders` (one per stage), bindings merged across stages.
    ///
    /// # Errors
    /// - [`VulkanError::BindingConflict`]: stages disagree on a binding's type or count.
    /// - [`VulkanError::BindlessSetTaken`]: a shader uses the bindless set.
    /// - [`VulkanError::SetOutOfRange`], [`VulkanError::PushConstantsOutOfRange`],
    ///   [`VulkanError::DescriptorLimit`]: past the device's limits.
    /// - A failing Vulkan call.
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties, vertex: &smolv_runtime::reflect::Reflection, fragment: &smolv_runtime::reflect::Reflection) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{LayoutCache, LayoutOptions, VulkanError};
    /// // SAFETY: as in `LayoutCache::new`.
    /// let layouts = unsafe { LayoutCache::new(device.clone(), &properties.limits) };
    /// match layouts.program(&[vertex, fragment], &LayoutOptions::default()) {
    ///     Ok(program) => println!("{} sets", program.set_layouts.len()),
    ///     Err(VulkanError::BindingConflict { set, binding, .. }) => eprintln!("the stages disagree on set {set} binding {binding}"),
    ///     Err(other) => return Err(other.into()),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn program(&self, shaders: &[&Reflection], options: &LayoutOptions) -> Result<ProgramLayout, VulkanError> {
        let mut sets: Vec<Vec<BindingKey>> = Vec::new();
        for reflection in shaders {
            let stage = reflection.stage.vk_stage_flag();
            for b in &reflection.bindings {
                if options.bindless.is_some_and(|bindless| bindless.set == b.set) {
                    return Err(VulkanError::BindlessSetTaken(b.set));
                }
                let set = self.set_mut(&mut sets, b.set)?;
                let (count, stages) = (b.count.max(1), b.stages | stage);
                let key = Binding { set: 0, binding: b.binding, kind: b.kind, count, stages };
                match set.iter_mut().map(|k| &mut k.binding).find(|k| k.binding == b.binding) {
                    Some(found) if (found.kind, found.count) != (key.kind, key.count) => {
                        let first_type = vk::DescriptorType::from_raw(found.kind.vk_descriptor_type());
                        return Err(VulkanError::BindingConflict {
                            set: b.set,
                            binding: b.binding,
                            first: format!("{first_type:?} × {}", found.count),
                            second: format!("{:?} × {}", b.kind, key.count),
                        });
                    }
                    Some(found) => found.stages |= key.stages,
                    None => set.push(BindingKey { binding: key, bindless: false }),
                }
            }
        }
        if let Some(bindless) = options.bindless {
            let stages = shaders.iter().fold(0, |acc, r| acc | r.stage.vk_stage_flag());
            let binding = Binding { set: 0, binding: 0, kind: bindless.kind, count: bindless.max_descriptors, stages };
            *self.set_mut(&mut sets, bindless.set)? =
                vec![BindingKey { binding, bindless: bindless.descriptor_indexing }];
        }
        self.check_descriptor_counts(&sets)?;
        let push_constants = merged_push_constants(shaders, self.limits.max_push_constants_size)?;
        let set_layouts = sets.into_iter().map(|bindings| self.set_layout(bindings)).collect::<Result<Vec<_>, _>>()?;
        let pipeline_layout = self.pipeline_layout(&set_layouts, &push_constants, options.independent_sets)?;
        let mut layout = ProgramLayout { set_layouts, push_constants, pipeline_layout, stage_layouts: Vec::new() };
        if options.independent_sets {
            for &r in shaders {
                let library = self.library_layout(&layout, &[r], options.bindless.map(|b| b.set))?;
                layout.stage_layouts.push((vk::ShaderStageFlags::from_raw(r.stage.vk_stage_flag()), library));
            }
        }
        Ok(layout)
    }

    /// The layout of a library holding `shaders` of `program`, unused sets null.
    pub(crate) fn library_layout(
        &self,
        program: &ProgramLayout,
        shaders: &[&Reflection],
        bindless: Option<u32>,
    ) -> Result<vk::PipelineLayout, VulkanError> {
        let used = |set| shaders.iter().any(|r| r.bindings.iter().any(|b| b.set == set)) || bindless == Some(set);
        let null = vk::DescriptorSetLayout::null();
        let sets: Vec<_> =
            (0u32..).zip(&program.set_layouts).map(|(set, &l)| if used(set) { l } else { null }).collect();
        self.pipeline_layout(&sets, &program.push_constants, true)
    }

    /// Set `set` of `sets`, grown to hold it, if the device can bind it.
    fn set_mut<'s>(
        &self,
        sets: &'s mut Vec<Vec<BindingKey>>,
        set: u32,
    ) -> Result<&'s mut Vec<BindingKey>, VulkanError> {
        let max_bound_descriptor_sets = self.limits.max_bound_descriptor_sets;
        let index = usize::try_from(set).ok().filter(|_| set < max_bound_descriptor_sets);
        let index = index.ok_or(VulkanError::SetOutOfRange { set, max_bound_descriptor_sets })?;
        if sets.len() <= index {
            sets.resize(index + 1, Vec::new());
        }
        Ok(&mut sets[index])
    }

    fn check_descriptor_counts(&self, sets: &[Vec<BindingKey>]) -> Result<(), VulkanError> {
        use vk::DescriptorType as T;
        let l = &self.limits;
        let kinds: [(&'static str, &[T]); 6] = [
            ("samplers", &[T::SAMPLER, T::COMBINED_IMAGE_SAMPLER]),
            ("uniform buffers", &[T::UNIFORM_BUFFER]),
            ("storage buffers", &[T::STORAGE_BUFFER]),
            ("sampled images", &[T::COMBINED_IMAGE_SAMPLER, T::SAMPLED_IMAGE, T::UNIFORM_TEXEL_BUFFER]),
            ("storage images", &[T::STORAGE_IMAGE, T::STORAGE_TEXEL_BUFFER]),
            ("input attachments", &[T::INPUT_ATTACHMENT]),
        ];
        // "resources": every type of the kinds above.
        let every: Vec<T> = kinds.iter().flat_map(|&(_, types)| types.iter().copied()).collect();
        let kinds = kinds.into_iter().chain([("resources", &every[..])]);
        // Each kind's limits (per stage, per layout), in the order of `kinds`.
        let limits = [
            (l.max_per_stage_descriptor_samplers, l.max_descriptor_set_samplers),
            (l.max_per_stage_descriptor_uniform_buffers, l.max_descriptor_set_uniform_buffers),
            (l.max_per_stage_descriptor_storage_buffers, l.max_descriptor_set_storage_buffers),
            (l.max_per_stage_descriptor_sampled_images, l.max_descriptor_set_sampled_images),
            (l.max_per_stage_descriptor_storage_images, l.max_descriptor_set_storage_images),
            (l.max_per_stage_descriptor_input_attachments, l.max_descriptor_set_input_attachments),
            (l.max_per_stage_resources, u32::MAX),
        ];
        // Descriptor-indexing bindless sets have limits of their own.
        let bindings = || sets.iter().flatten().filter(|b| !b.bindless).map(|b| b.binding);
        let stages = bindings().fold(0, |acc, b| acc | b.stages);
        for ((what, types), (per_stage, per_layout)) in kinds.zip(limits) {
            let counted = |b: &Binding| types.iter().any(|t| t.as_raw() == b.kind.vk_descriptor_type());
            // The whole layout, then each stage.
            let layout = std::iter::once(("a pipeline layout", None, per_layout));
            let each_stage = (0..32).map(|bit| 1u32 << bit).filter(|bit| stages & bit != 0);
            for (scope, stage, limit) in layout.chain(each_stage.map(|s| ("one shader stage", Some(s), per_stage))) {
                let in_scope = |b: &Binding| stage.is_none_or(|s| b.stages & s != 0);
                let count: u64 = bindings().filter(counted).filter(in_scope).map(|b| u64::from(b.count)).sum();
                if count > u64::from(limit) {
                    return Err(VulkanError::DescriptorLimit { what, scope, count, limit });
                }
            }
        }
        Ok(())
    }
}

/// One range covering every stage's push constants (independent sets need identical
/// ranges), grown to whole words (VUID-VkPushConstantRange-offset-00295, -size-00297).
fn merged_push_constants(shaders: &[&Reflection], max_size: u32) -> Result<Vec<vk::PushConstantRange>, VulkanError> {
    let ranges = shaders.iter().flat_map(|r| r.push_constants.iter());
    let (mut start, mut end, mut stages) = (u32::MAX, 0u64, 0u32);
    for range in ranges {
        start = start.min(range.offset);
        end = end.max(u64::from(range.offset) + u64::from(range.size));
        stages |= range.stages;
    }
    let (start, end) = (start & !3, end.div_ceil(4) * 4);
    if end <= u64::from(start) {
        return Ok(Vec::new());
    }
    let size = u32::try_from(end - u64::from(start)).ok().filter(|_| end <= u64::from(max_size));
    let size = size.ok_or(VulkanError::PushConstantsOutOfRange { end, max_push_constants_size: max_size })?;
    Ok(vec![vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::from_raw(stages), offset: start, size }])
}

impl Drop for LayoutCache {
    fn drop(&mut self) {
        // SAFETY: the contract of `new`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{PushConstantRange, ShaderStage};

    fn pushing(offset: u32, size: u32) -> Reflection {
        let mut reflection = Reflection::new(ShaderStage::Fragment, "main");
        reflection.push_constants.push(PushConstantRange {
            offset,
            size,
            stages: ShaderStage::Fragment.vk_stage_flag(),
        });
        reflection
    }

    #[test]
    fn push_constant_ranges_grow_to_whole_words() {
        for ((offset, size), (want_offset, want_size)) in
            [((0, 6), (0, 8)), ((2, 2), (0, 4)), ((6, 10), (4, 12)), ((16, 16), (16, 16)), ((0, 1), (0, 4))]
        {
            let ranges = merged_push_constants(&[&pushing(offset, size)], 128).unwrap();
            assert_eq!((ranges[0].offset, ranges[0].size), (want_offset, want_size), "{offset} + {size}");
        }
    }

    #[test]
    fn an_empty_push_constant_range_gives_no_range_and_rounding_respects_the_limit() {
        assert!(merged_push_constants(&[&pushing(8, 0)], 128).unwrap().is_empty());
        assert!(merged_push_constants(&[&Reflection::new(ShaderStage::Vertex, "main")], 128).unwrap().is_empty());
        // 126 bytes round up to 128: within a 128-byte limit, past a 126-byte one.
        assert!(merged_push_constants(&[&pushing(0, 126)], 128).is_ok());
        let err = merged_push_constants(&[&pushing(0, 126)], 126).unwrap_err();
        assert!(matches!(err, VulkanError::PushConstantsOutOfRange { end: 128, .. }), "{err}");
    }
}
