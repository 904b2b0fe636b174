//! Rust types generated into `OUT_DIR/smolv/types.rs`: a `#[repr(C)]` struct per block and struct of each module,
//! with its interface; a struct declared alike by every module naming it is one type at the top, re-exported by
//! each. Input text reaches the file only through [`escape`].

mod collisions;
mod escape;
pub(crate) mod for_build;
#[cfg(test)]
mod hostile_names_tests;
mod interface;
pub(crate) mod layout;
mod lower;
pub(crate) mod names;
mod program;
#[cfg(test)]
mod program_tests;
mod render;
mod vulkan;
mod wgpu;
mod wrappers;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Component, Path};

use layout::ModuleInput;
use lower::{FieldTy, Lowered, Role, RustStruct};

/// The generated file, and what it holds.
#[derive(Debug, Default)]
pub(crate) struct Generated {
    pub(crate) code: String,
    /// Shader modules typed.
    pub(crate) modules: usize,
    /// Blocks typed, over every module.
    pub(crate) blocks: usize,
    /// Structs written (shared ones once).
    pub(crate) structs: usize,
    /// Programs: modules that share a base name and make a pipeline.
    pub(crate) programs: usize,
    /// `module: member: why`, for each member kept as bytes.
    pub(crate) problems: Vec<String>,
    /// Per module, the Rust path of each block's type (`Frame`, `lit_frag::Push`).
    pub(crate) block_types: Vec<Vec<String>>,
}

/// The dedup key of each struct of each module: its name and fields, each struct they name replaced by its key.
fn signatures(lowered: &Lowered) -> Vec<String> {
    // A struct comes after every struct it holds: each key it needs is made.
    let mut keys: Vec<String> = Vec::with_capacity(lowered.structs.len());
    for rust in &lowered.structs {
        let key_of = |j: usize| format!("{{{}}}", keys.get(j).map_or("?", String::as_str));
        let mut text = format!("{}|{}|{}|", rust.name, rust.size, rust.align);
        for field in &rust.fields {
            let _ = write!(text, "{}:{}:{};", field.name, field.offset, render::type_text(&field.ty, &key_of));
        }
        if let Role::Head { element, offset, stride, .. } = &rust.role {
            let _ = write!(text, "[]{offset}:{stride}:{}", render::type_text(element, &key_of));
        }
        keys.push(text);
    }
    keys
}

