//! The README's "Using it" section, copied into a new crate, builds and
//! runs, as a crates.io user gets it. The files come from README.md itself,
//! so the README cannot drift from what works: every code block of the
//! section whose first line names a file (`# Cargo.toml`, `// build.rs: …`,
//! `// src/main.rs`) is that file. The crates are not published, so they
//! come from a stand-in for crates.io: the packages `cargo package` makes
//! (`outside::use_registry_stand_in`). The machine is made a stock one for
//! the build: no `SHADERC_LIB_DIR`, and no `spirv-opt`, `glslc` or
//! `glslangValidator` on `PATH` (`outside::without_shader_tools`).

use std::path::Path;

use smolv_tests::markdown::{code_blocks, file_name, write_crate};
use smolv_tests::outside::{cargo, succeed, use_registry_stand_in, without_shader_tools, workspace, write};

#[test]
fn the_readme_using_it_section_works_in_a_new_crate() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let blocks = code_blocks(&readme, "Using it");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("readme-user");

    let files = write_crate(&root, "readme-user", &blocks, "");
    assert_eq!(files, ["Cargo.toml", "build.rs", "shaders/lit.frag", "shaders/sky.wgsl", "src/main.rs"]);
    assert!(Path::new(&root.join("Cargo.toml")).is_file());

    use_registry_stand_in(&root, &dir.path().join("registry"));
    let mut run = cargo(&root, &["run", "--quiet"]);
    let calls = without_shader_tools(&mut run, dir.path());
    let stdout = succeed(&mut run);
    let called = std::fs::read_to_string(&calls).unwrap_or_default();
    assert!(called.is_empty(), "the build ran shader tools a stock machine lacks:\n{called}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("lit.frag: ") && lines[0].contains("Fragment; sky: "), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("lit.frag: ") && l.ends_with(" words") && !l.contains(';')), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("sky.wgsl#fs_main: ")), "{stdout}");
}

/// What the ash quick start leaves to the program around it: an instance
/// with the validation layer, a queue, an RGBA8 target, a host-visible
/// uniform buffer and a command buffer in dynamic rendering; it destroys
/// the descriptor pool the quick start returns. It prints the centre pixel
/// and whether the manager used libraries, and fails on any validation
/// message.
const ASH_HARNESS: &str = r#"
mod quick_start;

use smolv_runtime::vulkan::ash::{self, vk};
use std::sync::Mutex;

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_message(
    _: vk::DebugUtilsMessageSeverityFlagsEXT,
    _: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _: *mut std::ffi::c_void,
) -> vk::Bool32 {
    let message = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) };
    MESSAGES.lock().unwrap().push(message.map_or_else(|| "?".into(), |m| m.to_string_lossy().into_owned()));
    vk::FALSE
}

const SIZE: u32 = 16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    unsafe {
        let entry = ash::Entry::load()?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
        let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        let instance = entry.create_instance(&info, None)?;
        let debug = ash::ext::debug_utils::Instance::new(&entry, &instance);
        let messenger = debug.create_debug_utils_messenger(
            &vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(on_message)),
            None,
        )?;
        let physical = *instance.enumerate_physical_devices()?.first().ok_or("no Vulkan device")?;
        let family = instance
            .get_physical_device_queue_family_properties(physical)
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or("no graphics queue")? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];

        let (device, manager) = quick_start::device(&instance, physical, &queues)?;

        let queue = device.get_device_queue(family, 0);
        let memory = instance.get_physical_device_memory_properties(physical);
        let allocate = |requirements: vk::MemoryRequirements, flags: vk::MemoryPropertyFlags| {
            let index = (0..memory.memory_type_count)
                .find(|&i| {
                    requirements.memory_type_bits & (1 << i) != 0
                        && memory.memory_types[i as usize].property_flags.contains(flags)
                })
                .expect("a memory type");
            let info = vk::MemoryAllocateInfo::default().allocation_size(requirements.size).memory_type_index(index);
            device.allocate_memory(&info, None).expect("memory")
        };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let buffer = |size: u64, usage: vk::BufferUsageFlags| {
            let buffer = device.create_buffer(&vk::BufferCreateInfo::default().size(size).usage(usage), None).expect("buffer");
            let memory = allocate(device.get_buffer_memory_requirements(buffer), host);
            device.bind_buffer_memory(buffer, memory, 0).expect("bind");
            (buffer, memory)
        };
        let image = device.create_image(
            &vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(vk::Format::R8G8B8A8_UNORM)
                .extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 })
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC),
            None,
        )?;
        let image_memory = allocate(device.get_image_memory_requirements(image), vk::MemoryPropertyFlags::DEVICE_LOCAL);
        device.bind_image_memory(image, image_memory, 0)?;
        let range = vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(1);
        let view = device.create_image_view(
            &vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(vk::Format::R8G8B8A8_UNORM)
                .subresource_range(range),
            None,
        )?;
        let (uniform, uniform_memory) = buffer(256, vk::BufferUsageFlags::UNIFORM_BUFFER);
        let (readback, readback_memory) = buffer(u64::from(SIZE * SIZE * 4), vk::BufferUsageFlags::TRANSFER_DST);
        let mapped = device.map_memory(uniform_memory, 0, 256, vk::MemoryMapFlags::empty())?;
        let uniform_bytes = std::slice::from_raw_parts_mut(mapped.cast::<u8>(), 256);
        let command_pool = device.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)?;
        let cmd = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default().command_pool(command_pool).command_buffer_count(1),
        )?[0];
        device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        let barrier = |old, new, src_access, dst_access, src_stage, dst_stage| {
            let barrier = vk::ImageMemoryBarrier::default()
                .image(image)
                .subresource_range(range)
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(src_access)
                .dst_access_mask(dst_access);
            device.cmd_pipeline_barrier(cmd, src_stage, dst_stage, vk::DependencyFlags::empty(), &[], &[], &[barrier]);
        };
        barrier(
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::AccessFlags::empty(),
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        );
        let extent = vk::Extent2D { width: SIZE, height: SIZE };
        let attachments = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let rendering = vk::RenderingInfo::default()
            .render_area(vk::Rect2D::default().extent(extent))
            .layer_count(1)
            .color_attachments(&attachments);
        device.cmd_begin_rendering(cmd, &rendering);

        let pool = quick_start::draw(&device, &manager, cmd, extent, (uniform, uniform_bytes))?;

        device.cmd_end_rendering(cmd);
        barrier(
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            vk::AccessFlags::TRANSFER_READ,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags::TRANSFER,
        );
        let copy = vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1))
            .image_extent(vk::Extent3D { width: SIZE, height: SIZE, depth: 1 });
        device.cmd_copy_image_to_buffer(cmd, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, readback, &[copy]);
        device.end_command_buffer(cmd)?;
        let commands = [cmd];
        device.queue_submit(queue, &[vk::SubmitInfo::default().command_buffers(&commands)], vk::Fence::null())?;
        device.queue_wait_idle(queue)?;
        let pixels = device.map_memory(readback_memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())?;
        let pixels = std::slice::from_raw_parts(pixels.cast::<u8>(), (SIZE * SIZE * 4) as usize);
        let centre = ((SIZE / 2 * SIZE + SIZE / 2) * 4) as usize;
        println!("pixel {:?}", &pixels[centre..centre + 4]);
        println!("libraries {}", manager.uses_libraries());

        drop(manager);
        device.destroy_command_pool(command_pool, None);
        device.destroy_descriptor_pool(pool, None);
        device.destroy_image_view(view, None);
        device.destroy_image(image, None);
        for (buffer, memory) in [(uniform, uniform_memory), (readback, readback_memory)] {
            device.destroy_buffer(buffer, None);
            device.free_memory(memory, None);
        }
        device.free_memory(image_memory, None);
        device.destroy_device(None);
        debug.destroy_debug_utils_messenger(messenger, None);
        instance.destroy_instance(None);
    }
    let messages = MESSAGES.lock().unwrap();
    if !messages.is_empty() {
        return Err(format!("{} validation messages:\n{}", messages.len(), messages.join("\n")).into());
    }
    Ok(())
}
"#;

