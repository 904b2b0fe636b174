//! The extensions and features a device needs for the manager.

use std::ffi::{CStr, c_char};

use ash::vk;

use super::VulkanError;
use super::device_features::{DeviceFeatures, LIBRARY_EXTENSIONS};
use super::pipelines::{PipelineManager, PipelineOptions};

/// What a [`PipelineManager`] needs on a physical device (dynamic rendering, and
/// graphics pipeline libraries where it has them), and the matching [`PipelineOptions`].
///
/// ```no_run
/// # use ash::vk;
/// # fn example(instance: &ash::Instance, physical: vk::PhysicalDevice, family: u32, limits: &vk::PhysicalDeviceLimits) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{DeviceRequirements, PipelineManager};
/// // SAFETY: `instance` is alive, created for Vulkan 1.3, and `physical` is one of its devices.
/// let mut requirements = unsafe { DeviceRequirements::for_physical_device(instance, physical)? };
/// // More Vulkan 1.3 features of your own go on the same structure:
/// requirements.vulkan13_features().synchronization2 = vk::TRUE;
/// // Your own extensions next to the manager's:
/// let mut extensions = requirements.extension_name_ptrs();
/// extensions.push(ash::khr::swapchain::NAME.as_ptr());
/// let priorities = [1.0];
/// let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
/// let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues).enabled_extension_names(&extensions);
/// let info = requirements.push_features(info);
/// // SAFETY: a valid create info for `physical`.
/// let device = unsafe { instance.create_device(physical, &info, None)? };
/// // Libraries where the device has them, monolithic pipelines otherwise.
/// let options = requirements.pipeline_options();
/// // SAFETY: the device was created with what `options` says; it outlives the manager.
/// let manager = unsafe { PipelineManager::new(device.clone(), vk::PipelineCache::null(), limits, options) };
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct DeviceRequirements {
    library_supported: bool,
    library_wanted: bool,
    vulkan13: vk::PhysicalDeviceVulkan13Features<'static>,
    library: vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT<'static>,
}

