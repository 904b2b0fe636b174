//! A crate built for wgpu with WGSL forced (`Config::for_wgpu_shipping(true)`): its GLSL
//! and WGSL shaders ship as minified WGSL through `Shader::wgsl`, in a set
//! and alone, and their `decode` says they have no SPIR-V; a shader with a
//! combined image sampler, which WGSL cannot express, ships as SPIR-V with
//! a build warning that names it.

use smolv_tests::outside::{cargo, crate_path, create, output, succeed, write};

const MAIN: &str = r#"
use smolv_runtime::ShaderErrorKind;

smolv_runtime::include_shaders!(static ALL);
static FILL: &smolv_runtime::Shader = smolv_runtime::include_shader!("fill.comp");
static SAMPLED: &smolv_runtime::Shader = smolv_runtime::include_shader!("sampled.frag");

fn main() {
    for shader in ALL.shaders() {
        match shader.wgsl().expect("wgsl") {
            Some(text) => {
                let error = shader.decode().expect_err("a WGSL shader has no SPIR-V");
                assert_eq!(error.kind(), ShaderErrorKind::ShippedAsWgsl);
                println!("{} wgsl {}", shader.name(), text);
            }
            None => println!("{} spirv {}", shader.name(), shader.decode().expect("decode").len()),
        }
    }
    assert_eq!(ALL.get("fill.comp").unwrap().wgsl().unwrap(), FILL.wgsl().unwrap());
    println!("alone fill.comp {}", FILL.wgsl().unwrap().is_some());
    println!("alone sampled.frag {}", SAMPLED.decode().unwrap()[0] == 0x0723_0203);
}
"#;

#[test]
fn a_wgpu_build_ships_wgsl_and_falls_back_to_spirv_per_shader() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-wgpu-wgsl");
    create(
        &root,
        &format!(
            "[package]\nname = \"smolv-wgpu-wgsl\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {} }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {}, features = [\"wgpu\"] }}\n\n[workspace]\n",
            crate_path("smolv-runtime"),
            crate_path("smolv-build")
        ),
    );
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").for_wgpu_shipping(true).compile();\n}\n",
    );
    write(
        &root.join("shaders/fill.comp"),
        "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) buffer Values { float values[]; };\n\
         void main() { values[gl_GlobalInvocationID.x] *= 2.0; }\n",
    );
    write(
        &root.join("shaders/sampled.frag"),
        "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D tex;\nlayout(location = 0) in vec2 uv;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = texture(tex, uv); }\n",
    );
    write(
        &root.join("shaders/sky.wgsl"),
        "@fragment\nfn fs_main() -> @location(0) vec4<f32> {\n    return vec4<f32>(0.2, 0.4, 0.8, 1.0);\n}\n",
    );
    write(&root.join("src/main.rs"), MAIN);

    let build = output(&mut cargo(&root, &["build"]));
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "{stderr}");
    let warning = stderr.lines().find(|l| l.contains("ships as SPIR-V for wgpu")).unwrap_or_default();
    assert!(warning.contains("sampled.frag") && warning.contains("shaders/sampled.frag"), "{stderr}");
    assert!(!stderr.contains("fill.comp ("), "fill.comp converts: {stderr}");

    let stdout = succeed(&mut cargo(&root, &["run", "--quiet"]));
    let line = |prefix: &str| stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_default().to_owned();
    let fill = line("fill.comp wgsl ");
    assert!(fill.contains("@compute@workgroup_size(64") && fill.contains("fn main("), "{stdout}");
    assert!(!fill.contains("values") && !fill.contains("  "), "names dropped, no whitespace: {fill}");
    assert!(line("sky.wgsl#fs_main wgsl ").contains("fn fs_main("), "{stdout}");
    assert!(line("sampled.frag spirv ").len() > "sampled.frag spirv ".len(), "{stdout}");
    assert!(stdout.contains("alone fill.comp true") && stdout.contains("alone sampled.frag true"), "{stdout}");
}
