//! The generated programs: modules grouped by base name, their merged
//! stage flags, their typed descriptor sets, and names that try to break
//! out of where they go.

use std::path::PathBuf;

use smolv_format::reflect::{DescriptorBinding, DescriptorKind, PushConstantRange, Reflection, ShaderStage};

use super::layout::{Block, BlockRole, Mangling, Member, ModuleInput, ModuleLayouts, Scalar, StructDef, Ty};

const HOSTILE: &str = "x\"); } panic!(\"\n*/ `";

fn binding(set: u32, binding: u32, kind: DescriptorKind, stage: ShaderStage, name: &str) -> DescriptorBinding {
    DescriptorBinding { set, binding, kind, count: 1, stages: stage.vk_stage_flag(), name: name.to_owned() }
}

/// A module named `name` of `stage` with `bindings` and a push-constant
/// range `push` (offset, size).
fn module(name: &str, stage: ShaderStage, bindings: Vec<DescriptorBinding>, push: Option<(u32, u32)>) -> ModuleInput {
    let mut reflection = Reflection::new(stage, "main");
    reflection.bindings = bindings;
    reflection.push_constants = push
        .map(|(offset, size)| PushConstantRange { offset, size, stages: stage.vk_stage_flag() })
        .into_iter()
        .collect();
    ModuleInput {
        name: name.to_owned(),
        source: PathBuf::from(name),
        mangling: Mangling::None,
        reflection,
        interface: None,
        layouts: ModuleLayouts::default(),
    }
}

/// `tri.vert` and `tri.frag`: a uniform block both read, a texture the
/// fragment stage reads at set 1, and push constants each stage reads a
/// part of (6 bytes from 0, and 8 from 4).
fn triangle(vert: &str, frag: &str, frame: &str) -> [ModuleInput; 2] {
    use DescriptorKind::{CombinedImageSampler, UniformBuffer};
    use ShaderStage::{Fragment, Vertex};
    [
        module(vert, Vertex, vec![binding(0, 0, UniformBuffer, Vertex, frame)], Some((0, 6))),
        module(
            frag,
            Fragment,
            vec![
                binding(0, 0, UniformBuffer, Fragment, frame),
                binding(1, 0, CombinedImageSampler, Fragment, "albedo"),
            ],
            Some((4, 8)),
        ),
    ]
}

/// The items of the top-level module `name`.
fn module_items<'a>(file: &'a syn::File, name: &str) -> Option<&'a [syn::Item]> {
    file.items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|(_, items)| items.as_slice()),
        _ => None,
    })
}

/// The text of the top-level module `name`, from its `pub mod` line to
/// its closing brace.
fn module_text<'a>(code: &'a str, name: &str) -> Option<&'a str> {
    let start = code.find(&format!("\npub mod {name} {{\n"))?;
    let rest = &code[start..];
    Some(&rest[..rest.find("\n}\n")?])
}

/// The value of the first `const name` in `text`, without whitespace.
fn constant(text: &str, name: &str) -> Option<String> {
    let line = text.lines().find(|line| line.trim_start().starts_with(&format!("pub const {name}:")))?;
    let value = line.split_once(" = ")?.1.trim_end_matches(';');
    Some(value.split_whitespace().collect())
}

/// The items inside the module's `__vulkan_items!`.
fn vulkan_items(items: &[syn::Item]) -> Vec<syn::Item> {
    let mac = items
        .iter()
        .find_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "__vulkan_items") => {
                Some(&m.mac)
            }
            _ => None,
        })
        .expect("the Vulkan items");
    syn::parse2::<syn::File>(mac.tokens.clone()).expect("the Vulkan items parse").items
}

fn struct_fields(items: &[syn::Item], name: &str) -> Option<Vec<String>> {
    items.iter().find_map(|item| match item {
        syn::Item::Struct(s) if s.ident == name => {
            Some(s.fields.iter().filter_map(|f| f.ident.as_ref()).map(ToString::to_string).collect())
        }
        _ => None,
    })
}

fn parse(code: &str) -> syn::File {
    syn::parse_file(code).unwrap_or_else(|e| panic!("the generated file does not parse: {e}\n{code}"))
}

#[test]
fn a_program_has_the_stage_flags_of_all_its_modules() {
    let generated = super::generate(&triangle("tri.vert", "tri.frag", "frame"), false);
    parse(&generated.code);
    let tri = module_text(&generated.code, "tri").expect("the program `tri`");
    assert_eq!(generated.programs, 1);
    assert!(constant(tri, "FRAME").expect("FRAME").contains("stages:0x11"), "both stages use the block");
    assert!(constant(tri, "ALBEDO").expect("ALBEDO").contains("set:1,binding:0"));
    assert!(constant(tri, "ALBEDO").expect("ALBEDO").contains("stages:0x10"));
    // 0..6 and 4..12 merged, in whole words, as ProgramLayout makes it.
    let push = constant(tri, "PUSH_CONSTANTS").expect("PUSH_CONSTANTS");
    assert!(push.contains("offset:0,size:12,stages:0x11"), "{push}");
    assert_eq!(constant(tri, "MODULES").as_deref(), Some("[\"tri.vert\",\"tri.frag\"]"), "in stage order");
    // Each module keeps its own flags.
    let vert = module_text(&generated.code, "tri_vert").expect("tri.vert's module");
    assert!(constant(vert, "PUSH_CONSTANTS").expect("its range").contains("stages:0x1}"));
}

