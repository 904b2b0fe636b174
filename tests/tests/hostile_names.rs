//! Generated types for names that meet Rust's or the generator's own,
//! compiled in a user's crate with `#![deny(warnings)]`:
//! - a shader file named with a line break and `compile_error!` (its name
//!   reaches doc comments and `NAME`), which must stay text;
//! - shader structs named `Vertex`, `SpecConstants` and `DataElement` next
//!   to the generated `Vertex`, `SpecConstants` and `DataElement` (a head's
//!   element alias), which take the suffix `Struct`;
//! - shader structs named `Option`, `Default`, `From` and `Vec`, at the
//!   top of the crate, which the generated code must not take for the
//!   standard library's;
//! - a head's element alias reached through its shader's module
//!   (`fill_comp::DataElement`).
//!
//! (The property test in smolv-build, `output/types/hostile_names.rs`,
//! covers arbitrary names; this compiles fixed ones for real.)

use smolv_tests::outside::{self, workspace, write};

/// The file name: a line break, then code.
const EVIL: &str = "evil\n compile_error!(\"x\");\n.comp";

const NAMES: &str = "#version 450
layout(constant_id = 0) const float GAIN = 1.0;
struct Option { float a; };
struct Default { uint b; };
struct From { int c; };
struct Vec { vec2 d; };
struct SpecConstants { float e; };
struct DataElement { float f; };
struct Vertex { vec4 position; Option o; Default d; From f; Vec v; SpecConstants s; DataElement g; };
layout(std430, set = 0, binding = 0) readonly buffer Vertices { uint count; Vertex vertices[]; };
layout(location = 0) in vec3 position;
void main() {
    Vertex v = vertices[gl_VertexIndex % count];
    gl_Position = vec4(position, 1.0) * GAIN + v.position + v.o.a + float(v.d.b) + float(v.f.c) + v.v.d.xyxy
        + v.s.e + v.g.f;
}
";

const FILL: &str = "#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Data { uint count; uint values[]; };
void main() { values[gl_GlobalInvocationID.x] = count; }
";

const TRIVIAL: &str = "#version 450
layout(local_size_x = 1) in;
void main() {}
";

const MAIN: &str = r#"#![deny(warnings)]
smolv_runtime::include_types!();

fn main() {
    // The generated items keep their names; the shader's take `Struct`.
    let vertex = names_vert::Vertex::new([1.0, 2.0, 3.0]);
    ::core::assert_eq!(vertex.position, [1.0, 2.0, 3.0]);
    let constants: names_vert::SpecConstants = ::core::default::Default::default();
    ::core::assert_eq!(constants.gain, 1.0);
    let mut shader_vertex: names_vert::VertexStruct = ::core::default::Default::default();
    shader_vertex.o = Option::new(1.5);
    shader_vertex.v = Vec::new([1.0, 2.0]);
    shader_vertex.d = Default::new(3);
    shader_vertex.f = From::new(-4);
    shader_vertex.s = names_vert::SpecConstantsStruct::new(5.0);
    shader_vertex.g = names_vert::DataElementStruct::new(6.0);
    let element: names_vert::VerticesElement = shader_vertex;
    ::core::assert_eq!(::core::mem::size_of_val(&element), names_vert::Vertices::ELEMENT_STRIDE);
    // A shared head's element alias, through its shader's module.
    let value: fill_comp::DataElement = 7;
    ::core::assert_eq!(::core::mem::size_of_val(&value), fill_comp::Data::ELEMENT_STRIDE);
    // The file name is text: a string, exactly.
    ::core::assert_eq!(evil_compile_error_x_comp::NAME, "evil\n compile_error!(\"x\");\n.comp");
    ::std::println!("hostile names ok");
}
"#;

#[test]
fn hostile_and_colliding_names_compile_without_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ws = workspace();
    outside::create(
        root,
        &format!(
            "[package]\nname = \"smolv-hostile-names\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
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
    write(&root.join("shaders/names.vert"), NAMES);
    write(&root.join("shaders/fill.comp"), FILL);
    write(&root.join("shaders").join(EVIL), TRIVIAL);
    let output = outside::output(&mut outside::cargo(root, &["run"]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the crate must build (no warnings: deny(warnings)) and run:\n{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("hostile names ok"), "{stderr}");
}
