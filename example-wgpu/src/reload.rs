//! `--reload`: the "edit → new pipeline" loop, driven through hot reload's
//! hook the way smolv-reload drives it after recompiling an edit.

use std::error::Error;
use std::path::Path;

use crate::gpu::Gpu;
use crate::scene::{self, Scene};
use crate::shaders;

pub(crate) fn run(
    gpu: &Gpu,
    scene: &mut Scene,
    before: &[u8],
    screenshot: Option<&Path>,
) -> Result<(), Box<dyn Error>> {
    let tint = shaders::get(scene::TINT_FS)?;
    // An edit: the red variant's words, published for tint.frag.
    let red = shaders::get("tint.frag@red")?.decode()?;
    tint.publish(red)?;
    let refreshed = scene.refresh(gpu)?;
    println!("reload 1: changed {:?}, failed {}", refreshed.changed, refreshed.failed.len());
    let after = scene.draw(gpu)?;
    let changed = before.chunks_exact(4).zip(after.chunks_exact(4)).filter(|(a, b)| a != b).count();
    println!("reload 1: {changed} pixels changed");
    if let Some(path) = screenshot {
        crate::write_png(&path.with_extension("reloaded.png"), &after)?;
    }
    // A broken edit: a SPIR-V header and nothing naga can read. The old
    // module must stay, and the frame with it.
    tint.publish(vec![0x0723_0203, 0x0001_0000, 0, 8, 0, 0xdead_beef])?;
    let refreshed = scene.refresh(gpu)?;
    let failed: Vec<&str> = refreshed.failed.iter().map(|(name, _)| name.as_str()).collect();
    println!("reload 2: changed {:?}, failed {failed:?}", refreshed.changed);
    for (_, error) in &refreshed.failed {
        println!("reload 2 error: {error}");
    }
    let kept = scene.draw(gpu)?;
    println!("reload 2: frame kept: {}", kept == after);
    Ok(())
}
