//! Viewport and scissor, which every pipeline the manager builds leaves dynamic.

use ash::vk;

/// Records a viewport (depths 0 to 1) and a scissor covering `extent`.
///
/// # Safety
/// - `cmd` is a command buffer of `device` in the recording state.
/// - `extent` is within the device's `maxViewportDimensions`.
///
/// ```no_run
/// # use ash::vk;
/// # fn example(device: &ash::Device, cmd: vk::CommandBuffer) {
/// let extent = vk::Extent2D { width: 1280, height: 720 };
/// // SAFETY: `cmd` is a command buffer of `device`, recording.
/// unsafe { smolv_runtime::vulkan::cmd_set_viewport_and_scissor(device, cmd, extent) };
/// # }
/// ```
pub unsafe fn cmd_set_viewport_and_scissor(device: &ash::Device, cmd: vk::CommandBuffer, extent: vk::Extent2D) {
    // SAFETY: the caller's contract.
    unsafe {
        device.cmd_set_viewport(cmd, 0, &[whole_viewport(extent)]);
        device.cmd_set_scissor(cmd, 0, &[vk::Rect2D::default().extent(extent)]);
    }
}

/// The viewport over all of `extent`, depths 0 to 1.
fn whole_viewport(extent: vk::Extent2D) -> vk::Viewport {
    // Exact: image sizes are far below 2^24.
    let (width, height) = (extent.width as f32, extent.height as f32);
    vk::Viewport { x: 0.0, y: 0.0, width, height, min_depth: 0.0, max_depth: 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewport_covers_the_extent_with_depths_0_to_1() {
        let viewport = whole_viewport(vk::Extent2D { width: 640, height: 360 });
        assert_eq!((viewport.x, viewport.y, viewport.width, viewport.height), (0.0, 0.0, 640.0, 360.0));
        assert_eq!((viewport.min_depth, viewport.max_depth), (0.0, 1.0));
    }
}
