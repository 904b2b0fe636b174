//! Command-recording helpers: barriers, dynamic rendering scopes, the screenshot copy, submit infos.

use ash::vk;

use crate::gpu::{Buffer, COLOR_RANGE};

use super::Target;

/// A submit info for `semaphore`, if any, at the colour-output stage.
pub(super) fn semaphore_infos(semaphore: Option<vk::Semaphore>) -> Vec<vk::SemaphoreSubmitInfo<'static>> {
    semaphore
        .into_iter()
        .map(|s| {
            vk::SemaphoreSubmitInfo::default().semaphore(s).stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
        })
        .collect()
}

/// # Safety
/// `commands` is recording.
unsafe fn image_barrier(
    device: &ash::Device,
    commands: vk::CommandBuffer,
    image: vk::Image,
    layouts: (vk::ImageLayout, vk::ImageLayout),
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
) {
    let barrier = vk::ImageMemoryBarrier2::default()
        .image(image)
        .old_layout(layouts.0)
        .new_layout(layouts.1)
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
        .subresource_range(COLOR_RANGE);
    let barriers = [barrier];
    // SAFETY: the caller guarantees recording.
    unsafe { device.cmd_pipeline_barrier2(commands, &vk::DependencyInfo::default().image_memory_barriers(&barriers)) };
}

/// Records a rendering scope that clears `image` (its `view`, `extent`) to black: a barrier from
/// `UNDEFINED` after the `after` stage, `draws`, then a barrier into `layout` before `next`.
///
/// # Safety
/// `commands` is recording; `draws` records what a rendering scope may hold.
pub(super) unsafe fn render_pass(
    device: &ash::Device,
    commands: vk::CommandBuffer,
    (image, view, extent): (vk::Image, vk::ImageView, vk::Extent2D),
    after: vk::PipelineStageFlags2,
    (layout, next): (vk::ImageLayout, (vk::PipelineStageFlags2, vk::AccessFlags2)),
    draws: impl FnOnce(),
) {
    let attachments = [vk::RenderingAttachmentInfo::default()
        .image_view(view)
        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue { color: vk::ClearColorValue { float32: [0.0, 0.0, 0.0, 1.0] } })];
    let area = vk::Rect2D::from(extent);
    let info = vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&attachments);
    let viewport = vk::Viewport::default().width(extent.width as f32).height(extent.height as f32).max_depth(1.0);
    let written = (vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT, vk::AccessFlags2::COLOR_ATTACHMENT_WRITE);
    let attachment = (vk::ImageLayout::UNDEFINED, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL);
    // SAFETY: the caller guarantees recording.
    unsafe {
        image_barrier(device, commands, image, attachment, (after, vk::AccessFlags2::NONE), written);
        device.cmd_begin_rendering(commands, &info);
        device.cmd_set_viewport(commands, 0, &[viewport]);
        device.cmd_set_scissor(commands, 0, &[area]);
        draws();
        device.cmd_end_rendering(commands);
        image_barrier(device, commands, image, (vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL, layout), written, next);
    }
}

/// # Safety
/// `commands` is recording; `target.image` is in `TRANSFER_SRC_OPTIMAL`
/// and `buffer` holds `width * height * 4` bytes.
pub(super) unsafe fn record_readback(
    device: &ash::Device,
    commands: vk::CommandBuffer,
    target: Target,
    buffer: &Buffer,
) {
    let layers = vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
    let region = vk::BufferImageCopy::default().image_subresource(layers).image_extent(target.extent.into());
    // SAFETY: the caller guarantees the layouts and sizes.
    unsafe {
        let layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        device.cmd_copy_image_to_buffer(commands, target.image, layout, buffer.handle, &[region]);
        let copied = (vk::PipelineStageFlags2::COPY, vk::AccessFlags2::TRANSFER_WRITE);
        memory_barrier(device, commands, copied, (vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_READ));
    }
}

/// # Safety
/// `commands` is recording.
pub(super) unsafe fn memory_barrier(
    device: &ash::Device,
    commands: vk::CommandBuffer,
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
) {
    let barriers = [vk::MemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)];
    // SAFETY: the caller guarantees recording.
    unsafe { device.cmd_pipeline_barrier2(commands, &vk::DependencyInfo::default().memory_barriers(&barriers)) };
}
