//! Which names a stripped build ships: none by default, as `glslc -Os`
//! makes modules; with `Config::keep_interface_names`, exactly those that
//! reflection reads at run time, from the build's own reflection.

use std::collections::BTreeSet;
use std::path::Path;

use smolv_format::Manifest;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::Reflection;

/// A shader with names reflection reads (a uniform block's variable, a
/// sampler, a spec constant, an output) and names it never reads: the
/// block's type and member, a fragment input (reflection lists vertex
/// inputs only), `main`, a helper function and a local.
const LIT: &str = "#version 450
layout(constant_id = 0) const float EXPOSURE = 1.0;
layout(set = 0, binding = 0) uniform Camera { vec4 tint; } camera;
layout(set = 0, binding = 1) uniform sampler2D albedo;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
vec4 shade(vec2 at) { vec4 texel = texture(albedo, at); return texel * camera.tint * EXPOSURE; }
void main() { color = shade(uv); }
";

const NAME: &str = "lit.frag";

/// Builds `LIT` with debug info stripped, keeping interface names or not.
fn build(dir: &Path, keep_interface_names: bool) -> Manifest {
    std::fs::create_dir_all(dir.join("shaders")).unwrap();
    std::fs::write(dir.join("shaders").join(NAME), LIT).unwrap();
    let mut config = smolv_build::Config::new();
    config
        .shader_dir(dir.join("shaders"))
        .out_dir(dir.join("out"))
        .cache_dir(dir.join("cache"))
        .cargo_directives(false)
        .strip_debug(true);
    if keep_interface_names {
        config.keep_interface_names(true);
    }
    config.try_compile().unwrap();
    let json = std::fs::read_to_string(dir.join("out/smolv/manifest.json")).unwrap();
    serde_json::from_str(&json).unwrap()
}

/// The shipped module's words and its container's reflection, from the
/// bundle the build wrote.
fn shipped(dir: &Path) -> (Vec<u32>, Reflection) {
    let set = ShaderSet::open(dir.join("out/smolv/shaders.smvb")).unwrap();
    let shader = set.get(NAME).unwrap();
    (shader.decode().unwrap(), shader.reflection().unwrap())
}

/// Every debug instruction's opcode in a module, and the strings its
/// `OpName`s give.
fn debug_info(words: &[u32]) -> (Vec<u32>, BTreeSet<String>) {
    const DEBUG: [u32; 9] = [2, 3, 4, 5, 6, 7, 8, 317, 330]; // OpSource… OpLine, OpNoLine, OpModuleProcessed
    let (mut opcodes, mut names) = (Vec::new(), BTreeSet::new());
    let mut at = 5;
    while at < words.len() {
        let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xFFFF);
        assert!(count > 0 && at + count <= words.len(), "a malformed instruction at word {at}");
        if DEBUG.contains(&opcode) {
            opcodes.push(opcode);
        }
        if opcode == 5 {
            let bytes: Vec<u8> = words[at + 2..at + count].iter().flat_map(|w| w.to_le_bytes()).collect();
            names.insert(String::from_utf8(bytes.split(|&b| b == 0).next().unwrap().to_vec()).unwrap());
        }
        at += count;
    }
    (opcodes, names)
}

/// The names a reflection holds, empty ones left out.
fn names_in(reflection: &Reflection) -> BTreeSet<String> {
    let bindings = reflection.bindings.iter().map(|b| &b.name);
    let spec_constants = reflection.spec_constants.iter().map(|s| &s.name);
    let variables = reflection.inputs.iter().chain(&reflection.outputs).map(|v| &v.name);
    bindings.chain(spec_constants).chain(variables).filter(|n| !n.is_empty()).cloned().collect()
}

#[test]
fn stripping_ships_no_name_the_program_did_not_ask_for() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = build(dir.path(), false);
    let module = manifest.modules.iter().find(|m| m.name == NAME).unwrap();
    assert!(!manifest.interface_names, "the manifest says the names were not shipped");
    // The build reflected before stripping: its own reflection, which
    // generated types and hot reload read, keeps every name.
    let expected: BTreeSet<String> = ["EXPOSURE", "albedo", "camera", "color"].map(String::from).into();
    assert_eq!(names_in(&module.reflection), expected);

    let (words, in_container) = shipped(dir.path());
    let (opcodes, names) = debug_info(&words);
    assert!(opcodes.is_empty(), "the shipped module has debug instructions {opcodes:?} (names {names:?})");
    // The embedded set ships the same module: its size is the bundle's.
    assert_eq!(module.embedded.spirv_bytes, words.len() * 4);
    assert_eq!(module.spirv_bytes, words.len() * 4);
    // Nor does the container's reflection carry them, so a loaded
    // container reflects as the embedded module does.
    assert!(names_in(&in_container).is_empty(), "{in_container:?}");
    assert_eq!(Reflection::from_spirv(&words).unwrap(), in_container);
    let mut unnamed = module.reflection.clone();
    unnamed.bindings.iter_mut().for_each(|b| b.name.clear());
    unnamed.spec_constants.iter_mut().for_each(|s| s.name.clear());
    unnamed.inputs.iter_mut().chain(&mut unnamed.outputs).for_each(|v| v.name.clear());
    assert_eq!(in_container, unnamed, "everything but the names is the build's reflection");
}

#[test]
fn keep_interface_names_ships_exactly_the_names_runtime_reflection_reads() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = build(dir.path(), true);
    let module = manifest.modules.iter().find(|m| m.name == NAME).unwrap();
    assert!(manifest.interface_names);

    let (words, in_container) = shipped(dir.path());
    // Embedded shaders reflect their SPIR-V; loaded containers read their
    // stored reflection. Both give the build's reflection, names included.
    assert_eq!(Reflection::from_spirv(&words).unwrap(), module.reflection);
    assert_eq!(in_container, module.reflection);
    let camera = in_container.bindings.iter().find(|b| b.name == "camera").expect("a binding found by name");
    assert_eq!((camera.set, camera.binding), (0, 0));
    assert_eq!(in_container.spec_constants[0].name, "EXPOSURE");

    // Only those names: not `main`, the block's type, the helper or the
    // local, and no other debug info.
    let (opcodes, names) = debug_info(&words);
    assert_eq!(names, names_in(&module.reflection));
    assert!(opcodes.iter().all(|&op| op == 5), "only OpName survives: {opcodes:?}");
}
