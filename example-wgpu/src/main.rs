//! A headless wgpu program whose shaders (WGSL, GLSL, Slang, WESL) come through smolv, drawn
//! once on wgpu's Vulkan backend under the validation layer; it exits non-zero on any message.
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run -p example-wgpu -- --screenshot frame.png
//! ```
//!
//! Options: `--screenshot PATH`; `--passthrough` (`tint.frag` as SPIR-V passthrough, with the
//! `spirv` feature); `--reference` (wgpu's own paths from the sources, no smolv: the golden
//! image); `--compute` (scales a buffer with `scale.comp`); `--provoke` (a module the layer must
//! refuse); `--reload` (features `hot-reload` and `spirv`: publishes `tint.frag@red`'s SPIR-V for
//! `tint.frag`, then broken words, and draws after each).

mod compute;
mod gpu;
mod reference;
#[cfg(feature = "hot-reload")]
mod reload;
mod scene;
mod shaders;
mod validation;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use gpu::Gpu;
use scene::{HEIGHT, Modules, Scene, WIDTH};

/// What the command line asked for.
#[derive(Default)]
struct Args {
    screenshot: Option<PathBuf>,
    passthrough: bool,
    reference: bool,
    provoke: bool,
    reload: bool,
    compute: bool,
}

fn parse() -> Result<Args, String> {
    let mut args = Args::default();
    let mut given = std::env::args_os().skip(1);
    while let Some(arg) = given.next() {
        match arg.to_str() {
            Some("--screenshot") => args.screenshot = Some(given.next().ok_or("--screenshot needs a path")?.into()),
            Some("--passthrough") => args.passthrough = true,
            Some("--reference") => args.reference = true,
            Some("--provoke") => args.provoke = true,
            Some("--compute") => args.compute = true,
            Some("--reload") if cfg!(feature = "hot-reload") => args.reload = true,
            Some("--reload") => return Err("--reload needs the hot-reload feature".to_owned()),
            _ => return Err(format!("unknown argument {arg:?}; see the crate docs for the options")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let outcome = parse().map_err(Box::<dyn Error>::from).and_then(run);
    // Messages raised anywhere, including while the device shut down.
    let messages = validation::take();
    for message in &messages {
        eprintln!("validation: {message}");
    }
    match outcome {
        Ok(()) if messages.is_empty() => {
            println!("validation messages: 0");
            ExitCode::SUCCESS
        }
        Ok(()) => {
            eprintln!("example-wgpu failed: {} validation messages", messages.len());
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("example-wgpu failed: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Box<dyn Error>> {
    let gpu = Gpu::new()?;
    println!("adapter: {}", gpu.adapter);
    for line in Scene::sources()? {
        println!("module {line}");
    }
    if args.provoke {
        provoke(&gpu)?;
    }
    let modules = match (args.passthrough, args.reference) {
        (false, false) => Modules::Smolv,
        (true, false) => Modules::PassthroughTint,
        (false, true) => Modules::Reference,
        (true, true) => return Err("--passthrough and --reference exclude each other".into()),
    };
    let mut scene = Scene::new(&gpu, modules)?;
    let frame = scene.draw(&gpu)?;
    println!("frame: {WIDTH}x{HEIGHT}, modules: {modules:?}");
    if let Some(path) = &args.screenshot {
        write_png(path, &frame)?;
    }
    if args.compute {
        println!("{}", compute::run(&gpu)?);
    }
    #[cfg(feature = "hot-reload")]
    if args.reload {
        reload::run(&gpu, &mut scene, &frame, args.screenshot.as_deref())?;
    }
    #[cfg(not(feature = "hot-reload"))]
    let _ = (&mut scene, args.reload);
    Ok(())
}

/// Passes a module through with `OpCapability Shader` turned into `OpCapability Float64`, which
/// the validation layer must report.
fn provoke(gpu: &Gpu) -> Result<(), Box<dyn Error>> {
    let mut words = EMPTY_COMPUTE.concat();
    let at = words.iter().position(|&w| w == (2 << 16 | 17)).ok_or("no OpCapability")?;
    words[at + 1] = 10; // Float64
    let descriptor = wgpu::ShaderModuleDescriptorPassthrough {
        label: Some("provoked"),
        entry_points: std::borrow::Cow::Borrowed(&[]),
        spirv: Some(std::borrow::Cow::Owned(words)),
        ..Default::default()
    };
    // SAFETY: deliberately invalid SPIR-V for the validation layer to report; never used in a pipeline.
    #[allow(unsafe_code)]
    let module = unsafe { gpu.device.create_shader_module_passthrough(descriptor) };
    drop(module);
    Ok(())
}

/// An empty compute shader: `void main() {}` with `local_size` 1, 1, 1, an instruction a row.
const EMPTY_COMPUTE: [&[u32]; 11] = [
    &[0x0723_0203, 0x0001_0000, 0, 5, 0], // header: magic, SPIR-V 1.0, generator, bound, schema
    &[2 << 16 | 17, 1],                   // OpCapability Shader
    &[3 << 16 | 14, 0, 1],                // OpMemoryModel Logical GLSL450
    &[5 << 16 | 15, 5, 1, 0x6E69_616D, 0], // OpEntryPoint GLCompute %1 "main"
    &[6 << 16 | 16, 1, 17, 1, 1, 1],      // OpExecutionMode %1 LocalSize 1 1 1
    &[2 << 16 | 19, 2],                   // %2 = OpTypeVoid
    &[3 << 16 | 33, 3, 2],                // %3 = OpTypeFunction %2
    &[5 << 16 | 54, 2, 1, 0, 3],          // %1 = OpFunction %2 None %3
    &[2 << 16 | 248, 4],                  // %4 = OpLabel
    &[1 << 16 | 253],                     // OpReturn
    &[1 << 16 | 56],                      // OpFunctionEnd
];

/// Writes RGBA8 rows as a PNG.
pub(crate) fn write_png(path: &std::path::Path, rgba: &[u8]) -> Result<(), Box<dyn Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(rgba)?;
    Ok(())
}
