//! On a real Vulkan device (lavapipe here), with the validation layers on:
//! an ubershader with five spec-constant switches renders the same pixels
//! (a) with its spec constants set at pipeline creation and (b) from the
//! SPIR-V that `smolv_runtime::specialize` produced for the same values.
//! Any validation message fails the test.
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::specialize::{Specializer, Value};
use smolv_tests::vulkan::Gpu;

const SIZE: u32 = 64;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

const VERTEX: &str = "#version 450\nlayout(location = 0) out vec2 uv;\n\
void main() {\n  uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

const UBERSHADER: &str = r#"#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(constant_id = 0) const bool STRIPES = true;
layout(constant_id = 1) const bool CIRCLE = false;
layout(constant_id = 2) const int PALETTE = 1;
layout(constant_id = 3) const int BANDS = 4;
layout(constant_id = 4) const bool INVERT = false;

void main() {
    vec3 c = vec3(uv, 0.25);
    if (STRIPES) {
        c.b = step(0.5, fract(uv.x * float(BANDS)));
    }
    if (CIRCLE) {
        float d = length(uv - 0.5);
        c *= d < 0.3 ? 1.0 : 0.25;
    }
    switch (PALETTE) {
        case 0: c = c.bgr; break;
        case 1: c = vec3(dot(c, vec3(0.3, 0.6, 0.1))); break;
        default: c = c * c; break;
    }
    for (int i = 0; i < BANDS; ++i) {
        c.r += 0.02;
    }
    if (INVERT) {
        c = 1.0 - c;
    }
    color = vec4(clamp(c, 0.0, 1.0), 1.0);
}
"#;

/// Compiles the two shaders with smolv-build, as a game would ship them.
fn shaders() -> (Vec<u32>, Vec<u32>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join("shaders/fullscreen.vert"), VERTEX).unwrap();
    std::fs::write(dir.path().join("shaders/uber.frag"), UBERSHADER).unwrap();
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = smolv_runtime::ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    (set.get("fullscreen.vert").unwrap().decode().unwrap(), set.get("uber.frag").unwrap().decode().unwrap())
}

/// Renders one full-screen triangle and reads the pixels back.
fn render(gpu: &Gpu, vertex: &[u32], fragment: &[u32], specialization: Option<&vk::SpecializationInfo<'_>>) -> Vec<u8> {
    let d = &gpu.device;
    // SAFETY: every object is created, used to completion (queue_wait_idle)
    // and destroyed within this function.
    unsafe {
        let image = d
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(FORMAT)
                    .extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC),
                None,
            )
            .unwrap();
        let requirements = d.get_image_memory_requirements(image);
        let image_memory = d
            .allocate_memory(
                &vk::MemoryAllocateInfo::default().allocation_size(requirements.size).memory_type_index(
                    gpu.memory_type(requirements.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL),
                ),
                None,
            )
            .unwrap();
        d.bind_image_memory(image, image_memory, 0).unwrap();
        let range =
            vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(1);
        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(FORMAT)
                    .subresource_range(range),
                None,
            )
            .unwrap();
        let bytes = u64::from(SIZE * SIZE * 4);
        let buffer = d
            .create_buffer(&vk::BufferCreateInfo::default().size(bytes).usage(vk::BufferUsageFlags::TRANSFER_DST), None)
            .unwrap();
        let requirements = d.get_buffer_memory_requirements(buffer);
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let buffer_memory = d
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(requirements.size)
                    .memory_type_index(gpu.memory_type(requirements.memory_type_bits, host)),
                None,
            )
            .unwrap();
        d.bind_buffer_memory(buffer, buffer_memory, 0).unwrap();

        let vertex_module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(vertex), None).unwrap();
        let fragment_module =
            d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(fragment), None).unwrap();
        let layout = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None).unwrap();
        let main = c"main";
        let mut fragment_stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fragment_module)
            .name(main);
        if let Some(info) = specialization {
            fragment_stage = fragment_stage.specialization_info(info);
        }
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vertex_module)
                .name(main),
            fragment_stage,
        ];
        let viewports =
            [vk::Viewport { x: 0.0, y: 0.0, width: SIZE as f32, height: SIZE as f32, min_depth: 0.0, max_depth: 1.0 }];
        let scissors =
            [vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: SIZE, height: SIZE } }];
        let blend = [vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA)];
        let formats = [FORMAT];
        let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default().viewports(&viewports).scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blending = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blending)
            .layout(layout)
            .push_next(&mut rendering);
        let pipeline =
            d.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None).map_err(|(_, e)| e).unwrap()[0];

        let command = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default().command_pool(gpu.pool).command_buffer_count(1),
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
        let attachments = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)];
        d.cmd_begin_rendering(
            command,
            &vk::RenderingInfo::default().render_area(scissors[0]).layer_count(1).color_attachments(&attachments),
        );
        d.cmd_bind_pipeline(command, vk::PipelineBindPoint::GRAPHICS, pipeline);
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
            .image_extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 });
        d.cmd_copy_image_to_buffer(command, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, buffer, &[region]);
        d.end_command_buffer(command).unwrap();
        let commands = [command];
        d.queue_submit(gpu.queue, &[vk::SubmitInfo::default().command_buffers(&commands)], vk::Fence::null()).unwrap();
        d.queue_wait_idle(gpu.queue).unwrap();

        let mapped = d.map_memory(buffer_memory, 0, bytes, vk::MemoryMapFlags::empty()).unwrap();
        let pixels = std::slice::from_raw_parts(mapped.cast::<u8>(), bytes as usize).to_vec();
        d.unmap_memory(buffer_memory);

        d.free_command_buffers(gpu.pool, &commands);
        d.destroy_pipeline(pipeline, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_shader_module(vertex_module, None);
        d.destroy_shader_module(fragment_module, None);
        d.destroy_buffer(buffer, None);
        d.free_memory(buffer_memory, None);
        d.destroy_image_view(view, None);
        d.destroy_image(image, None);
        d.free_memory(image_memory, None);
        pixels
    }
}

