//! The Vulkan 1.3 instance and device, with graphics pipeline libraries where the driver has
//! them, and the validation layer with every message counted.

use std::ffi::{CStr, c_char, c_void};
use std::sync::Mutex;

use ash::vk;

use crate::error::{GameError, vk_check};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Whether to run with the validation layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Validation {
    /// On when the layer is installed.
    Auto,
    /// On; an error when the layer is missing.
    Required,
    /// Off.
    Off,
}

/// The messages the validation layer sent, counted and echoed to stderr.
type MessageLog = Mutex<Vec<String>>;

unsafe extern "system" fn on_validation_message(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call.
    let text = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) }
        .map_or_else(|| "(no message)".to_owned(), |m| m.to_string_lossy().into_owned());
    eprintln!("validation: {text}");
    // SAFETY: `user` is the `Context`'s boxed log, which outlives the messenger.
    if let Some(log) = unsafe { user.cast::<MessageLog>().as_ref() } {
        log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(text);
    }
    vk::FALSE
}

struct Messenger {
    loader: ash::ext::debug_utils::Instance,
    handle: vk::DebugUtilsMessengerEXT,
    log: Box<MessageLog>,
}

/// An instance, one device with one graphics and compute queue, and what the game knows of them.
pub(crate) struct Context {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    messenger: Option<Messenger>,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) queue_family: u32,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    /// The physical device's properties.
    pub(crate) properties: vk::PhysicalDeviceProperties,
    pub(crate) device_name: String,
    /// Whether VK_EXT_graphics_pipeline_library is enabled.
    pub(crate) graphics_pipeline_library: bool,
}

