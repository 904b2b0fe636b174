//! A headless wgpu program whose shaders come through smolv: a WGSL sky, a
//! GLSL vertex shader, a Slang fragment shader with a texture and
//! immediates, and a GLSL fragment shader, drawn once on wgpu's Vulkan
//! backend under the Khronos validation layer and wgpu's validation.
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run -p example-wgpu -- --screenshot frame.png
//! ```
//!
//! Options:
//! - `--screenshot PATH`: writes the frame as a PNG;
//! - `--passthrough`: makes `tint.frag`'s module with SPIR-V passthrough
//!   (no naga), for the same picture; needs the `spirv` feature, which
//!   ships the shaders as SPIR-V;
//! - `--reference`: makes every module with wgpu's own paths from the
//!   original sources (`include_wgsl!`, `include_spirv!` of glslc's and
//!   slangc's SPIR-V), no smolv: the picture smolv's must match, and what
//!   the golden image is made from;
//! - `--compute`: also scales a buffer with a compute shader (`scale.comp`)
//!   through the generated bind group and pipeline, and checks it;
//! - `--provoke`: passes through a module the driver must refuse, to show
//!   that a validation message fails the run;
//! - `--reload` (features `hot-reload` and `spirv`): publishes the
//!   `tint.frag@red` variant's SPIR-V for `tint.frag`, as smolv-reload does
//!   on an edit, then broken words, and draws after each.
//!
//! It prints what it did, and exits non-zero on any validation message.

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

/// Passes a module through with its `OpCapability Shader` turned into
/// `OpCapability Float64` (it then declares a capability the device did
/// not enable, and lacks the one its memory model needs): the validation
/// layer must report it.
fn provoke(gpu: &Gpu) -> Result<(), Box<dyn Error>> {
    let mut words = EMPTY_COMPUTE.to_vec();
    let at = words.iter().position(|&w| w == (2 << 16 | 17)).ok_or("no OpCapability")?;
    words[at + 1] = 10; // Float64
    let descriptor = wgpu::ShaderModuleDescriptorPassthrough {
        label: Some("provoked"),
        entry_points: std::borrow::Cow::Borrowed(&[]),
        spirv: Some(std::borrow::Cow::Owned(words)),
        ..Default::default()
    };
    // SAFETY: deliberately invalid SPIR-V, so that the validation layer
    // (which checks every module before the driver sees it) reports it;
    // the module is never used in a pipeline.
    #[allow(unsafe_code)]
    let module = unsafe { gpu.device.create_shader_module_passthrough(descriptor) };
    drop(module);
    Ok(())
}

/// An empty compute shader: `void main() {}` with `local_size` 1, 1, 1.
const EMPTY_COMPUTE: [u32; 35] = [
    0x0723_0203,
    0x0001_0000,
    0,
    5,
    0, // header: magic, SPIR-V 1.0, generator, bound, schema
    2 << 16 | 17,
    1, // OpCapability Shader
    3 << 16 | 14,
    0,
    1, // OpMemoryModel Logical GLSL450
    5 << 16 | 15,
    5,
    1,
    0x6E69_616D,
    0, // OpEntryPoint GLCompute %1 "main"
    6 << 16 | 16,
    1,
    17,
    1,
    1,
    1, // OpExecutionMode %1 LocalSize 1 1 1
    2 << 16 | 19,
    2, // %2 = OpTypeVoid
    3 << 16 | 33,
    3,
    2, // %3 = OpTypeFunction %2
    5 << 16 | 54,
    2,
    1,
    0,
    3, // %1 = OpFunction %2 None %3
    2 << 16 | 248,
    4,             // %4 = OpLabel
    1 << 16 | 253, // OpReturn
    1 << 16 | 56,  // OpFunctionEnd
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
