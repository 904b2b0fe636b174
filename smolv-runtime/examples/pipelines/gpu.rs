// A headless Vulkan device for the `pipelines` example and the example on
// `PipelineManager` (which includes this file): an instance with the
// Khronos validation layer, every message it prints collected, a device
// made with `DeviceRequirements` (Vulkan 1.3 dynamic rendering, and
// graphics pipeline libraries where the driver has them), and one draw and
// one dispatch that read back what they wrote. No inner attributes or `//!`
// docs here: `include!` takes it.

use std::error::Error;
use std::ffi::c_void;
use std::sync::Mutex;

// The ash that smolv's Vulkan layer is built on, so that the versions match.
use smolv_runtime::vulkan::ash::{self, vk};
use smolv_runtime::vulkan::{DeviceRequirements, PipelineOptions};

/// The colour attachment's format.
pub(crate) const COLOR_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// The side of the square image `Gpu::draw` renders.
const SIZE: u32 = 16;

/// SPIR-V words from the bytes of a `.spv` file (little-endian, as glslang
/// writes them).
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

unsafe extern "system" fn on_message(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the call.
    let message = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) };
    let text = message.map_or_else(|| "(no message)".to_owned(), |m| m.to_string_lossy().into_owned());
    // SAFETY: `user` is the boxed `Mutex` of the `Gpu` that owns the
    // messenger, alive until the messenger is destroyed.
    if let Some(messages) = unsafe { user.cast::<Mutex<Vec<String>>>().as_ref() } {
        messages.lock().unwrap_or_else(|e| e.into_inner()).push(text);
    }
    vk::FALSE
}

/// An instance with validation, a device with one queue that draws and
/// computes, and a command pool.
pub(crate) struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    debug: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    /// The device.
    pub(crate) device: ash::Device,
    /// Its physical device's limits.
    pub(crate) limits: vk::PhysicalDeviceLimits,
    /// The options for a manager on the device, from its
    /// `DeviceRequirements`: graphics pipeline libraries where enabled.
    pub(crate) options: PipelineOptions,
    queue: vk::Queue,
    pool: vk::CommandPool,
    memory: vk::PhysicalDeviceMemoryProperties,
    messages: Box<Mutex<Vec<String>>>,
    device_destroyed: bool,
}

impl Gpu {
    /// Opens the first device, with the validation layer on and graphics
    /// pipeline libraries where the driver has them.
    pub(crate) fn new() -> Result<Self, Box<dyn Error>> {
        Self::open(true)
    }

    /// Opens the first device, with the validation layer on, and graphics
    /// pipeline libraries only where `libraries` and the driver has them.
    pub(crate) fn open(libraries: bool) -> Result<Self, Box<dyn Error>> {
        // SAFETY: plain Vulkan set-up; `Drop` destroys every handle.
        unsafe {
            let entry = ash::Entry::load()?;
            let layer = c"VK_LAYER_KHRONOS_validation";
            if !entry.enumerate_instance_layer_properties()?.iter().any(|l| l.layer_name_as_c_str() == Ok(layer)) {
                return Err("the Khronos validation layer is not installed (Debian: vulkan-validationlayers)".into());
            }
            // Vulkan 1.3 for dynamic rendering; the manager checks every
            // module's SPIR-V version against it.
            let api_version = vk::API_VERSION_1_3;
            let app = vk::ApplicationInfo::default().api_version(api_version);
            let layers = [layer.as_ptr()];
            let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
            let instance = entry.create_instance(
                &vk::InstanceCreateInfo::default()
                    .application_info(&app)
                    .enabled_layer_names(&layers)
                    .enabled_extension_names(&extensions),
                None,
            )?;
            let messages: Box<Mutex<Vec<String>>> = Box::default();
            let debug = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let messenger = debug.create_debug_utils_messenger(
                &vk::DebugUtilsMessengerCreateInfoEXT::default()
                    .message_severity(
                        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                    )
                    .message_type(
                        vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                            | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                            | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                    )
                    .pfn_user_callback(Some(on_message))
                    .user_data(std::ptr::from_ref::<Mutex<Vec<String>>>(&messages).cast_mut().cast()),
                None,
            )?;
            let physical = *instance.enumerate_physical_devices()?.first().ok_or("no Vulkan device")?;
            let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
            let family = instance
                .get_physical_device_queue_family_properties(physical)
                .iter()
                .position(|f| f.queue_flags.contains(wanted))
                .ok_or("no queue family that draws and computes")?;
            let family = u32::try_from(family)?;
            // What the manager needs of the device: dynamic rendering, and
            // graphics pipeline libraries where the driver has them.
            let mut requirements = DeviceRequirements::for_physical_device(&instance, physical)?;
            if !libraries {
                requirements = requirements.without_graphics_pipeline_library();
            }
            let priorities = [1.0];
            let queues =
                [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
            let device = requirements.create_device(
                &instance,
                physical,
                &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
            )?;
            // The version the instance asked for: a module newer than it
            // takes is refused with `VulkanError::SpirvVersionUnsupported`.
            let options = requirements.pipeline_options().api_version(api_version);
            let queue = device.get_device_queue(family, 0);
            let pool =
                device.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)?;
            Ok(Self {
                limits: instance.get_physical_device_properties(physical).limits,
                memory: instance.get_physical_device_memory_properties(physical),
                _entry: entry,
                instance,
                debug,
                messenger,
                device,
                options,
                queue,
                pool,
                messages,
                device_destroyed: false,
            })
        }
    }