#[test]
fn specialized_spirv_renders_the_same_pixels_as_pipeline_specialization() {
    let (vertex, ubershader) = shaders();
    let analysis = Specializer::analyze(&ubershader).unwrap();
    assert_eq!(analysis.spec_ids(), [0, 1, 2, 3, 4]);
    let gpu = Gpu::new();
    // stripes, circle, palette, bands, invert
    let assignments: [(bool, bool, i32, i32, bool); 5] = [
        (true, false, 1, 4, false),
        (false, true, 0, 2, true),
        (true, true, 2, 7, false),
        (false, false, 0, 0, false),
        (true, true, 1, 3, true),
    ];
    let mut distinct = std::collections::BTreeSet::new();
    for (stripes, circle, palette, bands, invert) in assignments {
        // (a) the ubershader, specialized by the driver at pipeline creation
        let data: Vec<u8> = [u32::from(stripes), u32::from(circle), palette as u32, bands as u32, u32::from(invert)]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let entries: Vec<vk::SpecializationMapEntry> =
            (0..5).map(|i| vk::SpecializationMapEntry { constant_id: i, offset: i * 4, size: 4 }).collect();
        let info = vk::SpecializationInfo::default().map_entries(&entries).data(&data);
        let by_driver = render(&gpu, &vertex, &ubershader, Some(&info));
        // (b) the SPIR-V smolv specialized ahead of time
        let values = [
            (0, Value::Bool(stripes)),
            (1, Value::Bool(circle)),
            (2, Value::I32(palette)),
            (3, Value::I32(bands)),
            (4, Value::Bool(invert)),
        ];
        let specialized = analysis.specialize(&values).unwrap();
        assert!(specialized.len() < ubershader.len());
        let by_smolv = render(&gpu, &vertex, &specialized, None);
        let worst = by_driver.iter().zip(&by_smolv).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
        assert!(worst <= 1, "{values:?}: pixels differ by up to {worst}/255");
        distinct.insert(by_driver);
    }
    assert_eq!(distinct.len(), assignments.len(), "every feature set renders differently");
    gpu.assert_validation_clean();
}
