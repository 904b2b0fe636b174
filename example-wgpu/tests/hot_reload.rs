//! Hot reload for wgpu: publishing new words for `tint.frag` (what
//! smolv-reload does after recompiling an edit) gives the next frame a new
//! module and pipeline; publishing words naga refuses keeps the old ones,
//! and both run under the validation layer with no message.
//!
//! It needs the `spirv` feature too: the edit it publishes is the `@red`
//! variant's SPIR-V, which a build that ships WGSL does not carry
//! (smolv-reload compiles an edit to SPIR-V at run time instead).
#![cfg(all(feature = "hot-reload", feature = "spirv"))]

mod common;

use common::{read_png, run, scratch};

#[test]
fn an_edit_draws_with_a_new_pipeline_and_a_broken_one_keeps_the_old() {
    let shot = scratch("reload").join("frame.png");
    let output = run(&["--reload", "--screenshot", shot.to_str().expect("a UTF-8 path")]);
    assert!(output.status.success(), "the example failed; its output is above");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(stdout.contains("reload 1: changed [\"tint.frag\"], failed 0"), "{stdout}");
    assert!(stdout.contains("reload 2: changed [], failed [\"tint.frag\"]"), "{stdout}");
    assert!(stdout.contains("reload 2: frame kept: true"), "{stdout}");
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    // The small quad's middle: green as built, red after the edit.
    let (before, after) = (read_png(&shot), read_png(&shot.with_extension("reloaded.png")));
    let [r, g, b, _] = before.at(96, 66);
    assert!(g > 150 && r < 40 && b < 40, "green before: {:?}", [r, g, b]);
    let [r, g, b, _] = after.at(96, 66);
    assert!(r > 150 && g < 40 && b < 40, "red after: {:?}", [r, g, b]);
}