#[test]
fn each_set_of_a_program_is_a_struct_of_its_resources_with_its_pool_sizes() {
    let generated = super::generate(&triangle("tri.vert", "tri.frag", "frameData"), false);
    let file = parse(&generated.code);
    let tri = module_items(&file, "tri").expect("the program");
    let vulkan = vulkan_items(tri);
    assert_eq!(struct_fields(&vulkan, "Set0").expect("set 0"), ["frame_data"]);
    assert_eq!(struct_fields(&vulkan, "Set1").expect("set 1"), ["albedo"]);
    let text = module_text(&generated.code, "tri").expect("the program");
    let set1 = &text[text.find("impl Set1 {").expect("impl Set1")..];
    assert_eq!(constant(set1, "SET").as_deref(), Some("1"));
    let sizes = constant(set1, "POOL_SIZES").expect("POOL_SIZES");
    // VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER is 1.
    assert!(sizes.contains("from_raw(1),descriptor_count:1}]"), "{sizes}");
    let methods: Vec<String> = vulkan
        .iter()
        .filter_map(|item| match item {
            syn::Item::Impl(i) if matches!(&*i.self_ty, syn::Type::Path(p) if p.path.is_ident("Set1")) => Some(i),
            _ => None,
        })
        .flat_map(|i| &i.items)
        .filter_map(|item| match item {
            syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(methods, ["writes", "write", "allocate", "create_pool"]);
}

#[test]
fn modules_that_make_no_pipeline_are_no_program() {
    use ShaderStage::{Compute, Fragment, Vertex};
    let lone = [module("fullscreen.vert", Vertex, vec![], None), module("post.frag", Fragment, vec![], None)];
    assert_eq!(super::generate(&lone, false).programs, 0, "different base names");
    let twice = [module("a.vert", Vertex, vec![], None), module("a.vs.vert", Vertex, vec![], None)];
    assert_eq!(super::generate(&twice, false).programs, 0, "a stage twice");
    let [vert, mut frag] = triangle("t.vert", "t.frag", "frame");
    frag.reflection.bindings[0].kind = DescriptorKind::StorageBuffer;
    assert_eq!(super::generate(&[vert, frag], false).programs, 0, "the stages disagree on a binding");
    let compute = [module("fill.comp", Compute, vec![], None)];
    assert_eq!(super::generate(&compute, false).programs, 1, "one compute shader is a program");
}

#[test]
fn a_variant_is_a_program_with_the_base_modules_it_lacks() {
    let [vert, frag] = triangle("tint.vert", "tint.frag", "frame");
    let mut red = frag.clone();
    red.name = "tint.frag@red".to_owned();
    let generated = super::generate(&[vert, frag, red], false);
    let file = parse(&generated.code);
    assert_eq!(generated.programs, 2);
    let red = module_text(&generated.code, "tint_red").expect("the program `tint@red`");
    assert_eq!(constant(red, "MODULES").as_deref(), Some("[\"tint.vert\",\"tint.frag@red\"]"));
    assert!(module_items(&file, "tint").is_some());
}

#[test]
fn hostile_names_stay_in_literals_and_comments() {
    let [vert, frag] = triangle(&format!("{HOSTILE}.vert"), &format!("{HOSTILE}.frag"), HOSTILE);
    let generated = super::generate(&[vert, frag], true);
    let file = parse(&generated.code);
    assert_eq!(generated.programs, 1);
    let program = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) => m.content.as_ref().map(|(_, items)| items.as_slice()),
            _ => None,
        })
        .find(|items| items.iter().any(|item| matches!(item, syn::Item::Const(c) if c.ident == "MODULES")))
        .expect("the program");
    let modules = program
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(c) if c.ident == "MODULES" => Some(&*c.expr),
            _ => None,
        })
        .expect("MODULES");
    let syn::Expr::Array(array) = modules else { panic!("MODULES is an array") };
    let names: Vec<String> = array
        .elems
        .iter()
        .map(|e| match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
            _ => panic!("a string literal"),
        })
        .collect();
    assert_eq!(names, [format!("{HOSTILE}.vert"), format!("{HOSTILE}.frag")], "the names as they are");
    let fields = struct_fields(&vulkan_items(program), "Set0").expect("set 0");
    assert!(fields.iter().all(|f| f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')), "{fields:?}");
    assert!(!generated.code.lines().any(|line| line.trim_start().starts_with("panic!")), "{}", generated.code);
}

#[test]
fn a_block_carries_its_set_and_binding() {
    let mut input = module("lit.frag", ShaderStage::Fragment, vec![], None);
    input.layouts = ModuleLayouts {
        structs: vec![StructDef {
            name: "Light".to_owned(),
            members: vec![Member { name: "power".to_owned(), offset: 0, ty: Ty::Scalar(Scalar::F32) }],
            source: None,
        }],
        blocks: vec![Block { role: BlockRole::Uniform { set: 2, binding: 3 }, ty: 0 }],
    };
    let code = super::generate(&[input], false).code;
    let file = parse(&code);
    let number = |expr: &syn::Expr| match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => n.base10_parse::<u32>().ok(),
        _ => None,
    };
    let find = |name: &str| {
        file.items.iter().find_map(|item| match item {
            syn::Item::Impl(i) => i.items.iter().find_map(|item| match item {
                syn::ImplItem::Const(c) if c.ident == name => number(&c.expr),
                _ => None,
            }),
            _ => None,
        })
    };
    let (set, binding) = (find("SET"), find("BINDING"));
    assert_eq!((set, binding), (Some(2), Some(3)), "{code}");
}