/// The lines of the README's quick start that are the Vulkan code, which
/// the `vulkan` module docs show too.
fn quick_start_code(blocks: &[(String, String)]) -> &str {
    let (_, body) =
        blocks.iter().find(|(_, body)| file_name(body) == Some("src/quick_start.rs")).expect("the Vulkan code");
    body
}

#[test]
fn the_runtime_readme_ash_quick_start_draws_on_lavapipe_with_no_message() {
    let readme = std::fs::read_to_string(workspace().join("smolv-runtime/README.md")).unwrap();
    let blocks = code_blocks(&readme, "Quick start with ash");
    let section = &readme[readme.find("## Quick start with ash").unwrap()..];
    let section = &section[..section[3..].find("\n## ").unwrap()];
    let said = |text: &str| {
        text.split_whitespace().collect::<Vec<_>>().join(" ").contains("Viewport and scissor are always dynamic")
    };
    assert!(said(section), "the quick start says it");

    // The crate docs show the same Vulkan code, line for line.
    let module_docs: String = std::fs::read_to_string(workspace().join("smolv-runtime/src/vulkan/mod.rs"))
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line).to_owned() + "\n")
        .collect();
    assert!(module_docs.contains(quick_start_code(&blocks)), "the vulkan module docs show the README's quick start");
    assert!(said(&module_docs), "the vulkan module docs say it");

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ash-quick-start");
    let files = write_crate(&root, "ash-quick-start", &blocks, "");
    assert_eq!(
        files,
        ["Cargo.toml", "build.rs", "shaders/triangle.frag", "shaders/triangle.vert", "src/quick_start.rs"]
    );
    write(&root.join("src/main.rs"), ASH_HARNESS);
    // About 30 lines from `include_shader!` to the draw (50 before the
    // device and manager helpers, the slot's layouts and push constants,
    // and the viewport call).
    let code = quick_start_code(&blocks);
    let lines = code[code.find("include_shader!").expect("the shaders")..].lines().count();
    assert!(lines <= 33, "the quick start's Vulkan code is {lines} lines from include_shader!");
    // The descriptor code the user writes, from the generated program's types.
    let draw = quick_start_code(&blocks).split("pub unsafe fn draw").nth(1).expect("the draw function");
    let descriptor_lines: Vec<&str> = draw
        .lines()
        .skip(1)
        .filter(|line| ["Set0", "program_layout", "descriptor"].iter().any(|word| line.contains(word)))
        .collect();
    assert!(
        descriptor_lines.len() <= 3,
        "{} lines of descriptor code:\n{}",
        descriptor_lines.len(),
        descriptor_lines.join("\n")
    );

    let stdout = succeed(&mut cargo(&root, &["run", "--quiet"]));
    // The uniform's colour, as the fragment shader read it from the typed block.
    assert!(stdout.contains("pixel [64, 128, 191, 255]"), "{stdout}");
    // lavapipe has graphics pipeline libraries: DeviceRequirements enabled them.
    assert!(stdout.contains("libraries true"), "{stdout}");
}
