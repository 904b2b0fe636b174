//! A Vulkan device for tests: lavapipe (or any device) with the Khronos
//! validation layer on, and every message it prints collected, so that a
//! test can fail on any of them.
#![allow(unsafe_code)]

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
    /// The device.
    pub device: ash::Device,
    /// Its graphics queue.
    pub queue: vk::Queue,
    memory_properties: vk::PhysicalDeviceMemoryProperties,
    /// A command pool of the queue's family.
    pub pool: vk::CommandPool,
    /// Whether VK_EXT_graphics_pipeline_library is enabled.
    pub graphics_pipeline_library: bool,
    messages: Box<Mutex<Vec<String>>>,
}

impl Default for Gpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Gpu {
    /// Opens the first device with Vulkan 1.3 dynamic rendering and
    /// synchronization2.
    pub fn new() -> Gpu {
        // SAFETY: plain Vulkan setup; every handle is destroyed in Drop.
        unsafe {
            let entry = ash::Entry::load().expect("the Vulkan loader (libvulkan1) must be installed");
            let layer = c"VK_LAYER_KHRONOS_validation";
            let layers = entry.enumerate_instance_layer_properties().unwrap();
            assert!(
                layers.iter().any(|l| l.layer_name_as_c_str() == Ok(layer)),
                "the validation layers must be installed (apt-get install vulkan-validationlayers)"
            );
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
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
            let graphics_pipeline_library = instance
                .enumerate_device_extension_properties(physical)
                .unwrap()
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::graphics_pipeline_library::NAME));
            let mut gpl =
                vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default().graphics_pipeline_library(true);
            let gpl_extensions =
                [ash::khr::pipeline_library::NAME.as_ptr(), ash::ext::graphics_pipeline_library::NAME.as_ptr()];
            let device = instance
                .create_device(
                    physical,
                    &{
                        let info =
                            vk::DeviceCreateInfo::default().queue_create_infos(&queues).push_next(&mut features13);
                        if graphics_pipeline_library {
                            info.enabled_extension_names(&gpl_extensions).push_next(&mut gpl)
                        } else {
                            info
                        }
                    },
                    None,
                )
                .unwrap();
            let queue = device.get_device_queue(family, 0);
            let pool = device
                .create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)
                .unwrap();
            let memory_properties = instance.get_physical_device_memory_properties(physical);
            Gpu {
                _entry: entry,
                instance,
                debug,
                messenger,
                physical,
                device,
                queue,
                memory_properties,
                pool,
                graphics_pipeline_library,
                messages,
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
        // SAFETY: the device is idle (every render waits), and nothing else uses these handles.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.debug.destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}
