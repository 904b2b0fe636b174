//! A Vulkan device for tests: lavapipe (or any device) with the Khronos
//! validation layer on, and every message it prints collected, so that a
//! test can fail on any of them.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use ash::vk;

unsafe extern "system" fn on_message(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes a valid callback-data pointer for the call.
    let message = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) };
    let text = message.map_or_else(|| "(no message)".to_owned(), |m| m.to_string_lossy().into_owned());
    // SAFETY: `user` is the `Mutex` boxed in the `Gpu` that owns this
    // messenger, alive until the messenger is destroyed.
    if let Some(messages) = unsafe { user.cast::<Mutex<Vec<String>>>().as_ref() } {
        messages.lock().unwrap_or_else(|e| e.into_inner()).push(text);
    }
    vk::FALSE
}

/// What [`Gpu::recording_device`] saw: per device, the real
/// `vkCreateGraphicsPipelines` and `vkCreateComputePipelines`, and the
/// pipeline cache of every graphics call.
#[derive(Default)]
struct Recorded {
    create_graphics_pipelines: Option<vk::PFN_vkCreateGraphicsPipelines>,
    create_compute_pipelines: Option<vk::PFN_vkCreateComputePipelines>,
    caches: Vec<vk::PipelineCache>,
    /// Fail every call, as a driver out of memory does, without calling
    /// the real function (so the validation layer sees nothing).
    fail: bool,
}

static RECORDED: Mutex<Option<HashMap<vk::Device, Recorded>>> = Mutex::new(None);

/// `vkCreateGraphicsPipelines` that notes the pipeline cache, then calls the real one.
unsafe extern "system" fn record_create_graphics_pipelines(
    device: vk::Device,
    cache: vk::PipelineCache,
    count: u32,
    infos: *const vk::GraphicsPipelineCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    pipelines: *mut vk::Pipeline,
) -> vk::Result {
    let real = {
        let mut recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = recorded.as_mut().and_then(|r| r.get_mut(&device)) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        entry.caches.push(cache);
        if entry.fail {
            // What Vulkan asks of a failed call: every pipeline null.
            for i in 0..count as usize {
                // SAFETY: the caller passes room for `count` pipelines.
                unsafe { pipelines.add(i).write(vk::Pipeline::null()) };
            }
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        }
        let Some(real) = entry.create_graphics_pipelines else { return vk::Result::ERROR_INITIALIZATION_FAILED };
        real
    };
    // SAFETY: the caller's arguments, passed on unchanged to the function
    // this one stands in for.
    unsafe { real(device, cache, count, infos, allocator, pipelines) }
}

/// `vkCreateComputePipelines` that fails while the device's `fail` flag is
/// set, and calls the real one otherwise.
unsafe extern "system" fn record_create_compute_pipelines(
    device: vk::Device,
    cache: vk::PipelineCache,
    count: u32,
    infos: *const vk::ComputePipelineCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    pipelines: *mut vk::Pipeline,
) -> vk::Result {
    let real = {
        let recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = recorded.as_ref().and_then(|r| r.get(&device)) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        if entry.fail {
            for i in 0..count as usize {
                // SAFETY: the caller passes room for `count` pipelines.
                unsafe { pipelines.add(i).write(vk::Pipeline::null()) };
            }
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        }
        let Some(real) = entry.create_compute_pipelines else { return vk::Result::ERROR_INITIALIZATION_FAILED };
        real
    };
    // SAFETY: the caller's arguments, passed on unchanged.
    unsafe { real(device, cache, count, infos, allocator, pipelines) }
}