fn dependencies(rust: &RustStruct) -> Vec<usize> {
    fn of(ty: &FieldTy, out: &mut Vec<usize>) {
        match ty {
            FieldTy::Struct(index) => out.push(*index),
            FieldTy::Array(element, _) => of(element, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    rust.fields.iter().for_each(|f| of(&f.ty, &mut out));
    if let Role::Head { element, .. } = &rust.role {
        of(element, &mut out);
    }
    out
}

#[cfg(test)]
pub(crate) fn generate(inputs: &[ModuleInput], wgpu_items: bool) -> Generated {
    generate_with(inputs, wgpu_items, &[])
}

/// Generates the types of every module, with the programs `named` besides those found by base name, and with
/// `wgpu_items` each module's wgpu items.
pub(crate) fn generate_with(inputs: &[ModuleInput], wgpu_items: bool, named: &[(String, Vec<String>)]) -> Generated {
    let mut lowered: Vec<Lowered> = inputs.iter().map(lower::lower).collect();
    let vertices: Vec<_> = inputs.iter().zip(&mut lowered).map(|(i, l)| interface::vertex_struct(i, l)).collect();
    let own: Vec<Vec<&str>> = inputs
        .iter()
        .zip(&vertices)
        .map(|(input, vertex)| collisions::generated(vertex.is_some(), !input.reflection.spec_constants.is_empty()))
        .collect();
    collisions::resolve(&mut lowered, &own);
    let signatures: Vec<Vec<String>> = lowered.iter().map(signatures).collect();

    // The definition of each name that goes at the top: its only one, or the one most modules declare.
    let mut declared_by: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (module, sigs) in lowered.iter().zip(&signatures) {
        let seen: BTreeSet<(&str, &str)> =
            module.structs.iter().zip(sigs).map(|(r, sig)| (r.name.as_str(), sig.as_str())).collect();
        seen.into_iter().for_each(|key| *declared_by.entry(key).or_default() += 1);
    }
    let mut definitions: BTreeMap<&str, usize> = BTreeMap::new();
    declared_by.keys().for_each(|&(name, _)| *definitions.entry(name).or_default() += 1);
    let mut top: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (&(name, sig), &count) in &declared_by {
        if definitions[name] > 1 && count < 2 {
            continue;
        }
        let best = top.entry(name).or_insert((count, sig));
        if count > best.0 {
            *best = (count, sig);
        }
    }
    // Shared: its name's top definition, and every struct it holds shared (decided first).
    let shared: Vec<Vec<bool>> = lowered
        .iter()
        .zip(&signatures)
        .map(|(module, sigs)| {
            let mut shared: Vec<bool> = Vec::with_capacity(module.structs.len());
            for (rust, sig) in module.structs.iter().zip(sigs) {
                let chosen = top.get(rust.name.as_str()).is_some_and(|(_, best)| best == sig);
                let deps = dependencies(rust).iter().all(|&d| shared.get(d).copied().unwrap_or(false));
                shared.push(chosen && deps && rust.role != Role::Vertex);
            }
            shared
        })
        .collect();

    let mut code = String::from(HEADER);
    code.push_str(interface::SHARED_ITEMS);
    code.push('\n');
    let mut generated = Generated { modules: inputs.len(), ..Generated::default() };
    // The shared structs, each once, with the modules that declare it.
    let mut users: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for (m, module) in lowered.iter().enumerate() {
        for (s, rust) in module.structs.iter().enumerate() {
            if shared[m][s] {
                users.entry(rust.name.as_str()).or_default().push((m, s));
            }
        }
    }
    for occurrences in users.values() {
        let Some(&(m, s)) = occurrences.first() else { continue };
        let module = &lowered[m];
        let rust = &module.structs[s];
        let mut doc = describe(rust, &inputs[m]);
        let mut declared: Vec<String> = occurrences.iter().map(|&(m, _)| escape::code(&inputs[m].name)).collect();
        declared.dedup();
        let more = declared.len().saturating_sub(8);
        declared.truncate(8);
        let and_more = if more > 0 { format!(" and {more} more") } else { String::new() };
        doc.extend([String::new(), format!("Declared identically by {}{and_more}.", declared.join(", "))]);
        render::render_struct(&mut code, rust, &doc, &|j| module.structs[j].name.clone());
        let places: Vec<&Role> = occurrences.iter().map(|&(m, s)| &lowered[m].structs[s].role).collect();
        render_block_binding(&mut code, &rust.name, &places);
        generated.structs += 1;
    }

    // `interface` is the shared module above.
    let mut module_names = BTreeSet::from(["interface".to_owned()]);
    let mut rust_modules = Vec::with_capacity(inputs.len());
    for (m, input) in inputs.iter().enumerate() {
        let module = &lowered[m];
        let rust_module = names::unique(names::snake(&input.name), &mut module_names);
        rust_modules.push(rust_module.clone());
        let _ = writeln!(
            code,
            "/// The types and constants of {}, from {}.",
            escape::code(&input.name),
            escape::code(&shown(&input.source))
        );
        let _ = writeln!(code, "{}\npub mod {rust_module} {{", render::ALLOW_UNUSED);
        let local: BTreeSet<&str> =
            module.structs.iter().zip(&shared[m]).filter(|(_, s)| !**s).map(|(r, _)| r.name.as_str()).collect();
        // Each shared struct once, with whether it is a head: its element alias comes with it.
        let uses: BTreeMap<&str, bool> = module
            .structs
            .iter()
            .zip(&shared[m])
            .filter(|(r, s)| **s && !local.contains(r.name.as_str()))
            .map(|(r, _)| (r.name.as_str(), matches!(r.role, Role::Head { .. })))
            .collect();
        for (name, head) in uses {
            let _ = writeln!(code, "    #[allow(unused_imports)]\n    pub use super::{name};");
            if head {
                let _ = writeln!(code, "    #[allow(unused_imports)]\n    pub use super::{name}Element;");
            }
        }
        // Struct `j`'s path from `from_shared` where it is shared, else from `from_own`.
        let qualified = |j: usize, from_shared: &str, from_own: &str| {
            format!("{}{}", if shared[m][j] { from_shared } else { from_own }, module.structs[j].name)
        };
        let path = |j: usize| qualified(j, "super::", "");
        let own = format!("{rust_module}::");
        generated.block_types.push(module.blocks.iter().map(|&j| qualified(j, "", &own)).collect());
        let mut body = String::new();
        for (s, rust) in module.structs.iter().enumerate() {
            if !shared[m][s] {
                render::render_struct(&mut body, rust, &describe(rust, input), &path);
                render_block_binding(&mut body, &rust.name, &[&rust.role]);
                generated.structs += 1;
            }
        }
        let vertex =
            vertices[m].as_ref().map(|(index, attributes)| (attributes.as_slice(), module.structs[*index].size));
        let mut constants = String::new();
        interface::render_constants(&mut constants, input, vertex);
        if wgpu_items {
            wgpu::render(&mut constants, input, vertex.is_some());
        }
        // Written one level in; the body is indented below.
        constants.lines().for_each(|line| {
            body.push_str(line.strip_prefix("    ").unwrap_or(line));
            body.push('\n');
        });
        render::indent(&mut code, &body, "    ");
        let _ = writeln!(code, "}}\n");
        generated.blocks += module.blocks.len();
        generated.problems.extend(module.problems.iter().map(|p| format!("{}: {p}", input.name)));
    }
    let (programs, problems) = program::find(inputs, named);
    generated.problems.extend(problems);
    for program in programs {
        render_program(&mut code, inputs, &program, &mut module_names, &rust_modules, wgpu_items);
        generated.programs += 1;
    }
    generated.code = code;
    generated
}

/// Appends a program's `pub mod`: its merged constants and typed sets.
fn render_program(
    code: &mut String,
    inputs: &[ModuleInput],
    program: &program::Program,
    module_names: &mut BTreeSet<String>,
    rust_modules: &[String],
    wgpu_items: bool,
) {
    let rust_module = names::unique(names::snake(&program.name), module_names);
    let mut body = String::new();
    program::render_constants(&mut body, inputs, program);
    let skipped = vulkan::render(&mut body, &program.name, &program.bindings);
    if wgpu_items {
        let modules: Vec<(String, smolv_format::reflect::ShaderStage)> =
            program.modules.iter().map(|&m| (rust_modules[m].clone(), inputs[m].reflection.stage)).collect();
        wgpu::render_program(&mut body, &program.name, &program.bindings, &modules);
    }
    let modules: Vec<String> = program.modules.iter().map(|&m| escape::code(&inputs[m].name)).collect();
    let _ = writeln!(
        code,
        "/// The program {}: the modules {}, {}. Its bindings\n\
         /// and push constants carry the flags of all its stages, as its pipeline layout does.",
        escape::code(&program.name),
        modules.join(", "),
        if program.named { "as `Config::program` names it" } else { "which share its base name" }
    );
    for line in &skipped {
        let _ = writeln!(code, "///\n/// {line}");
    }
    let _ = writeln!(code, "{}\npub mod {rust_module} {{", render::ALLOW_UNUSED);
    code.push_str(&body);
    let _ = writeln!(code, "}}\n");
}

/// `SET` and `BINDING` on a block's struct, where all its `places` agree on them.
fn render_block_binding(out: &mut String, name: &str, places: &[&Role]) {
    use layout::BlockRole;
    let binding = |role: &Role| match role {
        Role::Block(BlockRole::Uniform { set, binding } | BlockRole::Storage { set, binding })
        | Role::Head { block: BlockRole::Uniform { set, binding } | BlockRole::Storage { set, binding }, .. } => {
            Some((*set, *binding))
        }
        _ => None,
    };
    let found: BTreeSet<Option<(u32, u32)>> = places.iter().map(|role| binding(role)).collect();
    let [Some((set, binding))] = found.into_iter().collect::<Vec<_>>()[..] else { return };
    let _ = writeln!(
        out,
        "{}\nimpl {name} {{\n    /// The block's `set`, as the shader declares it.\n    \
         pub const SET: ::core::primitive::u32 = {set};\n    /// The block's `binding`, as the shader declares it.\n    \
         pub const BINDING: ::core::primitive::u32 = {binding};\n}}\n",
        render::ALLOW_UNUSED
    );
}

const HEADER: &str = "\
// Generated by smolv-build from the shaders' reflection; do not edit.
// `smolv_runtime::include_types!()` includes it; `cargo smolv types`
// prints it.
";

/// A struct's doc comment: what it is, and where it comes from.
fn describe(rust: &RustStruct, input: &ModuleInput) -> Vec<String> {
    use layout::BlockRole;
    let role = |role: &BlockRole| match role {
        BlockRole::Uniform { set, binding } => format!("uniform block (set {set}, binding {binding})"),
        BlockRole::Storage { set, binding } => format!("storage block (set {set}, binding {binding})"),
        BlockRole::PushConstants => "push-constant block".to_owned(),
    };
    let what = match &rust.role {
        Role::Nested => format!("The struct {}", escape::code(&names::as_written(&rust.shader_name))),
        Role::Block(block) => format!("The {} {}", role(block), escape::code(&names::as_written(&rust.shader_name))),
        Role::Head { block, .. } => format!(
            "The fixed head of the {} {}; its runtime-sized array's elements are [`{}Element`]",
            role(block),
            escape::code(&names::as_written(&rust.shader_name)),
            rust.name
        ),
        Role::Padded => "An array element padded to its stride".to_owned(),
        Role::Vertex => "One vertex of the module's vertex inputs, laid out as one interleaved buffer".to_owned(),
    };
    let source = match &rust.source {
        Some((file, Some(line))) => format!("{} line {line}", escape::code(&shown(Path::new(file)))),
        Some((file, None)) => escape::code(&shown(Path::new(file))),
        None => escape::code(&shown(&input.source)),
    };
    vec![format!("{what}, of {}, from {source}.", escape::code(&input.name))]
}

/// A shader path as a doc comment shows it: relative to the crate, `/`-separated, the same on every machine.
fn shown(path: &Path) -> String {
    shown_from(path, std::env::current_dir().ok().as_deref())
}

fn shown_from(path: &Path, base: Option<&Path>) -> String {
    let relative = base.and_then(|base| path.strip_prefix(base).ok()).unwrap_or(path);
    let parts: Vec<String> = relative
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if relative.is_absolute() { relative.display().to_string() } else { parts.join("/") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_paths_are_relative_to_the_crate() {
        let base = Path::new("/home/me/game");
        assert_eq!(shown_from(Path::new("/home/me/game/shaders/lit.frag"), Some(base)), "shaders/lit.frag");
        assert_eq!(shown_from(Path::new("./shaders/./lit.frag"), Some(base)), "shaders/lit.frag");
        assert_eq!(shown_from(Path::new("/elsewhere/lit.frag"), Some(base)), "/elsewhere/lit.frag");
    }
}
