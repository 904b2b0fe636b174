//! Buffers and images, each with its own memory (the game has a handful: no allocator).

use ash::vk;

use super::Context;
use crate::error::{GameError, vk_check};

/// A host-visible, coherent, persistently mapped buffer.
pub(crate) struct Buffer {
    device: ash::Device,
    pub(crate) handle: vk::Buffer,
    memory: vk::DeviceMemory,
    mapped: *mut u8,
    pub(crate) size: usize,
}

impl Buffer {
    /// A buffer of `size` bytes for `usage`, mapped for the CPU.
    pub(crate) fn new(context: &Context, size: usize, usage: vk::BufferUsageFlags) -> Result<Self, GameError> {
        let device = &context.device;
        // SAFETY: creation on a live device; on error everything made so far
        // is destroyed.
        unsafe {
            let info = vk::BufferCreateInfo::default().size(size as u64).usage(usage);
            let handle = vk_check("vkCreateBuffer", device.create_buffer(&info, None))?;
            let requirements = device.get_buffer_memory_requirements(handle);
            let flags = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let memory = allocate(context, requirements, flags).inspect_err(|_| device.destroy_buffer(handle, None))?;
            let mut buffer = Self { device: device.clone(), handle, memory, mapped: std::ptr::null_mut(), size };
            vk_check("vkBindBufferMemory", device.bind_buffer_memory(handle, memory, 0))?;
            let flags = vk::MemoryMapFlags::empty();
            buffer.mapped = vk_check("vkMapMemory", device.map_memory(memory, 0, vk::WHOLE_SIZE, flags))?.cast();
            Ok(buffer)
        }
    }

    /// A buffer to read a frame of `extent`, 4 bytes a pixel, back into.
    pub(crate) fn readback(context: &Context, extent: vk::Extent2D) -> Result<Self, GameError> {
        Self::new(context, (extent.width * extent.height * 4) as usize, vk::BufferUsageFlags::TRANSFER_DST)
    }

    /// Copies `data` into the buffer at byte `offset`; what does not fit is
    /// dropped. The GPU must not be using that range.
    pub(crate) fn write(&mut self, offset: usize, data: &[u8]) {
        let len = data.len().min(self.size.saturating_sub(offset));
        if len == 0 {
            return;
        }
        // SAFETY: `mapped` covers `size` bytes and `offset + len <= size`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.mapped.add(offset), len) };
    }

    /// Reads the whole buffer. The GPU must be done writing it.
    pub(crate) fn read(&self) -> Vec<u8> {
        // SAFETY: `mapped` covers `size` bytes.
        unsafe { std::slice::from_raw_parts(self.mapped, self.size) }.to_vec()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the owner made sure the GPU is done with the buffer.
        unsafe {
            self.device.destroy_buffer(self.handle, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

/// A 2D device-local image with one mip level and a view.
pub(crate) struct Image {
    device: ash::Device,
    pub(crate) handle: vk::Image,
    pub(crate) view: vk::ImageView,
    memory: vk::DeviceMemory,
    pub(crate) extent: vk::Extent2D,
}

impl Image {
    /// A `format` image of `extent` for `usage`.
    pub(crate) fn new(
        context: &Context,
        format: vk::Format,
        extent: vk::Extent2D,
        usage: vk::ImageUsageFlags,
    ) -> Result<Self, GameError> {
        let device = &context.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(extent.into())
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage);
        // SAFETY: creation on a live device; on error what was made is destroyed.
        unsafe {
            let handle = vk_check("vkCreateImage", device.create_image(&info, None))?;
            let requirements = device.get_image_memory_requirements(handle);
            let memory = allocate(context, requirements, vk::MemoryPropertyFlags::DEVICE_LOCAL)
                .or_else(|_| allocate(context, requirements, vk::MemoryPropertyFlags::empty()))
                .inspect_err(|_| device.destroy_image(handle, None))?;
            let mut image = Self { device: device.clone(), handle, view: vk::ImageView::null(), memory, extent };
            vk_check("vkBindImageMemory", device.bind_image_memory(handle, memory, 0))?;
            image.view = vk_check("vkCreateImageView", device.create_image_view(&color_view(handle, format), None))?;
            Ok(image)
        }
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: the owner made sure the GPU is done with the image.
        unsafe {
            self.device.destroy_image_view(self.view, None);
            self.device.destroy_image(self.handle, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

/// The create info of a plain 2D colour view of `image`.
pub(crate) fn color_view(image: vk::Image, format: vk::Format) -> vk::ImageViewCreateInfo<'static> {
    vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(format)
        .subresource_range(COLOR_RANGE)
}

/// The single mip level and layer of a colour image.
pub(crate) const COLOR_RANGE: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

/// # Safety
/// The context's device must be live.
unsafe fn allocate(
    context: &Context,
    requirements: vk::MemoryRequirements,
    flags: vk::MemoryPropertyFlags,
) -> Result<vk::DeviceMemory, GameError> {
    let (memory, bits) = (&context.memory, requirements.memory_type_bits);
    let index = (0..memory.memory_type_count)
        .find(|&i| bits & (1 << i) != 0 && memory.memory_types[i as usize].property_flags.contains(flags))
        .ok_or(GameError::Vulkan {
            call: "vkAllocateMemory (no suitable memory type)",
            result: vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        })?;
    let info = vk::MemoryAllocateInfo::default().allocation_size(requirements.size).memory_type_index(index);
    // SAFETY: the caller guarantees a live device.
    vk_check("vkAllocateMemory", unsafe { context.device.allocate_memory(&info, None) })
}