impl DeviceRequirements {
    /// What `physical` needs for the manager. See the [example](Self).
    ///
    /// # Errors
    /// - [`VulkanError::DeviceUnsupported`] below Vulkan 1.3 or without dynamic rendering.
    /// - A failing Vulkan call.
    ///
    /// # Safety
    /// `instance` is live, created for Vulkan 1.1 or later, and `physical` is one of its devices.
    pub unsafe fn for_physical_device(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
    ) -> Result<Self, VulkanError> {
        // SAFETY: the caller's contract: a live instance and its device.
        let properties = unsafe { instance.get_physical_device_properties(physical) };
        let name =
            || properties.device_name_as_c_str().map_or_else(|_| "?".into(), |n| n.to_string_lossy().into_owned());
        let version = properties.api_version;
        if version < vk::API_VERSION_1_3 {
            let has = format!("Vulkan {}.{}", vk::api_version_major(version), vk::api_version_minor(version));
            return Err(VulkanError::DeviceUnsupported { device: name(), needs: "Vulkan 1.3", has });
        }
        // SAFETY: as above.
        let extensions = super::check("vkEnumerateDeviceExtensionProperties", unsafe {
            instance.enumerate_device_extension_properties(physical)
        })?;
        let has = |name| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
        let listed = LIBRARY_EXTENSIONS.into_iter().all(has);
        let mut vulkan13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut library = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default();
        {
            let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut vulkan13);
            // Chained only where the device lists the extension.
            if listed {
                query = query.push_next(&mut library);
            }
            // SAFETY: as above; the chain holds structures the device has.
            unsafe { instance.get_physical_device_features2(physical, &mut query) };
        }
        if vulkan13.dynamic_rendering != vk::TRUE {
            return Err(VulkanError::DeviceUnsupported {
                device: name(),
                needs: "the dynamicRendering feature",
                has: "Vulkan 1.3 without it".to_owned(),
            });
        }
        let library_supported = listed && library.graphics_pipeline_library == vk::TRUE;
        Ok(Self {
            library_supported,
            library_wanted: true,
            vulkan13: vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true),
            library: vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
                .graphics_pipeline_library(library_supported),
        })
    }

    /// The same requirements without graphics pipeline libraries.
    ///
    /// ```no_run
    /// # fn example(requirements: smolv_runtime::vulkan::DeviceRequirements) {
    /// let requirements = requirements.without_graphics_pipeline_library();
    /// assert!(!requirements.graphics_pipeline_library());
    /// assert!(requirements.extension_names().is_empty());
    /// # }
    /// ```
    #[must_use]
    pub fn without_graphics_pipeline_library(mut self) -> Self {
        self.library_wanted = false;
        self
    }

    /// Whether the device gets graphics pipeline libraries.
    pub fn graphics_pipeline_library(&self) -> bool {
        self.library_supported && self.library_wanted
    }

    /// The device extensions to enable (those of libraries, or none).
    pub fn extension_names(&self) -> &'static [&'static CStr] {
        if self.graphics_pipeline_library() { &LIBRARY_EXTENSIONS } else { &[] }
    }

    /// [`extension_names`](Self::extension_names) as `ppEnabledExtensionNames` pointers.
    pub fn extension_name_ptrs(&self) -> Vec<*const c_char> {
        self.extension_names().iter().map(|name| name.as_ptr()).collect()
    }

    /// The `VkPhysicalDeviceVulkan13Features` that [`push_features`](Self::push_features)
    /// chains: set your other Vulkan 1.3 features here.
    pub fn vulkan13_features(&mut self) -> &mut vk::PhysicalDeviceVulkan13Features<'static> {
        // A chain `push_features` made may be gone.
        self.vulkan13.p_next = std::ptr::null_mut();
        &mut self.vulkan13
    }

    /// `info` with the feature structures chained; chain no other of these types.
    pub fn push_features<'a>(&'a mut self, info: vk::DeviceCreateInfo<'a>) -> vk::DeviceCreateInfo<'a> {
        let with_library = self.graphics_pipeline_library();
        chain_features(info, &mut self.vulkan13, &mut self.library, with_library)
    }

    /// Creates the device from `info` plus the missing [`extension_names`](Self::extension_names)
    /// and the structures of [`push_features`](Self::push_features).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn example(instance: &ash::Instance, physical: vk::PhysicalDevice, family: u32) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::DeviceRequirements;
    /// // SAFETY: `instance` is alive, created for Vulkan 1.3, and `physical` is one of its devices.
    /// let requirements = unsafe { DeviceRequirements::for_physical_device(instance, physical)? };
    /// let priorities = [1.0];
    /// let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
    /// let extensions = [ash::khr::swapchain::NAME.as_ptr()]; // your own, beside the manager's
    /// let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues).enabled_extension_names(&extensions);
    /// // SAFETY: a valid create info for `physical`, which has the swapchain extension.
    /// let device = unsafe { requirements.create_device(instance, physical, &info)? };
    /// // SAFETY: made with `requirements`; the manager is dropped first, with the device idle.
    /// let manager = unsafe { requirements.create_manager(instance, physical, device.clone()) };
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// A failing `vkCreateDevice`.
    ///
    /// # Safety
    /// As `vkCreateDevice`; the caller destroys the device.
    /// - `instance` and `physical` are those [`for_physical_device`](Self::for_physical_device)
    ///   was given, and `instance` was created for Vulkan 1.3 or later.
    /// - `info` is valid for `physical`, its extension names valid C strings.
    /// - Its chain holds none of the structures [`push_features`](Self::push_features) chains,
    ///   nor a feature structure promoted to Vulkan 1.3 (`VUID-VkDeviceCreateInfo-pNext-06532`):
    ///   set those on [`vulkan13_features`](Self::vulkan13_features).
    pub unsafe fn create_device(
        &self,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        info: &vk::DeviceCreateInfo<'_>,
    ) -> Result<ash::Device, VulkanError> {
        let given: &[*const c_char] = match usize::try_from(info.enabled_extension_count) {
            Ok(count) if count > 0 && !info.pp_enabled_extension_names.is_null() => {
                // SAFETY: the caller's contract: `count` valid name pointers.
                unsafe { std::slice::from_raw_parts(info.pp_enabled_extension_names, count) }
            }
            _ => &[],
        };
        // SAFETY: the caller's contract: each given name is a C string.
        let given: Vec<&CStr> = given.iter().map(|&name| unsafe { CStr::from_ptr(name) }).collect();
        let extensions = with_extensions(&given, self.extension_names());
        // Copies: nothing of the caller's chain stays in `self`.
        let (mut vulkan13, mut library) = (self.vulkan13, self.library);
        let info = info.enabled_extension_names(&extensions);
        let info = chain_features(info, &mut vulkan13, &mut library, self.graphics_pipeline_library());
        // SAFETY: the caller's contract, plus extensions and features `physical` has.
        super::check("vkCreateDevice", unsafe { instance.create_device(physical, &info, None) })
    }

    /// [`PipelineManager::new`] with `physical`'s limits and [`pipeline_options`](Self::pipeline_options).
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn example(instance: &ash::Instance, physical: vk::PhysicalDevice, device: ash::Device, requirements: &smolv_runtime::vulkan::DeviceRequirements) {
    /// // SAFETY: `device` was made by `requirements.create_device` for
    /// // `physical`; the manager is dropped first, once the device is idle.
    /// let manager = unsafe { requirements.create_manager(instance, physical, device) };
    /// assert_eq!(manager.uses_libraries(), requirements.graphics_pipeline_library());
    /// # }
    /// ```
    ///
    /// # Safety
    /// - `instance` and `physical` are as for [`create_device`](Self::create_device).
    /// - `device` was created from `physical` with these requirements and outlives the manager.
    /// - When the manager drops, the device is done with its pipelines (as for [`PipelineManager::new`]).
    pub unsafe fn create_manager(
        &self,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: ash::Device,
    ) -> PipelineManager {
        // SAFETY: the caller's contract: a live instance and its device.
        let limits = unsafe { instance.get_physical_device_properties(physical) }.limits;
        // SAFETY: `device` was created with these options (the contract).
        unsafe { PipelineManager::new(device, vk::PipelineCache::null(), &limits, self.pipeline_options()) }
    }

    /// What the device has enabled, for [`PipelineOptions::features`](PipelineOptions#structfield.features).
    pub fn device_features(&self) -> DeviceFeatures {
        DeviceFeatures::default()
            .with_vulkan13(&self.vulkan13)
            .with_graphics_pipeline_library(self.graphics_pipeline_library())
    }

    /// [`PipelineOptions::new`] with [`device_features`](Self::device_features).
    pub fn pipeline_options(&self) -> PipelineOptions {
        PipelineOptions::new().features(self.device_features())
    }
}

