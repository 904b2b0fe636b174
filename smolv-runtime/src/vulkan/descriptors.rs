//! Pools, sets and descriptor infos for the generated `SetN` types (`include_types!`).
//!
//! # Safety of a write
//!
//! A generated `SetN::write` (and `SetN::allocate`) asks what `vkUpdateDescriptorSets`
//! does: a set allocated with set N's layout, in no pending or recording command buffer,
//! and every handle a live object of `device` of its binding's kind.
//!
//! ```no_run
//! # use smolv_runtime::vulkan::ash::{self, vk};
//! # use smolv_runtime::vulkan::{ProgramLayout, VulkanError, descriptors};
//! # unsafe fn example(device: &ash::Device, layout: &ProgramLayout, uniform: vk::Buffer) -> Result<(), VulkanError> {
//! // What a generated `Set0 { tint }` does, by hand: one uniform buffer at set 0, binding 0.
//! let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::UNIFORM_BUFFER, descriptor_count: 1 }];
//! // SAFETY: `device` is valid; the pool is destroyed before it.
//! let pool = unsafe { descriptors::create_pool(device, 1, &sizes)? };
//! // SAFETY: `layout` comes from a manager on `device`, and the pool is the device's.
//! let set = unsafe { descriptors::allocate(device, pool, layout, 0)? };
//! let buffers = [descriptors::whole_buffer(uniform)];
//! let write = vk::WriteDescriptorSet::default()
//!     .dst_set(set)
//!     .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
//!     .buffer_info(&buffers);
//! // SAFETY: `uniform` is a live uniform buffer of `device`, and `set` is in no pending command buffer.
//! unsafe { device.update_descriptor_sets(&[write], &[]) };
//! # Ok(())
//! # }
//! ```

use ash::vk;

use super::layout::ProgramLayout;
use super::{VulkanError, check};

/// All of `buffer`, as a uniform or storage buffer binding takes it.
///
/// ```
/// use smolv_runtime::vulkan::ash::vk;
/// let info = smolv_runtime::vulkan::descriptors::whole_buffer(vk::Buffer::null());
/// assert_eq!((info.offset, info.range), (0, vk::WHOLE_SIZE));
/// ```
pub fn whole_buffer(buffer: vk::Buffer) -> vk::DescriptorBufferInfo {
    vk::DescriptorBufferInfo { buffer, offset: 0, range: vk::WHOLE_SIZE }
}

/// `view` in `layout`, for a sampled image, storage image or input attachment binding.
///
/// ```
/// use smolv_runtime::vulkan::ash::vk;
/// let info = smolv_runtime::vulkan::descriptors::image(vk::ImageView::null(), vk::ImageLayout::GENERAL);
/// assert_eq!(info.image_layout, vk::ImageLayout::GENERAL);
/// ```
pub fn image(view: vk::ImageView, layout: vk::ImageLayout) -> vk::DescriptorImageInfo {
    vk::DescriptorImageInfo { sampler: vk::Sampler::null(), image_view: view, image_layout: layout }
}

/// `sampler`, as a sampler binding takes it.
///
/// ```
/// use smolv_runtime::vulkan::ash::vk;
/// let info = smolv_runtime::vulkan::descriptors::sampler(vk::Sampler::null());
/// assert_eq!(info.image_view, vk::ImageView::null());
/// ```
pub fn sampler(sampler: vk::Sampler) -> vk::DescriptorImageInfo {
    vk::DescriptorImageInfo { sampler, image_view: vk::ImageView::null(), image_layout: vk::ImageLayout::UNDEFINED }
}

/// `view` in `layout` through `sampler`, for a combined image sampler binding.
///
/// ```
/// use smolv_runtime::vulkan::ash::vk;
/// use smolv_runtime::vulkan::descriptors::combined;
/// let info = combined(vk::Sampler::null(), vk::ImageView::null(), vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
/// assert_eq!(info.image_layout, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
/// ```
pub fn combined(sampler: vk::Sampler, view: vk::ImageView, layout: vk::ImageLayout) -> vk::DescriptorImageInfo {
    vk::DescriptorImageInfo { sampler, image_view: view, image_layout: layout }
}

/// `sizes` (a generated `SetN::POOL_SIZES`) times `sets`, without the empty ones.
///
/// # Errors
/// [`VulkanError::DescriptorLimit`] where a count times `sets` passes `u32::MAX`.
///
/// ```
/// use smolv_runtime::vulkan::ash::vk;
/// use smolv_runtime::vulkan::descriptors::pool_sizes;
/// let one = [vk::DescriptorPoolSize { ty: vk::DescriptorType::UNIFORM_BUFFER, descriptor_count: 2 }];
/// assert_eq!(pool_sizes(&one, 8)?[0].descriptor_count, 16);
/// assert!(pool_sizes(&one, u32::MAX).is_err());
/// # Ok::<(), smolv_runtime::vulkan::VulkanError>(())
/// ```
pub fn pool_sizes(sizes: &[vk::DescriptorPoolSize], sets: u32) -> Result<Vec<vk::DescriptorPoolSize>, VulkanError> {
    sizes
        .iter()
        .filter(|size| size.descriptor_count > 0)
        .map(|size| {
            let count = size.descriptor_count.checked_mul(sets).ok_or(VulkanError::DescriptorLimit {
                what: "descriptors of one type",
                scope: "a descriptor pool",
                count: u64::from(size.descriptor_count) * u64::from(sets),
                limit: u32::MAX,
            })?;
            Ok(vk::DescriptorPoolSize { ty: size.ty, descriptor_count: count })
        })
        .collect()
}

/// Creates a pool of `sets` sets (at least one) of `sizes` each; the caller destroys it.
///
/// # Errors
/// As [`pool_sizes`], or the failing Vulkan call.
///
/// # Safety
/// `device` must be a valid device.
pub unsafe fn create_pool(
    device: &ash::Device,
    sets: u32,
    sizes: &[vk::DescriptorPoolSize],
) -> Result<vk::DescriptorPool, VulkanError> {
    let sets = sets.max(1);
    let sizes = pool_sizes(sizes, sets)?;
    let info = vk::DescriptorPoolCreateInfo::default().max_sets(sets).pool_sizes(&sizes);
    // SAFETY: `device` is valid (the contract); `info` lives across the call.
    check("vkCreateDescriptorPool", unsafe { device.create_descriptor_pool(&info, None) })
}

/// Allocates one set from `pool` with `layout`'s set layout for set number `set`.
///
/// # Errors
/// [`VulkanError::SetNotInLayout`] where `layout` has no set `set`, or the failing Vulkan call.
///
/// # Safety
/// - `pool` is a pool of the valid `device`, used by no other thread during the call.
/// - `layout` comes from a live [`PipelineManager`](super::PipelineManager) or
///   [`LayoutCache`](super::LayoutCache) on `device`.
pub unsafe fn allocate(
    device: &ash::Device,
    pool: vk::DescriptorPool,
    layout: &ProgramLayout,
    set: u32,
) -> Result<vk::DescriptorSet, VulkanError> {
    let set_layout = usize::try_from(set).ok().and_then(|index| layout.set_layouts.get(index));
    let set_layout = set_layout.ok_or(VulkanError::SetNotInLayout { set, sets: layout.set_layouts.len() })?;
    let info =
        vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(std::slice::from_ref(set_layout));
    // SAFETY: the caller's contract: a valid device, its pool, a live layout.
    let sets = check("vkAllocateDescriptorSets", unsafe { device.allocate_descriptor_sets(&info) })?;
    check("vkAllocateDescriptorSets", sets.first().copied().ok_or(vk::Result::ERROR_UNKNOWN))
}
