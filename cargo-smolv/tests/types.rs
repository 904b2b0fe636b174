//! `cargo smolv types`, run as a user would: it takes `cargo smolv
//! build`'s shader options, so a define or a variant given on the command
//! line changes the Rust it writes.

use std::path::Path;
use std::process::{Command, Output};

fn cargo_smolv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-smolv")).args(args).output().expect("run cargo-smolv")
}

/// `tint.frag`, whose `Params` block is a `float` or, with `WIDE`, a `vec4`.
fn tree(dir: &Path) -> String {
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(
        shaders.join("tint.frag"),
        "#version 450\n\
         layout(set = 0, binding = 0) uniform Params {\n\
         #ifdef WIDE\n    vec4 color;\n#else\n    float color;\n#endif\n\
         #ifdef SCALE\n    float scale;\n#endif\n\
         } params;\n\
         layout(location = 0) out vec4 o;\n\
         void main() { o = vec4(params.color); }\n",
    )
    .unwrap();
    shaders.to_str().unwrap().to_owned()
}

/// The Rust `cargo smolv types` writes for the tree with `flags`.
fn types(dir: &Path, flags: &[&str]) -> String {
    let shaders = tree(dir);
    let file = dir.join("types.rs");
    let cache = dir.join("cache");
    let mut args =
        vec!["smolv", "types", &shaders, "-o", file.to_str().unwrap(), "--cache-dir", cache.to_str().unwrap()];
    args.extend_from_slice(flags);
    let output = cargo_smolv(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(file).unwrap()
}

/// The text of `pub struct NAME { ... }`, the first one after `from`.
fn struct_text<'a>(code: &'a str, from: &str, name: &str) -> &'a str {
    let rest = &code[code.find(from).unwrap_or_else(|| panic!("no {from:?} in:\n{code}"))..];
    let start = rest.find(&format!("pub struct {name} {{")).unwrap_or_else(|| panic!("no {name} after {from:?}"));
    let body = &rest[start..];
    &body[..body.find("\n}").unwrap()]
}

#[test]
fn a_variant_on_the_command_line_gets_its_own_module_and_block_type() {
    let dir = tempfile::tempdir().unwrap();
    let code = types(dir.path(), &["--variant", "tint.frag@wide:WIDE,SCALE=2"]);
    assert!(code.contains("pub mod tint_frag {"), "{code}");
    assert!(code.contains("pub mod tint_frag_wide {"), "the variant's module:\n{code}");
    // The two definitions of `Params` differ, so each stays in its module.
    let plain = struct_text(&code, "pub mod tint_frag {", "Params");
    assert!(plain.contains("pub color: ::core::primitive::f32,") && !plain.contains("scale"), "{plain}");
    let wide = struct_text(&code, "pub mod tint_frag_wide {", "Params");
    assert!(wide.contains("pub color: [::core::primitive::f32; 4],"), "{wide}");
    assert!(wide.contains("pub scale: ::core::primitive::f32,"), "{wide}");
}

#[test]
fn defines_on_the_command_line_reach_every_shader_or_the_one_named() {
    let dir = tempfile::tempdir().unwrap();
    let code = types(dir.path(), &["-DWIDE", "--shader-define", "tint.frag:SCALE=3"]);
    let params = struct_text(&code, "", "Params");
    assert!(params.contains("pub color: [::core::primitive::f32; 4],"), "{params}");
    assert!(params.contains("pub scale: ::core::primitive::f32,"), "{params}");
    assert!(!code.contains("tint_frag_wide"), "{code}");
}

#[test]
fn a_malformed_variant_is_a_usage_error_that_shows_the_form() {
    let output = cargo_smolv(&["smolv", "types", "shaders", "--variant", "tint.frag"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("SHADER@NAME"), "{stderr}");
}