impl Context {
    /// Opens the first device that can run the game, with the instance extensions a window needs
    /// (and then VK_KHR_swapchain).
    pub(crate) fn new(validation: Validation, surface_extensions: &[*const c_char]) -> Result<Self, GameError> {
        // SAFETY: loading the system's Vulkan loader; nothing else depends on it.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| GameError::NoLoader(e.to_string()))?;
        // SAFETY: plain instance and device creation (`Context` destroys them in `Drop`), and queries
        // on live handles from them.
        unsafe {
            let layers = entry.enumerate_instance_layer_properties().unwrap_or_default();
            let has_layer = layers.iter().any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER));
            let validate = match validation {
                Validation::Off => false,
                Validation::Auto => has_layer,
                Validation::Required if has_layer => true,
                Validation::Required => return Err(GameError::NoValidationLayer),
            };
            let app = vk::ApplicationInfo::default()
                .application_name(c"Rock Storm (smolv example)")
                .api_version(vk::API_VERSION_1_3);
            let layer_names = if validate { vec![VALIDATION_LAYER.as_ptr()] } else { Vec::new() };
            let mut extensions = surface_extensions.to_vec();
            extensions.extend(validate.then_some(ash::ext::debug_utils::NAME.as_ptr()));
            // The timings compare two builds of the same shaders: turn the layer's cache of
            // validated SPIR-V off, so that each validates them afresh.
            let validation_features = validate
                && entry
                    .enumerate_instance_extension_properties(Some(VALIDATION_LAYER))
                    .unwrap_or_default()
                    .iter()
                    .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::validation_features::NAME));
            extensions.extend(validation_features.then_some(ash::ext::validation_features::NAME.as_ptr()));
            let disabled = [vk::ValidationFeatureDisableEXT::SHADER_VALIDATION_CACHE];
            let mut features = vk::ValidationFeaturesEXT::default().disabled_validation_features(&disabled);
            let mut info = vk::InstanceCreateInfo::default()
                .application_info(&app)
                .enabled_layer_names(&layer_names)
                .enabled_extension_names(&extensions);
            if validation_features {
                info = info.push_next(&mut features);
            }
            let instance = entry.create_instance(&info, None).map_err(|result| match result {
                vk::Result::ERROR_INCOMPATIBLE_DRIVER => GameError::NoDevice("(the loader found no driver)".to_owned()),
                result => GameError::Vulkan { call: "vkCreateInstance", result },
            })?;
            let messenger = if validate { Some(create_messenger(&entry, &instance)?) } else { None };
            let opened = || {
                let (physical, queue_family, name, gpl) = choose_device(&instance)?;
                let priorities = [1.0];
                let queues = [vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(queue_family)
                    .queue_priorities(&priorities)];
                let mut features13 =
                    vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true).synchronization2(true);
                let mut gpl_features =
                    vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default().graphics_pipeline_library(true);
                let swapchain = !surface_extensions.is_empty();
                let mut extensions: Vec<_> =
                    swapchain.then_some(ash::khr::swapchain::NAME.as_ptr()).into_iter().collect();
                if gpl {
                    extensions.push(ash::khr::pipeline_library::NAME.as_ptr());
                    extensions.push(ash::ext::graphics_pipeline_library::NAME.as_ptr());
                }
                let mut info = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .enabled_extension_names(&extensions)
                    .push_next(&mut features13);
                if gpl {
                    info = info.push_next(&mut gpl_features);
                }
                let device = vk_check("vkCreateDevice", instance.create_device(physical, &info, None))?;
                Ok((physical, queue_family, name, gpl, device))
            };
            // On error, nothing was created from the instance but the messenger.
            let (physical, queue_family, device_name, graphics_pipeline_library, device) =
                opened().inspect_err(|_: &GameError| {
                    if let Some(m) = &messenger {
                        m.loader.destroy_debug_utils_messenger(m.handle, None);
                    }
                    instance.destroy_instance(None);
                })?;
            let memory = instance.get_physical_device_memory_properties(physical);
            let properties = instance.get_physical_device_properties(physical);
            let queue = device.get_device_queue(queue_family, 0);
            Ok(Self {
                entry,
                instance,
                messenger,
                physical,
                device,
                queue,
                queue_family,
                memory,
                properties,
                device_name,
                graphics_pipeline_library,
            })
        }
    }

    /// Whether the validation layer is on.
    pub(crate) fn validating(&self) -> bool {
        self.messenger.is_some()
    }

    /// How many messages the validation layer has sent so far.
    pub(crate) fn validation_messages(&self) -> usize {
        self.messenger.as_ref().map_or(0, |m| m.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len())
    }

    /// Waits until the device is idle (before destroying anything).
    pub(crate) fn wait_idle(&self) -> Result<(), GameError> {
        // SAFETY: the device is live.
        vk_check("vkDeviceWaitIdle", unsafe { self.device.device_wait_idle() })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: every object made from the device is gone (the context is declared last).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            if let Some(m) = self.messenger.take() {
                m.loader.destroy_debug_utils_messenger(m.handle, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// # Safety
/// `instance` must be live.
unsafe fn create_messenger(entry: &ash::Entry, instance: &ash::Instance) -> Result<Messenger, GameError> {
    let loader = ash::ext::debug_utils::Instance::new(entry, instance);
    let log: Box<MessageLog> = Box::default();
    let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_validation_message))
        .user_data(std::ptr::from_ref::<MessageLog>(&log).cast_mut().cast());
    // SAFETY: `log` is boxed, so the pointer stays valid while the box lives.
    let handle =
        vk_check("vkCreateDebugUtilsMessengerEXT", unsafe { loader.create_debug_utils_messenger(&info, None) })?;
    Ok(Messenger { loader, handle, log })
}

/// The first physical device with Vulkan 1.3 and a graphics + compute
/// queue: (device, queue family, name, has graphics pipeline libraries).
///
/// # Safety
/// `instance` must be live.
unsafe fn choose_device(instance: &ash::Instance) -> Result<(vk::PhysicalDevice, u32, String, bool), GameError> {
    // SAFETY: queries on a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(|result| GameError::NoDevice(format!("(vkEnumeratePhysicalDevices: {result})")))?;
    if devices.is_empty() {
        return Err(GameError::NoDevice("found".to_owned()));
    }
    let mut rejected = Vec::new();
    for physical in devices {
        // SAFETY: `physical` came from this instance.
        let (properties, families, extensions) = unsafe {
            (
                instance.get_physical_device_properties(physical),
                instance.get_physical_device_queue_family_properties(physical),
                instance.enumerate_device_extension_properties(physical).unwrap_or_default(),
            )
        };
        let name = properties.device_name_as_c_str().map_or_else(|_| "?".to_owned(), |n| n.to_string_lossy().into());
        let version = properties.api_version;
        if version < vk::API_VERSION_1_3 {
            let (major, minor) = (vk::api_version_major(version), vk::api_version_minor(version));
            rejected.push(format!("{name} (Vulkan {major}.{minor})"));
            continue;
        }
        let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
        let Some(family) = families.iter().position(|f| f.queue_flags.contains(wanted)) else {
            rejected.push(format!("{name} (no graphics + compute queue)"));
            continue;
        };
        let has = |wanted: &CStr| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(wanted));
        let gpl = has(ash::khr::pipeline_library::NAME) && has(ash::ext::graphics_pipeline_library::NAME);
        return Ok((physical, family as u32, name, gpl));
    }
    Err(GameError::NoDevice(format!("with Vulkan 1.3 (found only {})", rejected.join(", "))))
}
