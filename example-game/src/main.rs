//! example-game: a small Vulkan game that ships its shaders through smolv.
//!
//! The game itself is not written yet. Until it is, this binary decodes
//! every shader the build embedded and prints what shipping them costs, so
//! that the README's first command exercises the whole path from source to
//! decoded SPIR-V.

use std::process::ExitCode;
use std::time::Instant;

use smolv_runtime::ShaderSet;

static SHADERS: ShaderSet = smolv_runtime::include_shaders!();

fn main() -> ExitCode {
    let mut words = Vec::new();
    let mut spirv_bytes = 0;
    let start = Instant::now();
    for shader in SHADERS.iter() {
        if let Err(e) = shader.decode_into(&mut words) {
            eprintln!("example-game: cannot decode {}: {e}", shader.name());
            return ExitCode::FAILURE;
        }
        spirv_bytes += words.len() * 4;
    }
    let decode_time = start.elapsed();
    println!("example-game: the playable game is not here yet; its shaders are.");
    println!("  {:<24} {:>8}  stage", "shader", "SPIR-V");
    for shader in SHADERS.iter() {
        let size = shader.container().map_or(0, |c| c.decoded_len());
        println!("  {:<24} {:>8}  {:?}", shader.name(), size, shader.stage());
    }
    println!(
        "  {} modules: {} bytes of SPIR-V embedded as {} bytes ({:.1}%), decoded in {:.2} ms",
        SHADERS.len(),
        spirv_bytes,
        SHADERS.bundle_bytes().len(),
        100.0 * SHADERS.bundle_bytes().len() as f64 / spirv_bytes.max(1) as f64,
        decode_time.as_secs_f64() * 1e3
    );
    ExitCode::SUCCESS
}
