//! The README's wgpu walkthrough (`tests/walkthrough/wgpu.rs`, the very
//! file the README shows) runs on lavapipe (wgpu's Vulkan backend) under
//! the validation layer and wgpu's own validation: a pipeline made from two
//! embedded shaders draws red; an edit of the fragment shader, compiled and
//! published by a watcher, gives a new module and pipeline, which draw
//! green. No message from either validation.

#[path = "walkthrough/wgpu.rs"]
#[allow(unreachable_pub, reason = "the README's file, as a program's module would have it")]
mod walkthrough;

use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use smolv_build::recipe::ShaderRecipe;
use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};
use smolv_reload::Reloader;
use smolv_runtime::ShaderSet;
use walkthrough::Reloading;

const VERTEX: &str = "#version 450\n\
void main() {\n  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";
const RED: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1, 0, 0, 1); }\n";
const GREEN: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(0, 1, 0, 1); }\n";
const SIZE: u32 = 64;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Every warning and error wgpu-hal logs (the validation layer's messages
/// among them), every wgpu validation error, and the note that the layer
/// is missing (a run without it checks nothing).
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Collect;

impl log::Log for Collect {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Debug
    }

    fn log(&self, record: &log::Record<'_>) {
        let text = record.args().to_string();
        let missing_layer = text.contains("unable to find layer") || text.contains("Debug utils not enabled");
        if record.level() <= log::Level::Warn || missing_layer {
            MESSAGES.lock().unwrap().push(format!("{} {}: {text}", record.level(), record.target()));
        }
    }

    fn flush(&self) {}
}

static LOGGER: Collect = Collect;

/// Native wgpu resolves these futures without a runtime.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        std::thread::yield_now();
    }
}

/// The code blocks of `markdown` whose first line is `// {file}: …`.
fn blocks_naming(markdown: &str, file: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            if body.first().is_some_and(|first| first.starts_with(&format!("// {file}:"))) {
                blocks.push(body.join("\n") + "\n");
            }
        }
    }
    blocks
}

#[test]
fn the_readme_shows_this_walkthrough_as_it_is() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let file = std::fs::read_to_string(root.join("tests/walkthrough/wgpu.rs")).unwrap();
    assert_eq!(blocks_naming(&readme, "tests/walkthrough/wgpu.rs"), [file], "README.md's wgpu walkthrough");
}

/// Draws one frame with `pipeline` and reads back its first pixel.
fn first_pixel(device: &wgpu::Device, queue: &wgpu::Queue, pipeline: &wgpu::RenderPipeline) -> [u8; 4] {
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("frame"),
        size: wgpu::Extent3d { width: SIZE, height: SIZE, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(SIZE * SIZE * 4),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
            })],
            ..Default::default()
        });
        pass.set_pipeline(pipeline);
        pass.draw(0..3, 0..1);
    }
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(SIZE * 4), rows_per_image: None },
        },
        wgpu::Extent3d { width: SIZE, height: SIZE, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    readback.map_async(wgpu::MapMode::Read, .., |result| result.expect("the readback maps"));
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let pixel = readback.get_mapped_range(..).unwrap()[..4].try_into().unwrap();
    readback.unmap();
    pixel
}

#[test]
fn the_wgpu_walkthrough_makes_the_pipeline_an_edit_changed_again() {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(log::LevelFilter::Debug);
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(shaders.join("fill.vert"), VERTEX).unwrap();
    std::fs::write(shaders.join("tint.frag"), RED).unwrap();
    let out = dir.path().join("out");
    let mut config = smolv_build::Config::new();
    config.shader_dir(&shaders).out_dir(&out).cache_dir(dir.path().join("cache")).cargo_directives(false);
    config.try_compile().unwrap();
    let artifacts = out.join(ARTIFACT_DIR);
    let manifest: smolv_format::Manifest<ShaderRecipe> =
        serde_json::from_slice(&std::fs::read(artifacts.join(MANIFEST_FILE)).unwrap()).unwrap();
    // What `include_shaders!` embeds, with the recipes the manifest holds.
    let set: &'static ShaderSet =
        Box::leak(Box::new(ShaderSet::from_vec(std::fs::read(artifacts.join(&manifest.bundle)).unwrap()).unwrap()));
    let mut reloader = Reloader::new();
    reloader.quiet(true);
    for module in &manifest.modules {
        reloader.shader_with_recipe(set.get(&module.name).unwrap(), module.recipe.clone().unwrap());
    }
    let _watcher = reloader.start().unwrap();

    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = wgpu::Backends::VULKAN;
    // DEBUG too: wgpu-hal passes the layer's messages on only with debug utils.
    descriptor.flags = wgpu::InstanceFlags::VALIDATION | wgpu::InstanceFlags::DEBUG;
    let instance = wgpu::Instance::new(descriptor);
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).unwrap();
    let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    device.on_uncaptured_error(Arc::new(|error| MESSAGES.lock().unwrap().push(format!("wgpu: {error}"))));

    let pair = [set.get("fill.vert").unwrap(), set.get("tint.frag").unwrap()];
    let mut reloading = Reloading::new(&device, pair, FORMAT).unwrap();
    assert_eq!(first_pixel(&device, &queue, &reloading.pipeline), [255, 0, 0, 255]);
    assert_eq!(reloading.update(&device), Ok(false), "nothing published yet");

    std::fs::write(shaders.join("tint.frag"), GREEN).unwrap();
    let start = Instant::now();
    while !reloading.update(&device).expect("wgpu takes the edit") {
        assert!(start.elapsed() < Duration::from_secs(60), "the edit was not published in time");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(first_pixel(&device, &queue, &reloading.pipeline), [0, 255, 0, 255], "the new pipeline draws the edit");
    drop(reloading);
    drop((queue, device, adapter, instance));
    let messages = MESSAGES.lock().unwrap();
    assert!(messages.is_empty(), "validation messages ({}):\n{}", messages.len(), messages.join("\n"));
}
