//! The generated types compiled in a user's crate: every layout case of
//! issue 29 passes its own `offset_of!` and size assertions, a block two
//! shaders include is one type, two definitions of one name stay apart,
//! and the crate builds without a warning.

use smolv_tests::outside::{self, workspace, write};

#[path = "../../smolv-build/tests/types/shaders.rs"]
mod shaders;

const MAIN: &str = r#"
smolv_runtime::include_types!();

fn main() {
    // One type for the Frame both shaders include: no conversion needed.
    let frame: layouts_frag::Frame = same_vert::Frame::default();
    assert_eq!(layouts_frag::Frame::SIZE, 496);
    assert_eq!(frame.as_bytes().len(), 496);
    // Two definitions of `Light` stay apart.
    assert_eq!(core::mem::size_of::<layouts_frag::Light>(), 28);
    assert_eq!(core::mem::size_of::<other_comp::Light>(), 20);
    // The constructor takes the real fields; padding is zero.
    let light = Light::new([1.0, 2.0, 3.0], 4.0, [5.0, 6.0, 7.0]);
    let mut frame = Frame::default();
    frame.lights[1] = light.into();
    frame.time = 2.5;
    let bytes = frame.as_bytes();
    assert_eq!(&bytes[12..16], &2.5f32.to_le_bytes());
    assert_eq!(&bytes[352 + 32 + 12..352 + 32 + 16], &4.0f32.to_le_bytes());
    // A runtime-sized last member: the head, the element, a buffer size.
    assert_eq!(Particles::buffer_size(10), 48 + 10 * 32);
    let element: ParticlesElement = Particle::new([0.0; 3], 1.0, [2.0, 3.0]).into();
    assert_eq!(core::mem::size_of_val(&element), Particles::ELEMENT_STRIDE);
    // Scalar layout: vec3 then float, no padding.
    assert_eq!(Push::SIZE, 64);
    // Spec constants: the shader's defaults, as the specializer takes them.
    let constants = layouts_frag::SpecConstants::default();
    assert_eq!((constants.quality, constants.gain, constants.fancy), (2, 1.5, true));
    let values: Vec<(u32, smolv_runtime::specialize::Value)> = constants.into();
    assert_eq!(values[1], (3, smolv_runtime::specialize::Value::F32(1.5)));
    assert_eq!(other_comp::WORKGROUP_SIZE, [1, 4, 1]);
    assert_eq!(other_comp::WORKGROUP_SIZE_SPEC_IDS, [Some(1), None, None]);
    // Vertex inputs: one interleaved buffer.
    assert_eq!(same_vert::VERTEX_STRIDE, 36);
    assert_eq!(same_vert::VERTEX_ATTRIBUTES[2].offset, 20);
    let vertex = same_vert::Vertex::new([0.0; 3], [0.5; 2], [1, 2, 3, 4]);
    assert_eq!(vertex.as_bytes().len(), 36);
    assert_eq!(layouts_frag::PARTICLES.binding, 1);
    println!("typed ok");
}
"#;

#[test]
fn generated_types_compile_without_warnings_and_match_the_shader_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ws = workspace();
    outside::create(
        root,
        &format!(
            "[package]\nname = \"smolv-typed\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {:?} }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {:?} }}\n\n[workspace]\n",
            ws.join("smolv-runtime"),
            ws.join("smolv-build")
        ),
    );
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    write(&root.join("src/main.rs"), MAIN);
    write(&root.join("shaders/frame.glsl"), shaders::FRAME);
    write(&root.join("shaders/layouts.frag"), shaders::LAYOUTS);
    write(&root.join("shaders/same.vert"), shaders::SAME_FRAME);
    write(&root.join("shaders/other.comp"), shaders::OTHER_LIGHT);
    let output = outside::output(&mut outside::cargo(root, &["run"]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the crate must build and run:\n{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("typed ok"));
    // rustc's warnings; the build script's own (`warning: smolv-typed@…`)
    // are about the shaders, not the generated code.
    let warnings: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("warning") && !l.starts_with("warning: smolv-typed@")).collect();
    assert!(warnings.is_empty(), "the generated code must build without warnings:\n{stderr}");
}
