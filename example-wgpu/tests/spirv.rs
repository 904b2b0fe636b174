//! With the `spirv` feature the build ships SPIR-V, which is what
//! passthrough takes: `tint.frag` passed to the driver untouched draws the
//! same frame as through naga, under the layer, with no message.
#![cfg(feature = "spirv")]

mod common;

use common::{compare, read_png, run, scratch};

fn frame(name: &str, extra: &[&str]) -> (String, common::Image) {
    let shot = scratch(name).join("frame.png");
    let mut args = vec!["--screenshot", shot.to_str().expect("a UTF-8 path")];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert!(output.status.success(), "the example failed; its output is above");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    (stdout, read_png(&shot))
}

#[test]
fn a_passthrough_module_draws_the_same_frame_under_the_layer() {
    let (stdout, passthrough) = frame("passthrough", &["--passthrough"]);
    assert!(stdout.contains("modules: PassthroughTint"), "{stdout}");
    let (_, naga) = frame("naga", &[]);
    let difference = compare(&passthrough, &naga);
    assert!(difference.close(), "{difference:?}");
}
