//! example-game: a small Vulkan game that ships its shaders through smolv.
//!
//! The game itself is not written yet. Until it is, this binary only checks
//! that the runtime codec round-trips a module, so that the README's first
//! command has something real to run.

fn main() -> std::process::ExitCode {
    let spirv = smolv_runtime::doc_example_module();
    let encoded = smolv_runtime::encode(&spirv[..], &smolv_runtime::EncodeOptions::new());
    let decoded = encoded.as_deref().map_err(|e| e.to_string()).and_then(|smolv| {
        smolv_runtime::decode(smolv, &smolv_runtime::DecodeOptions::new()).map_err(|e| e.to_string())
    });
    match decoded {
        Ok(words) if words == spirv => {
            println!(
                "example-game: the playable game is not here yet; the smolv codec round-tripped a {}-byte module.",
                spirv.len() * 4
            );
            std::process::ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!("example-game: the smolv codec did not round-trip");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("example-game: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