#[test]
fn a_named_program_joins_modules_of_any_names() {
    use ShaderStage::{Fragment, Vertex};
    let inputs = [
        module("quad.vert", Vertex, vec![], Some((0, 8))),
        module("checker.frag", Fragment, vec![], Some((8, 8))),
        module("tint.frag", Fragment, vec![], None),
    ];
    let named = [
        ("checker".to_owned(), vec!["quad.vert".to_owned(), "checker.frag".to_owned()]),
        ("missing".to_owned(), vec!["quad.vert".to_owned(), "gone.frag".to_owned()]),
        ("two".to_owned(), vec!["checker.frag".to_owned(), "tint.frag".to_owned()]),
    ];
    let generated = super::generate_with(&inputs, false, &named);
    assert_eq!(generated.programs, 1, "{:?}", generated.problems);
    let checker = module_text(&generated.code, "checker").expect("the named program");
    assert_eq!(constant(checker, "MODULES").as_deref(), Some("[\"quad.vert\",\"checker.frag\"]"));
    assert!(constant(checker, "PUSH_CONSTANTS").expect("its range").contains("offset:0,size:16,stages:0x11"));
    assert_eq!(generated.problems.len(), 2, "{:?}", generated.problems);
    assert!(generated.problems[0].contains("gone.frag"), "{:?}", generated.problems);
    assert!(generated.problems[1].contains("\"two\"") && generated.problems[1].contains("no pipeline"));
}

#[test]
fn a_programs_wgpu_items_bind_every_stage_and_make_its_pipeline() {
    let [vert, mut frag] = triangle("tri.vert", "tri.frag", "frame");
    frag.reflection.bindings[1].kind = DescriptorKind::SampledImage;
    let generated = super::generate(&[vert.clone(), frag.clone()], true);
    let file = parse(&generated.code);
    let tri = module_items(&file, "tri").expect("the program");
    let mac = tri
        .iter()
        .find_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "__wgpu_items") => {
                Some(&m.mac)
            }
            _ => None,
        })
        .expect("the wgpu items");
    let inner: syn::File = syn::parse2(mac.tokens.clone()).expect("they parse");
    let Some(syn::Item::Mod(wgpu)) = inner.items.first() else { panic!("one `mod wgpu`") };
    let items = &wgpu.content.as_ref().expect("inline").1;
    assert_eq!(struct_fields(items, "BindGroup0").expect("group 0"), ["frame"]);
    assert_eq!(struct_fields(items, "BindGroup1").expect("group 1"), ["albedo"]);
    let functions: Vec<(String, usize)> = items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) => Some((f.sig.ident.to_string(), f.sig.inputs.len())),
            _ => None,
        })
        .collect();
    assert_eq!(
        functions,
        [("set_bind_groups".to_owned(), 3), ("create_layout".to_owned(), 3), ("render_pipeline".to_owned(), 5)],
        "one call sets both stages' groups"
    );
    let text = module_text(&generated.code, "tri").expect("the program");
    assert!(text.contains("super::super::tri_vert::wgpu::ENTRY_POINT"), "{text}");
    assert!(text.contains("super::super::tri_frag::wgpu::ENTRY_POINT"), "{text}");
    // A Vulkan build writes none.
    let vulkan = super::generate(&[vert, frag], false);
    assert!(!module_text(&vulkan.code, "tri").expect("the program").contains("__wgpu_items"));
}