/// An instance with validation, a device with one graphics queue, and a
/// command pool.
pub struct Gpu {
    _entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    debug: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    /// The physical device.
    pub physical: vk::PhysicalDevice,
    /// Its properties (limits, pipeline cache UUID).
    pub properties: vk::PhysicalDeviceProperties,
    /// The device.
    pub device: ash::Device,
    /// Its graphics queue.
    pub queue: vk::Queue,
    memory_properties: vk::PhysicalDeviceMemoryProperties,
    /// A command pool of the queue's family.
    pub pool: vk::CommandPool,
    /// The Vulkan version the instance was created for.
    pub api_version: u32,
    /// Whether VK_EXT_graphics_pipeline_library is enabled.
    pub graphics_pipeline_library: bool,
    /// Whether the `shaderInt64` feature is enabled (where the device has it).
    pub shader_int64: bool,
    /// Whether the `shaderFloat64` feature is enabled (where the device has it).
    pub shader_float64: bool,
    /// The Vulkan 1.1 features enabled (instance version 1.2 or later
    /// only): the 16-bit storage ones (`storageBuffer16BitAccess`,
    /// `uniformAndStorageBuffer16BitAccess`, `storagePushConstant16`) that
    /// the device has.
    pub features11: vk::PhysicalDeviceVulkan11Features<'static>,
    /// The Vulkan 1.2 features enabled (instance version 1.2 or later
    /// only): `scalarBlockLayout`, the 8-bit storage ones, `shaderInt8`
    /// and `shaderFloat16`, those the device has.
    pub features12: vk::PhysicalDeviceVulkan12Features<'static>,
    /// The features enabled on the device: every one the pipeline state
    /// can need (geometry and tessellation shaders, sample-rate shading,
    /// depth bounds, wide lines, ...) that the device has.
    pub features: vk::PhysicalDeviceFeatures,
    messages: Box<Mutex<Vec<String>>>,
    device_destroyed: bool,
}

impl Default for Gpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Gpu {
    /// Opens the first device with Vulkan 1.3 dynamic rendering and
    /// synchronization2, and `shaderInt64`, `shaderFloat64` and the
    /// pipeline-state features (see [`features`](Self::features)) where it
    /// has them.
    pub fn new() -> Gpu {
        Self::with_api_version(vk::API_VERSION_1_3)
    }

