//! Pipeline creation: graphics pipeline libraries against monolithic
//! pipelines, measured in the same run.
//!
//! `cargo bench -p smolv-runtime --bench pipelines`
//!
//! The scene has 50 materials, each with its own fragment shader, sharing one
//! vertex stage and one output state. As in DXVK, a material's fragment
//! library is created when its shader loads (load time), and its pipeline is
//! linked when a draw first needs it (draw time). It needs a Vulkan device
//! with VK_EXT_graphics_pipeline_library (lavapipe has it) and `glslc` to
//! compile the shaders; Mesa's shader cache is disabled so the numbers are
//! cold.
//!
//! It also measures what recording pipelines for warm-up
//! (`PipelineManager::recorder`) costs the render thread: the same calls
//! with and without a recorder, in the same run.
#![allow(missing_docs, unsafe_code)]
#![allow(clippy::cast_possible_truncation, reason = "benchmark code: the counts it converts are small and fixed")]

use std::process::Command;
use std::time::{Duration, Instant};

use ash::vk;
use smolv_runtime::reflect::{Reflection, ShaderStage};
use smolv_runtime::vulkan::{DeviceFeatures, GraphicsState, PipelineManager, PipelineOptions, Stage};

const MATERIALS: usize = 50;

fn compile(dir: &std::path::Path, name: &str, source: &str) -> Vec<u32> {
    let input = dir.join(name);
    let output = dir.join(format!("{name}.spv"));
    std::fs::write(&input, source).unwrap();
    let status = Command::new("glslc")
        .args(["--target-env=vulkan1.2", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("glslc (apt-get install glslc; scripts/setup.sh installs it) compiles the benchmark's shaders");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    std::fs::read(&output).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn material(i: usize) -> String {
    format!(
        "#version 450\nlayout(location = 0) in vec2 uv;\nlayout(location = 0) out vec4 color;\n\
         layout(set = 1, binding = 0) uniform Material {{ vec4 albedo; vec4 params; }} m;\n\
         void main() {{\n  vec3 c = m.albedo.rgb * {scale:.3};\n\
           for (int i = 0; i < {loops}; ++i) {{ c = mix(c, vec3(uv, 0.5) * m.params.xyz, 0.{i:02}); c = sin(c * {freq}.0) * 0.5 + 0.5; }}\n\
           if (m.params.w > {threshold:.2}) {{ c = pow(c, vec3(2.2)); }} else {{ c = sqrt(c); }}\n\
           color = vec4(c, 1.0);\n}}\n",
        scale = 0.5 + i as f32 * 0.01,
        loops = 2 + i % 5,
        freq = 1 + i % 7,
        threshold = i as f32 / MATERIALS as f32
    )
}

const VERTEX: &str = "#version 450\nlayout(location = 0) out vec2 uv;\n\
void main() {\n  uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

fn reflection(stage: ShaderStage) -> Reflection {
    let mut reflection = Reflection::new(stage, "main");
    if stage == ShaderStage::Fragment {
        reflection.bindings.push(smolv_runtime::reflect::DescriptorBinding {
            set: 1,
            binding: 0,
            kind: smolv_runtime::reflect::DescriptorKind::UniformBuffer,
            count: 1,
            stages: stage.vk_stage_flag(),
            name: "m".into(),
        });
    }
    reflection
}

struct Device {
    // Keeps the Vulkan loader loaded until the device and instance are gone.
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    limits: vk::PhysicalDeviceLimits,
}

fn open_device() -> Option<Device> {
    // SAFETY: plain Vulkan set-up; both handles are destroyed at the end of main.
    unsafe {
        let entry = ash::Entry::load().ok()?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).ok()?;
        let physical = *instance.enumerate_physical_devices().ok()?.first()?;
        let has_gpl = instance
            .enumerate_device_extension_properties(physical)
            .ok()?
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::graphics_pipeline_library::NAME));
        if !has_gpl {
            return None;
        }
        let family = instance
            .get_physical_device_queue_family_properties(physical)
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
        let extensions =
            [ash::khr::pipeline_library::NAME.as_ptr(), ash::ext::graphics_pipeline_library::NAME.as_ptr()];
        let mut features13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
        let mut gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default().graphics_pipeline_library(true);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut features13)
            .push_next(&mut gpl);
        let device = instance.create_device(physical, &info, None).ok()?;
        let limits = instance.get_physical_device_properties(physical).limits;
        Some(Device { _entry: entry, instance, device, limits })
    }
}