    /// Draws one triangle over a square image with `pipeline` (viewport
    /// and scissor dynamic), its fragment stage's push constant set to
    /// `colour`, and returns the centre pixel as RGBA8.
    pub(crate) fn draw(
        &self,
        pipeline: vk::Pipeline,
        layout: vk::PipelineLayout,
        colour: [f32; 4],
    ) -> Result<[u8; 4], Box<dyn Error>> {
        let d = &self.device;
        let range =
            vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(1);
        let bytes = u64::from(SIZE * SIZE * 4);
        // SAFETY: every object is made here, used until the queue is idle,
        // and destroyed before returning.
        unsafe {
            let image = d.create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(COLOR_FORMAT)
                    .extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC),
                None,
            )?;
            let image_memory =
                self.allocate(d.get_image_memory_requirements(image), vk::MemoryPropertyFlags::empty())?;
            d.bind_image_memory(image, image_memory, 0)?;
            let view = d.create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(COLOR_FORMAT)
                    .subresource_range(range),
                None,
            )?;
            let (buffer, buffer_memory) = self.host_buffer(bytes, vk::BufferUsageFlags::TRANSFER_DST)?;
            let command = self.begin()?;
            let to_attachment = vk::ImageMemoryBarrier::default()
                .dst_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier(
                command,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_attachment],
            );
            let area =
                vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: SIZE, height: SIZE } };
            let attachments = [vk::RenderingAttachmentInfo::default()
                .image_view(view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)];
            d.cmd_begin_rendering(
                command,
                &vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&attachments),
            );
            d.cmd_bind_pipeline(command, vk::PipelineBindPoint::GRAPHICS, pipeline);
            let side = f32::from(u16::try_from(SIZE)?);
            let viewport = vk::Viewport { x: 0.0, y: 0.0, width: side, height: side, min_depth: 0.0, max_depth: 1.0 };
            d.cmd_set_viewport(command, 0, &[viewport]);
            d.cmd_set_scissor(command, 0, &[area]);
            let colour: Vec<u8> = colour.iter().flat_map(|c| c.to_le_bytes()).collect();
            d.cmd_push_constants(command, layout, vk::ShaderStageFlags::FRAGMENT, 0, &colour);
            d.cmd_draw(command, 3, 1, 0, 0);
            d.cmd_end_rendering(command);
            let to_transfer = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier(
                command,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_transfer],
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(
                    vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1),
                )
                .image_extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 });
            d.cmd_copy_image_to_buffer(command, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, buffer, &[region]);
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            d.cmd_pipeline_barrier(
                command,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
            self.submit(command)?;
            let pixels = self.read(buffer_memory, bytes)?;
            d.destroy_buffer(buffer, None);
            d.free_memory(buffer_memory, None);
            d.destroy_image_view(view, None);
            d.destroy_image(image, None);
            d.free_memory(image_memory, None);
            let centre = usize::try_from((SIZE / 2 * SIZE + SIZE / 2) * 4)?;
            Ok([pixels[centre], pixels[centre + 1], pixels[centre + 2], pixels[centre + 3]])
        }
    }

    /// Dispatches `pipeline` over `count` invocations (workgroups of 64)
    /// with a storage buffer of `count` words at set 0, binding 0, and
    /// returns the words it wrote.
    pub(crate) fn dispatch(
        &self,
        pipeline: vk::Pipeline,
        layout: vk::PipelineLayout,
        set_layout: vk::DescriptorSetLayout,
        count: u32,
    ) -> Result<Vec<u32>, Box<dyn Error>> {
        let d = &self.device;
        let bytes = u64::from(count) * 4;
        // SAFETY: every object is made here, used until the queue is idle,
        // and destroyed before returning.
        unsafe {
            let (buffer, memory) = self.host_buffer(bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
            let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: 1 }];
            let pool = d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes),
                None,
            )?;
            let set_layouts = [set_layout];
            let set = d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&set_layouts),
            )?[0];
            let buffers = [vk::DescriptorBufferInfo { buffer, offset: 0, range: bytes }];
            let write = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&buffers);
            d.update_descriptor_sets(&[write], &[]);
            let command = self.begin()?;
            d.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(command, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_dispatch(command, count.div_ceil(64), 1, 1);
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            d.cmd_pipeline_barrier(
                command,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
            self.submit(command)?;
            let values = words(&self.read(memory, bytes)?);
            d.destroy_descriptor_pool(pool, None);
            d.destroy_buffer(buffer, None);
            d.free_memory(memory, None);
            Ok(values)
        }
    }

    /// Destroys the device (the layer then reports any object still alive
    /// on it), and returns an error listing every validation message, if
    /// there was any. Call it once everything made on the device is dropped.
    pub(crate) fn finish(mut self) -> Result<(), Box<dyn Error>> {
        self.destroy_device();
        let messages = self.messages.lock().unwrap_or_else(|e| e.into_inner());
        if messages.is_empty() {
            Ok(())
        } else {
            Err(format!("the validation layer reported {}:\n{}", messages.len(), messages.join("\n")).into())
        }
    }

    fn destroy_device(&mut self) {
        if std::mem::replace(&mut self.device_destroyed, true) {
            return;
        }
        // SAFETY: every submission waited for the queue, and the caller is
        // done with the device.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
        }
    }

    /// Memory for `requirements` with `flags`.
    ///
    /// # Safety
    /// The caller frees it.
    unsafe fn allocate(
        &self,
        requirements: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory, Box<dyn Error>> {
        let types = &self.memory.memory_types[..usize::try_from(self.memory.memory_type_count)?];
        let index = types
            .iter()
            .enumerate()
            .position(|(i, t)| requirements.memory_type_bits & (1 << i) != 0 && t.property_flags.contains(flags))
            .ok_or("no suitable memory type")?;
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(u32::try_from(index)?);
        // SAFETY: a plain allocation; the caller frees it.
        Ok(unsafe { self.device.allocate_memory(&info, None)? })
    }

    /// A zeroed host-visible, coherent buffer of `bytes` bytes.
    ///
    /// # Safety
    /// The caller destroys the buffer and frees the memory.
    unsafe fn host_buffer(
        &self,
        bytes: u64,
        usage: vk::BufferUsageFlags,
    ) -> Result<(vk::Buffer, vk::DeviceMemory), Box<dyn Error>> {
        let d = &self.device;
        // SAFETY: plain creation; the caller destroys both.
        unsafe {
            let buffer = d.create_buffer(&vk::BufferCreateInfo::default().size(bytes).usage(usage), None)?;
            let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let memory = self.allocate(d.get_buffer_memory_requirements(buffer), host)?;
            d.bind_buffer_memory(buffer, memory, 0)?;
            let mapped = d.map_memory(memory, 0, bytes, vk::MemoryMapFlags::empty())?;
            std::ptr::write_bytes(mapped.cast::<u8>(), 0, usize::try_from(bytes)?);
            d.unmap_memory(memory);
            Ok((buffer, memory))
        }
    }

    /// A command buffer of the pool, recording.
    fn begin(&self) -> Result<vk::CommandBuffer, Box<dyn Error>> {
        // SAFETY: plain allocation from this device's pool; `submit` frees it.
        unsafe {
            let info = vk::CommandBufferAllocateInfo::default().command_pool(self.pool).command_buffer_count(1);
            let command = self.device.allocate_command_buffers(&info)?[0];
            self.device.begin_command_buffer(command, &vk::CommandBufferBeginInfo::default())?;
            Ok(command)
        }
    }

    /// Ends `command`, runs it to completion, and frees it.
    fn submit(&self, command: vk::CommandBuffer) -> Result<(), Box<dyn Error>> {
        let commands = [command];
        // SAFETY: `command` is recording, from `begin`; waiting for the
        // queue makes it safe to free.
        unsafe {
            self.device.end_command_buffer(command)?;
            let submit = vk::SubmitInfo::default().command_buffers(&commands);
            self.device.queue_submit(self.queue, &[submit], vk::Fence::null())?;
            self.device.queue_wait_idle(self.queue)?;
            self.device.free_command_buffers(self.pool, &commands);
        }
        Ok(())
    }

    /// The first `bytes` bytes of host-visible `memory`.
    fn read(&self, memory: vk::DeviceMemory, bytes: u64) -> Result<Vec<u8>, Box<dyn Error>> {
        // SAFETY: `memory` is host-visible and coherent, not mapped
        // elsewhere, and the GPU is done with it (the queue is idle).
        unsafe {
            let mapped = self.device.map_memory(memory, 0, bytes, vk::MemoryMapFlags::empty())?;
            let data = std::slice::from_raw_parts(mapped.cast::<u8>(), usize::try_from(bytes)?).to_vec();
            self.device.unmap_memory(memory);
            Ok(data)
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        self.destroy_device();
        // SAFETY: the device is gone, and nothing else uses these handles.
        unsafe {
            self.debug.destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}