    /// As [`new`](Self::new), with the instance created for `api_version`
    /// (`VkApplicationInfo::apiVersion`). Below Vulkan 1.3 the device has
    /// no dynamic rendering, synchronization2 or graphics pipeline
    /// libraries: it can make compute pipelines, not draw.
    pub fn with_api_version(api_version: u32) -> Gpu {
        let vulkan_1_3 = api_version >= vk::API_VERSION_1_3;
        let vulkan_1_2 = api_version >= vk::API_VERSION_1_2;
        // SAFETY: plain Vulkan setup; every handle is destroyed in Drop.
        unsafe {
            let entry = ash::Entry::load().expect("the Vulkan loader (libvulkan1) must be installed");
            let layer = c"VK_LAYER_KHRONOS_validation";
            let layers = entry.enumerate_instance_layer_properties().unwrap();
            assert!(
                layers.iter().any(|l| l.layer_name_as_c_str() == Ok(layer)),
                "the validation layers must be installed (apt-get install vulkan-validationlayers)"
            );
            let app = vk::ApplicationInfo::default().api_version(api_version);
            let layer_names = [layer.as_ptr()];
            let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
            let messages: Box<Mutex<Vec<String>>> = Box::default();
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default()
                        .application_info(&app)
                        .enabled_layer_names(&layer_names)
                        .enabled_extension_names(&extensions),
                    None,
                )
                .unwrap();
            let debug = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let messenger = debug
                .create_debug_utils_messenger(
                    &vk::DebugUtilsMessengerCreateInfoEXT::default()
                        .message_severity(
                            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                        )
                        .message_type(
                            vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                                | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                        )
                        .pfn_user_callback(Some(on_message))
                        .user_data(std::ptr::from_ref::<Mutex<Vec<String>>>(&messages).cast_mut().cast()),
                    None,
                )
                .unwrap();
            let physical = instance.enumerate_physical_devices().unwrap()[0];
            let family = instance
                .get_physical_device_queue_family_properties(physical)
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
                .expect("a graphics queue") as u32;
            let priorities = [1.0];
            let queues =
                [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
            let mut features13 =
                vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true).synchronization2(true);
            // Graphics pipeline libraries, where the driver has them (lavapipe does).
            let graphics_pipeline_library = vulkan_1_3
                && instance
                    .enumerate_device_extension_properties(physical)
                    .unwrap()
                    .iter()
                    .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::graphics_pipeline_library::NAME));
            let mut gpl =
                vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default().graphics_pipeline_library(true);
            let supported = instance.get_physical_device_features(physical);
            let (shader_int64, shader_float64) =
                (supported.shader_int64 == vk::TRUE, supported.shader_float64 == vk::TRUE);
            let has = |b: vk::Bool32| b == vk::TRUE;
            // The layouts and member widths the generated types cover
            // (scalar blocks, 8/16-bit members) need these; queried only
            // where the instance version lets the structures be chained.
            let mut supported11 = vk::PhysicalDeviceVulkan11Features::default();
            let mut supported12 = vk::PhysicalDeviceVulkan12Features::default();
            if vulkan_1_2 {
                let mut query =
                    vk::PhysicalDeviceFeatures2::default().push_next(&mut supported11).push_next(&mut supported12);
                instance.get_physical_device_features2(physical, &mut query);
            }
            let mut features11: vk::PhysicalDeviceVulkan11Features<'static> =
                vk::PhysicalDeviceVulkan11Features::default()
                    .storage_buffer16_bit_access(has(supported11.storage_buffer16_bit_access))
                    .uniform_and_storage_buffer16_bit_access(has(supported11.uniform_and_storage_buffer16_bit_access))
                    .storage_push_constant16(has(supported11.storage_push_constant16));
            let mut features12: vk::PhysicalDeviceVulkan12Features<'static> =
                vk::PhysicalDeviceVulkan12Features::default()
                    .scalar_block_layout(has(supported12.scalar_block_layout))
                    .storage_buffer8_bit_access(has(supported12.storage_buffer8_bit_access))
                    .uniform_and_storage_buffer8_bit_access(has(supported12.uniform_and_storage_buffer8_bit_access))
                    .storage_push_constant8(has(supported12.storage_push_constant8))
                    .shader_int8(has(supported12.shader_int8))
                    .shader_float16(has(supported12.shader_float16));
            let features = vk::PhysicalDeviceFeatures::default()
                .shader_int64(shader_int64)
                .shader_int16(has(supported.shader_int16))
                .shader_float64(shader_float64)
                .geometry_shader(has(supported.geometry_shader))
                .tessellation_shader(has(supported.tessellation_shader))
                .sample_rate_shading(has(supported.sample_rate_shading))
                .depth_bounds(has(supported.depth_bounds))
                .fill_mode_non_solid(has(supported.fill_mode_non_solid))
                .depth_bias_clamp(has(supported.depth_bias_clamp))
                .depth_clamp(has(supported.depth_clamp))
                .wide_lines(has(supported.wide_lines))
                .logic_op(has(supported.logic_op))
                .alpha_to_one(has(supported.alpha_to_one))
                .independent_blend(has(supported.independent_blend));
            let gpl_extensions =
                [ash::khr::pipeline_library::NAME.as_ptr(), ash::ext::graphics_pipeline_library::NAME.as_ptr()];
            let device = instance
                .create_device(
                    physical,
                    &{
                        let info =
                            vk::DeviceCreateInfo::default().queue_create_infos(&queues).enabled_features(&features);
                        let info = if vulkan_1_3 { info.push_next(&mut features13) } else { info };
                        let info =
                            if vulkan_1_2 { info.push_next(&mut features11).push_next(&mut features12) } else { info };
                        if graphics_pipeline_library {
                            info.enabled_extension_names(&gpl_extensions).push_next(&mut gpl)
                        } else {
                            info
                        }
                    },
                    None,
                )
                .unwrap();
            // Kept for the tests to read: the chain they were in is gone.
            features11.p_next = std::ptr::null_mut();
            features12.p_next = std::ptr::null_mut();
            let queue = device.get_device_queue(family, 0);
            let pool = device
                .create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)
                .unwrap();
            let memory_properties = instance.get_physical_device_memory_properties(physical);
            let properties = instance.get_physical_device_properties(physical);
            Gpu {
                _entry: entry,
                instance,
                debug,
                messenger,
                physical,
                properties,
                device,
                queue,
                memory_properties,
                pool,
                api_version,
                graphics_pipeline_library,
                shader_int64,
                shader_float64,
                features11,
                features12,
                features,
                messages,
                device_destroyed: false,
            }
        }
    }

    /// The validation messages this device's instance printed so far.
    pub fn validation_messages(&self) -> Vec<String> {
        self.messages.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Panics listing every validation message, if there was any.
    pub fn assert_validation_clean(&self) {
        let messages = self.validation_messages();
        assert!(messages.is_empty(), "validation messages ({}):\n{}", messages.len(), messages.join("\n"));
    }

    /// The same device, with `vkCreateGraphicsPipelines` wrapped so that
    /// [`pipeline_caches_used`](Self::pipeline_caches_used) can tell which
    /// pipeline cache each call passed: proof that a cache is used even on
    /// a driver whose cache keeps nothing (lavapipe 22.3's returns only its
    /// 32-byte header).
    pub fn recording_device(&self) -> ash::Device {
        let get_device_proc_addr = self.instance.fp_v1_0().get_device_proc_addr;
        let handle = self.device.handle();
        // SAFETY: every function comes from `vkGetDeviceProcAddr` for this
        // device, except `vkCreateGraphicsPipelines` and
        // `vkCreateComputePipelines`, whose stand-ins have the same
        // signatures and call the real ones.
        unsafe {
            ash::Device::load_with(
                |name| {
                    let real = get_device_proc_addr(handle, name.as_ptr());
                    if name == c"vkCreateGraphicsPipelines" || name == c"vkCreateComputePipelines" {
                        let real = real.expect("the pipeline creation functions");
                        let mut recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
                        let entry = recorded.get_or_insert_with(HashMap::new).entry(handle).or_default();
                        if name == c"vkCreateGraphicsPipelines" {
                            entry.create_graphics_pipelines = Some(std::mem::transmute::<
                                unsafe extern "system" fn(),
                                vk::PFN_vkCreateGraphicsPipelines,
                            >(real));
                            let stand_in: vk::PFN_vkCreateGraphicsPipelines = record_create_graphics_pipelines;
                            return stand_in as *const c_void;
                        }
                        entry.create_compute_pipelines = Some(std::mem::transmute::<
                            unsafe extern "system" fn(),
                            vk::PFN_vkCreateComputePipelines,
                        >(real));
                        let stand_in: vk::PFN_vkCreateComputePipelines = record_create_compute_pipelines;
                        return stand_in as *const c_void;
                    }
                    real.map_or(std::ptr::null(), |f| f as *const c_void)
                },
                handle,
            )
        }
    }

    /// The pipeline cache of every `vkCreateGraphicsPipelines` call made
    /// through [`recording_device`](Self::recording_device) so far.
    pub fn pipeline_caches_used(&self) -> Vec<vk::PipelineCache> {
        let recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
        recorded.as_ref().and_then(|r| r.get(&self.device.handle())).map_or_else(Vec::new, |r| r.caches.clone())
    }

    /// Makes every `vkCreateGraphicsPipelines` and `vkCreateComputePipelines` call made through
    /// [`recording_device`](Self::recording_device) fail with
    /// `ERROR_OUT_OF_HOST_MEMORY` (while `fail` is true), as a driver may:
    /// how a test makes a background build fail on valid input.
    pub fn fail_pipeline_creation(&self, fail: bool) {
        let mut recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
        let entry = recorded.as_mut().and_then(|r| r.get_mut(&self.device.handle()));
        entry.expect("call recording_device first").fail = fail;
    }

    /// Destroys the device, then panics listing every validation message,
    /// if there was any. Destroying the device makes the layer report every
    /// object still alive on it, so a leaked pipeline, layout or cache
    /// fails here. Call it last, once everything made on the device is
    /// dropped.
    pub fn finish(mut self) {
        self.destroy_device();
        self.assert_validation_clean();
    }

    fn destroy_device(&mut self) {
        if std::mem::replace(&mut self.device_destroyed, true) {
            return;
        }
        // SAFETY: the device is idle (every render waits), and whoever calls
        // this (`finish`, `drop`) is done with it.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
        }
        if let Some(recorded) = RECORDED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            recorded.remove(&self.device.handle());
        }
    }

    /// A host-visible buffer holding `bytes`, with its memory.
    pub fn buffer_with(&self, bytes: &[u8], usage: vk::BufferUsageFlags) -> (vk::Buffer, vk::DeviceMemory) {
        // SAFETY: plain creation; the caller destroys both.
        unsafe {
            let buffer = self
                .device
                .create_buffer(&vk::BufferCreateInfo::default().size(bytes.len() as u64).usage(usage), None)
                .unwrap();
            let requirements = self.device.get_buffer_memory_requirements(buffer);
            let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let memory = self
                .device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(requirements.size)
                        .memory_type_index(self.memory_type(requirements.memory_type_bits, host)),
                    None,
                )
                .unwrap();
            self.device.bind_buffer_memory(buffer, memory, 0).unwrap();
            let mapped = self.device.map_memory(memory, 0, bytes.len() as u64, vk::MemoryMapFlags::empty()).unwrap();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), mapped.cast::<u8>(), bytes.len());
            self.device.unmap_memory(memory);
            (buffer, memory)
        }
    }

    /// A `size`×`size` 2D device-local image with one mip level and layer,
    /// its memory, and a view of `aspect`; the caller destroys all three.
    pub fn image(
        &self,
        format: vk::Format,
        size: u32,
        samples: vk::SampleCountFlags,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
    ) -> (vk::Image, vk::DeviceMemory, vk::ImageView) {
        let d = &self.device;
        // SAFETY: plain creation on this device; the caller destroys them.
        unsafe {
            let image = d
                .create_image(
                    &vk::ImageCreateInfo::default()
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(format)
                        .extent(vk::Extent3D { width: size, height: size, depth: 1 })
                        .mip_levels(1)
                        .array_layers(1)
                        .samples(samples)
                        .usage(usage),
                    None,
                )
                .unwrap();
            let requirements = d.get_image_memory_requirements(image);
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default().allocation_size(requirements.size).memory_type_index(
                        self.memory_type(requirements.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL),
                    ),
                    None,
                )
                .unwrap();
            d.bind_image_memory(image, memory, 0).unwrap();
            let range = vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(1);
            let view = d
                .create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(format)
                        .subresource_range(range),
                    None,
                )
                .unwrap();
            (image, memory, view)
        }
    }

    /// Draws three vertices with `pipeline` (dynamic viewport and scissor)
    /// into a `size`×`size` RGBA8 image and returns its pixels. `bind`
    /// records what else the draw needs (descriptor sets, push constants).
    pub fn draw(&self, pipeline: vk::Pipeline, size: u32, bind: impl FnOnce(vk::CommandBuffer)) -> Vec<u8> {
        let d = &self.device;
        let format = vk::Format::R8G8B8A8_UNORM;
        // SAFETY: every object is created, used to completion (queue_wait_idle)
        // and destroyed within this function.
        unsafe {
            let (image, image_memory, view) = self.image(
                format,
                size,
                vk::SampleCountFlags::TYPE_1,
                vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                vk::ImageAspectFlags::COLOR,
            );
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(1)
                .layer_count(1);
            let bytes = u64::from(size * size * 4);
            let (buffer, buffer_memory) =
                self.buffer_with(&vec![0; bytes as usize], vk::BufferUsageFlags::TRANSFER_DST);
            let command = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default().command_pool(self.pool).command_buffer_count(1),
                )
                .unwrap()[0];
            d.begin_command_buffer(command, &vk::CommandBufferBeginInfo::default()).unwrap();
            let to_attachment = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::TOP_OF_PIPE)
                .dst_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
                .dst_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier2(
                command,
                &vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&to_attachment)),
            );
            let area =
                vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: size, height: size } };
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
            let viewport = vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: size as f32,
                height: size as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            d.cmd_set_viewport(command, 0, &[viewport]);
            d.cmd_set_scissor(command, 0, &[area]);
            bind(command);
            d.cmd_draw(command, 3, 1, 0, 0);
            d.cmd_end_rendering(command);
            let to_transfer = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
                .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
                .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier2(
                command,
                &vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&to_transfer)),
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(
                    vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1),
                )
                .image_extent(vk::Extent3D { width: size, height: size, depth: 1 });
            d.cmd_copy_image_to_buffer(command, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, buffer, &[region]);
            d.end_command_buffer(command).unwrap();
            let commands = [command];
            d.queue_submit(self.queue, &[vk::SubmitInfo::default().command_buffers(&commands)], vk::Fence::null())
                .unwrap();
            d.queue_wait_idle(self.queue).unwrap();
            let mapped = d.map_memory(buffer_memory, 0, bytes, vk::MemoryMapFlags::empty()).unwrap();
            let pixels = std::slice::from_raw_parts(mapped.cast::<u8>(), bytes as usize).to_vec();
            d.unmap_memory(buffer_memory);
            d.free_command_buffers(self.pool, &commands);
            d.destroy_buffer(buffer, None);
            d.free_memory(buffer_memory, None);
            d.destroy_image_view(view, None);
            d.destroy_image(image, None);
            d.free_memory(image_memory, None);
            pixels
        }
    }

    /// A memory type index among `bits` with `flags`.
    pub fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> u32 {
        (0..self.memory_properties.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0 && self.memory_properties.memory_types[i as usize].property_flags.contains(flags)
            })
            .expect("a suitable memory type")
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