/// `info` with `vulkan13` chained, and `library` where `with_library`.
fn chain_features<'a>(
    info: vk::DeviceCreateInfo<'a>,
    vulkan13: &'a mut vk::PhysicalDeviceVulkan13Features<'static>,
    library: &'a mut vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT<'static>,
    with_library: bool,
) -> vk::DeviceCreateInfo<'a> {
    vulkan13.p_next = std::ptr::null_mut();
    library.p_next = std::ptr::null_mut();
    let info = info.push_next(vulkan13);
    if with_library { info.push_next(library) } else { info }
}

/// `given`, then each of `own` that `given` lacks, as pointers.
fn with_extensions(given: &[&CStr], own: &[&CStr]) -> Vec<*const c_char> {
    let missing = own.iter().filter(|name| !given.contains(name));
    given.iter().chain(missing).map(|name| name.as_ptr()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_requirements_extensions_are_added_once_after_the_callers() {
        let swapchain = ash::khr::swapchain::NAME;
        let names = |pointers: Vec<*const c_char>| -> Vec<&CStr> {
            // SAFETY: the pointers are those of the `&CStr`s given.
            pointers.into_iter().map(|p| unsafe { CStr::from_ptr(p) }).collect()
        };
        let added = names(with_extensions(&[swapchain], &LIBRARY_EXTENSIONS));
        assert_eq!(added, [swapchain, LIBRARY_EXTENSIONS[0], LIBRARY_EXTENSIONS[1]]);
        let already = names(with_extensions(&[LIBRARY_EXTENSIONS[1], swapchain], &LIBRARY_EXTENSIONS));
        assert_eq!(already, [LIBRARY_EXTENSIONS[1], swapchain, LIBRARY_EXTENSIONS[0]], "none twice");
        assert!(with_extensions(&[], &[]).is_empty());
    }
}