fn average(total: Duration, n: usize) -> Duration {
    total / n as u32
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // SAFETY: set before any thread starts and before Mesa reads it.
    unsafe { std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true") };
    let Some(gpu) = open_device() else {
        println!("no Vulkan device with VK_EXT_graphics_pipeline_library; install mesa-vulkan-drivers (lavapipe)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("smolv-pipelines-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vertex_code = compile(&dir, "scene.vert", VERTEX);
    let fragments: Vec<Vec<u32>> = (0..MATERIALS).map(|i| compile(&dir, &format!("m{i}.frag"), &material(i))).collect();
    let _ = std::fs::remove_dir_all(&dir);
    let (vertex_reflection, fragment_reflection) = (reflection(ShaderStage::Vertex), reflection(ShaderStage::Fragment));
    let vertex = Stage { spirv: &vertex_code, reflection: &vertex_reflection, specialization: &[] };
    let stage = |i: usize| Stage { spirv: &fragments[i], reflection: &fragment_reflection, specialization: &[] };
    let state = GraphicsState::default();

    let manager = |options| {
        // SAFETY: the device has dynamic rendering and graphics pipeline
        // libraries enabled; both managers are dropped before the device.
        unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.limits, options) }
    };
    // The device was created with graphics pipeline libraries: say so.
    let libraries =
        manager(PipelineOptions::new().features(DeviceFeatures::default().with_graphics_pipeline_library(true)));
    assert!(libraries.uses_libraries(), "the libraries' manager builds from libraries");
    let monolithic = manager(PipelineOptions::new().force_monolithic(true));
    // SAFETY (every `get_pipeline` and `preload_fragment` below): the
    // modules come from glslc, the reflections above describe
    // them, and the state is the default RGBA8 one.
    // Warm-up: the shared vertex-input, pre-rasterization and output libraries.
    let warm = unsafe { libraries.get_pipeline(&vertex, &stage(0), &state) }.unwrap();
    while !warm.is_optimized() {
        std::thread::sleep(Duration::from_millis(1));
    }

    // (a) load time: each material's fragment library.
    let mut load = Duration::ZERO;
    for i in 1..MATERIALS {
        let start = Instant::now();
        // SAFETY: see above.
        unsafe { libraries.preload_fragment(&vertex, &stage(i), &state) }.unwrap();
        load += start.elapsed();
    }
    let load = average(load, MATERIALS - 1);

    // (b) draw time: fast link of cached libraries, and (c) when the
    // optimized link lands; against a monolithic pipeline made at draw time.
    let (mut fast, mut optimized, mut mono) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for i in 1..MATERIALS {
        let start = Instant::now();
        // SAFETY: see above.
        let slot = unsafe { libraries.get_pipeline(&vertex, &stage(i), &state) }.unwrap();
        fast += start.elapsed();
        while !slot.is_optimized() {
            std::thread::sleep(Duration::from_micros(200));
        }
        optimized += start.elapsed();
        let start = Instant::now();
        // SAFETY: see above.
        unsafe { monolithic.get_pipeline(&vertex, &stage(i), &state) }.unwrap();
        mono += start.elapsed();
    }
    let n = MATERIALS - 1;
    let (fast, optimized, mono) = (average(fast, n), average(optimized, n), average(mono, n));

    // (e) recording for warm-up: the first ask (the fast link plus the
    // entry), and a frame's ask for a pipeline it has, with and without a
    // recorder, alternated so that both see the same machine.
    let recorded =
        manager(PipelineOptions::new().features(DeviceFeatures::default().with_graphics_pipeline_library(true)));
    let recorder = recorded.recorder();
    recorder.name_shader("scene.vert", &vertex_code);
    for (i, code) in fragments.iter().enumerate() {
        recorder.name_shader(&format!("m{i}.frag"), code);
    }
    recorder.set_scope(Some("level 1"));
    // SAFETY: see above.
    unsafe { recorded.preload_fragment(&vertex, &stage(0), &state) }.unwrap();
    let mut first_recorded = Duration::ZERO;
    for i in 1..MATERIALS {
        // SAFETY: see above.
        unsafe { recorded.preload_fragment(&vertex, &stage(i), &state) }.unwrap();
        let start = Instant::now();
        // SAFETY: see above.
        let slot = unsafe { recorded.get_pipeline(&vertex, &stage(i), &state) }.unwrap();
        first_recorded += start.elapsed();
        // As in (b): the optimized link lands before the next ask.
        while !slot.is_optimized() {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    let first_recorded = average(first_recorded, n);
    assert_eq!(recorder.len(), MATERIALS - 1, "one entry per pipeline asked for");
    const HITS: usize = 20_000;
    let (mut hit_plain, mut hit_recorded) = (Duration::ZERO, Duration::ZERO);
    for round in 0..10 {
        for (manager, total) in [(&libraries, &mut hit_plain), (&recorded, &mut hit_recorded)] {
            let start = Instant::now();
            for i in 0..HITS / 10 {
                // SAFETY: see above.
                std::hint::black_box(unsafe { manager.get_pipeline(&vertex, &stage(1 + (i + round) % n), &state) })
                    .unwrap();
            }
            *total += start.elapsed();
        }
    }
    let (hit_plain, hit_recorded) = (average(hit_plain, HITS), average(hit_recorded, HITS));
    assert_eq!(recorder.len(), MATERIALS - 1, "asking again records nothing");
    let start = Instant::now();
    let bytes = recorder.recording().to_bytes();
    let save = start.elapsed();
    drop(libraries);
    drop(monolithic);
    drop(recorded);

    println!(
        "pipeline creation, {MATERIALS} materials (own fragment shader, shared vertex stage and output), averages:"
    );
    println!("  {:<58} {:>12}", "(a) load time: fragment library per material", ms(load));
    println!("  {:<58} {:>12}", "(b) draw time: fast link of cached libraries", ms(fast));
    println!("  {:<58} {:>12}", "    draw time: monolithic pipeline (peer)", ms(mono));
    println!("  {:<58} {:>12}", "(c) optimized link ready, after the draw-time request", ms(optimized));
    println!(
        "  {:<58} {:>12}   ({:.2} of monolithic)",
        "(d) load + draw time with libraries",
        ms(load + fast),
        (load + fast).as_secs_f64() / mono.as_secs_f64()
    );
    println!("first pipeline vs monolithic: {:.3}", fast.as_secs_f64() / mono.as_secs_f64());
    println!("target: first pipeline vs monolithic <= 0.5");
    let us = |d: Duration| format!("{:.2} us", d.as_secs_f64() * 1e6);
    println!("recording for warm-up (PipelineManager::recorder), the render thread's cost:");
    println!("  {:<58} {:>12}", "(e) first ask, fast link: without a recorder (b)", us(fast));
    println!("  {:<58} {:>12}", "    first ask, fast link: with a recorder", us(first_recorded));
    println!("  {:<58} {:>12}", "    a frame's ask, pipeline built: without a recorder", us(hit_plain));
    println!("  {:<58} {:>12}", "    a frame's ask, pipeline built: with a recorder", us(hit_recorded));
    println!(
        "  {:<58} {:>12}   (off the frame loop: at the end of the run)",
        format!("    the recording's {} entries to bytes ({} B)", MATERIALS - 1, bytes.len()),
        us(save)
    );
    // SAFETY: every pipeline is destroyed (managers dropped) and the device is idle.
    unsafe {
        gpu.device.destroy_device(None);
        gpu.instance.destroy_instance(None);
    }
}
