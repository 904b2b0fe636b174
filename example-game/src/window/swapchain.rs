//! The window's surface and swapchain: FIFO presentation (vsync), one
//! image view and one "rendered" semaphore per swapchain image.

use ash::vk;

use crate::error::{GameError, vk_check};
use crate::gpu::{Context, color_view};

/// A `VkSurfaceKHR`, destroyed on drop (before the instance).
pub(crate) struct Surface {
    pub(crate) loader: ash::khr::surface::Instance,
    pub(crate) handle: vk::SurfaceKHR,
}

impl Drop for Surface {
    fn drop(&mut self) {
        // SAFETY: the swapchain made from it is gone (dropped first).
        unsafe { self.loader.destroy_surface(self.handle, None) };
    }
}

/// Swapchain images to render into and present.
pub(crate) struct Swapchain {
    device: ash::Device,
    loader: ash::khr::swapchain::Device,
    handle: vk::SwapchainKHR,
    pub(crate) images: Vec<vk::Image>,
    pub(crate) views: Vec<vk::ImageView>,
    pub(crate) format: vk::Format,
    pub(crate) extent: vk::Extent2D,
    /// Whether images can be copied out (screenshots).
    pub(crate) readable: bool,
    acquired: vk::Semaphore,
    rendered: Vec<vk::Semaphore>,
}

impl Swapchain {
    /// A swapchain for `surface` of about `size` pixels (the surface may
    /// decide), replacing `old` if given.
    pub(crate) fn new(
        context: &Context,
        surface: &Surface,
        size: (u32, u32),
        old: Option<&Swapchain>,
    ) -> Result<Self, GameError> {
        let device = &context.device;
        // SAFETY: queries and creation on live handles; what is created is
        // destroyed in Drop.
        unsafe {
            let (query, physical) = (&surface.loader, context.physical);
            let capabilities = query.get_physical_device_surface_capabilities(physical, surface.handle);
            let capabilities = vk_check("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", capabilities)?;
            let formats = query.get_physical_device_surface_formats(physical, surface.handle);
            let formats = vk_check("vkGetPhysicalDeviceSurfaceFormatsKHR", formats)?;
            let preferred = [vk::Format::B8G8R8A8_UNORM, vk::Format::R8G8B8A8_UNORM];
            let format = preferred
                .iter()
                .find_map(|&wanted| formats.iter().find(|f| f.format == wanted))
                .or(formats.first())
                .copied()
                .ok_or_else(|| GameError::Window("the surface offers no formats".to_owned()))?;
            let extent = if capabilities.current_extent.width == u32::MAX {
                vk::Extent2D {
                    width: size.0.clamp(capabilities.min_image_extent.width, capabilities.max_image_extent.width),
                    height: size.1.clamp(capabilities.min_image_extent.height, capabilities.max_image_extent.height),
                }
            } else {
                capabilities.current_extent
            };
            let mut count = capabilities.min_image_count + 1;
            if capabilities.max_image_count > 0 {
                count = count.min(capabilities.max_image_count);
            }
            let readable = capabilities.supported_usage_flags.contains(vk::ImageUsageFlags::TRANSFER_SRC);
            let copyable = if readable { vk::ImageUsageFlags::TRANSFER_SRC } else { vk::ImageUsageFlags::empty() };
            let loader = ash::khr::swapchain::Device::new(&context.instance, device);
            let info = vk::SwapchainCreateInfoKHR::default()
                .surface(surface.handle)
                .min_image_count(count)
                .image_format(format.format)
                .image_color_space(format.color_space)
                .image_extent(extent)
                .image_array_layers(1)
                .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | copyable)
                .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
                .pre_transform(capabilities.current_transform)
                .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
                .present_mode(vk::PresentModeKHR::FIFO)
                .clipped(true)
                .old_swapchain(old.map_or(vk::SwapchainKHR::null(), |o| o.handle));
            let handle = vk_check("vkCreateSwapchainKHR", loader.create_swapchain(&info, None))?;
            let mut swapchain = Self {
                device: device.clone(),
                loader,
                handle,
                images: Vec::new(),
                views: Vec::new(),
                format: format.format,
                extent,
                readable,
                acquired: vk::Semaphore::null(),
                rendered: Vec::new(),
            };
            swapchain.images = vk_check("vkGetSwapchainImagesKHR", swapchain.loader.get_swapchain_images(handle))?;
            let semaphore =
                || vk_check("vkCreateSemaphore", device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None));
            for &image in &swapchain.images {
                let view =
                    vk_check("vkCreateImageView", device.create_image_view(&color_view(image, format.format), None))?;
                swapchain.views.push(view);
                swapchain.rendered.push(semaphore()?);
            }
            swapchain.acquired = semaphore()?;
            Ok(swapchain)
        }
    }

    /// The next image: render into `index`, waiting on `ready` and signalling `rendered`; `None`
    /// when the swapchain no longer matches the window (recreate it). The previous frame must have
    /// finished on the GPU (its submission waited on the same semaphore).
    pub(crate) fn acquire(&self) -> Result<Option<(u32, vk::Semaphore, vk::Semaphore)>, GameError> {
        // SAFETY: live handles; the semaphore is unsignaled (see above).
        let result = unsafe { self.loader.acquire_next_image(self.handle, u64::MAX, self.acquired, vk::Fence::null()) };
        match result {
            Ok((index, _suboptimal)) => Ok(Some((index, self.acquired, self.rendered[index as usize]))),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(None),
            Err(result) => Err(GameError::Vulkan { call: "vkAcquireNextImageKHR", result }),
        }
    }

    /// Presents image `index` once `rendered` is signalled; false when the
    /// swapchain should be recreated.
    pub(crate) fn present(&self, queue: vk::Queue, index: u32, rendered: vk::Semaphore) -> Result<bool, GameError> {
        let swapchains = [self.handle];
        let indices = [index];
        let waits = [rendered];
        let info =
            vk::PresentInfoKHR::default().wait_semaphores(&waits).swapchains(&swapchains).image_indices(&indices);
        // SAFETY: live handles; `index` was acquired and rendered.
        match unsafe { self.loader.queue_present(queue, &info) } {
            Ok(false) => Ok(true),
            Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(false),
            Err(result) => Err(GameError::Vulkan { call: "vkQueuePresentKHR", result }),
        }
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        // SAFETY: the owner waits for the device to be idle first.
        unsafe {
            let _ = self.device.device_wait_idle();
            for &view in &self.views {
                self.device.destroy_image_view(view, None);
            }
            for &semaphore in self.rendered.iter().chain([&self.acquired]) {
                self.device.destroy_semaphore(semaphore, None);
            }
            self.loader.destroy_swapchain(self.handle, None);
        }
    }
}
