//! The generated file for arbitrary names: every kind of name a module
//! carries (struct, member, binding, spec-constant and vertex-input names,
//! the module's name, its source path and the file an `OpString` names)
//! is fed arbitrary bytes, decoded as the reflection decodes them (lossy
//! UTF-8, control characters kept). The file must parse as Rust and hold
//! exactly the items it holds for plain names, its string literals must
//! say the names as they are, and no doc comment may hold a character
//! that ends or hides it. (tests/tests/hostile_names.rs compiles a fixed
//! hostile case in a crate.)

use std::path::PathBuf;

use proptest::prelude::*;
use smolv_format::reflect::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, Reflection, ShaderStage, SpecConstant, SpecConstantType,
};

use super::layout::{Block, BlockRole, Mangling, Member, ModuleInput, ModuleLayouts, Scalar, StructDef, Ty};

/// Every name of one module's inputs, in the order [`module`] takes them;
/// [`generated`] takes one more, the second module's name.
const NAMES_PER_MODULE: usize = 15;

/// A vertex module: a uniform block holding a nested struct, a storage
/// block ending in a runtime-sized array, two bindings, two spec constants
/// and two vertex inputs, named from `names`.
fn module(names: &[String], path: &[u8]) -> ModuleInput {
    let name = |i: usize| names[i].clone();
    let scalar = |offset| Member { name: String::new(), offset, ty: Ty::Scalar(Scalar::F32) };
    let structs = vec![
        StructDef {
            name: name(1),
            members: vec![
                Member { name: name(2), ..scalar(0) },
                Member { name: name(3), offset: 16, ty: Ty::Struct(1) },
            ],
            source: None,
        },
        StructDef {
            name: name(4),
            members: vec![Member { name: name(5), offset: 0, ty: Ty::Vector { scalar: Scalar::F32, len: 4 } }],
            source: Some((name(6), Some(7))),
        },
        StructDef {
            name: name(7),
            members: vec![
                Member { name: name(8), ty: Ty::Scalar(Scalar::U32), ..scalar(0) },
                Member {
                    name: name(9),
                    offset: 16,
                    ty: Ty::RuntimeArray { element: Box::new(Ty::Scalar(Scalar::F32)), stride: 16 },
                },
            ],
            source: None,
        },
    ];
    let blocks = vec![
        Block { role: BlockRole::Uniform { set: 0, binding: 0 }, ty: 0 },
        Block { role: BlockRole::Storage { set: 0, binding: 1 }, ty: 2 },
    ];
    let mut reflection = Reflection::new(ShaderStage::Vertex, "main");
    reflection.bindings = [(0, DescriptorKind::UniformBuffer, 10), (1, DescriptorKind::StorageBuffer, 11)]
        .into_iter()
        .map(|(binding, kind, n)| DescriptorBinding { set: 0, binding, kind, count: 1, stages: 1, name: name(n) })
        .collect();
    reflection.spec_constants = [(0, SpecConstantType::U32, 12), (1, SpecConstantType::F32, 13)]
        .into_iter()
        .map(|(id, ty, n)| SpecConstant { id, ty, default: 1, name: name(n) })
        .collect();
    reflection.inputs = [(0, 106, 14), (1, 98, 6)]
        .into_iter()
        .map(|(location, format, n)| InterfaceVariable { location, format, name: name(n) })
        .collect();
    #[cfg(unix)]
    let source = PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path));
    #[cfg(not(unix))]
    let source = PathBuf::from(String::from_utf8_lossy(path).into_owned());
    ModuleInput {
        name: name(0),
        source,
        mangling: Mangling::None,
        reflection,
        interface: None,
        layouts: ModuleLayouts { structs, blocks },
    }
}

/// The file's items as kinds and counts, without names and sorted (the
/// file orders structs by name): what must not change whatever the names.
fn shape(items: &[syn::Item]) -> Vec<String> {
    let mut shape: Vec<String> = items
        .iter()
        .map(|item| match item {
            syn::Item::Mod(m) => {
                let inner = m.content.as_ref().map(|(_, items)| shape(items).join(" ")).unwrap_or_default();
                format!("mod {{ {inner} }}")
            }
            syn::Item::Struct(s) => format!("struct {}", s.fields.len()),
            syn::Item::Impl(i) => format!("impl {}", i.items.len()),
            syn::Item::Const(_) => "const".to_owned(),
            syn::Item::Use(_) => "use".to_owned(),
            syn::Item::Type(_) => "type".to_owned(),
            _ => "unexpected".to_owned(),
        })
        .collect();
    shape.sort();
    shape
}

/// Every `#[doc]` string and every string literal in the file.
fn strings(code: &str) -> (Vec<String>, Vec<String>) {
    let (mut docs, mut literals) = (Vec::new(), Vec::new());
    let mut stack: Vec<proc_macro2::TokenStream> = vec![code.parse().expect("the file lexes")];
    while let Some(stream) = stack.pop() {
        for tree in stream {
            match tree {
                proc_macro2::TokenTree::Group(group) => {
                    // A doc comment lexes as `# [doc = "..."]`.
                    let inner: Vec<_> = group.stream().into_iter().collect();
                    if let [proc_macro2::TokenTree::Ident(doc), _, proc_macro2::TokenTree::Literal(text)] =
                        inner.as_slice()
                        && doc == "doc"
                    {
                        let lit: syn::LitStr = syn::parse_str(&text.to_string()).expect("a doc string");
                        docs.push(lit.value());
                    } else {
                        stack.push(group.stream());
                    }
                }
                proc_macro2::TokenTree::Literal(literal) => {
                    if let Ok(lit) = syn::parse_str::<syn::LitStr>(&literal.to_string()) {
                        literals.push(lit.value());
                    }
                }
                _ => {}
            }
        }
    }
    (docs, literals)
}

/// A name: pieces of arbitrary bytes and of text that has broken
/// generated code elsewhere, decoded as lossy UTF-8.
fn name() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "\n compile_error!(\"x\");\n",
        "\r",
        "*/",
        "/*",
        "`",
        "\"",
        "\\",
        "\u{202e}",
        "\u{2066}",
        "\u{2028}",
        "Vertex",
        "SpecConstants",
        "Option",
        "Default",
        "type",
        "self",
        "r#",
        "::",
        "type.X.",
        "<script>",
        "[`x`]",
    ];
    let piece = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..6),
        proptest::sample::select(PIECES).prop_map(|piece| piece.as_bytes().to_vec()),
    ];
    proptest::collection::vec(piece, 0..5).prop_map(|pieces| String::from_utf8_lossy(&pieces.concat()).into_owned())
}

fn generated(names: &[String], paths: [&[u8]; 2]) -> (String, syn::File) {
    // Two modules that differ in their names and paths alone, so that
    // which structs they share never depends on the names.
    let mut second = names[..NAMES_PER_MODULE].to_vec();
    second[0] = names[NAMES_PER_MODULE].clone();
    let inputs = [module(&names[..NAMES_PER_MODULE], paths[0]), module(&second, paths[1])];
    let code = super::generate(&inputs, true).code;
    let file = syn::parse_file(&code).unwrap_or_else(|e| panic!("the generated file does not parse: {e}\n{code}"));
    (code, file)
}

fn hides(text: &str) -> bool {
    text.contains("*/")
        || text.chars().any(|c| {
            c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_names_give_the_same_items_and_stay_in_comments_and_literals(
        names in proptest::collection::vec(name(), NAMES_PER_MODULE + 1),
        path in proptest::collection::vec(any::<u8>(), 1..12),
    ) {
        // The plain case: distinct ordinary names.
        let plain: Vec<String> = (0..NAMES_PER_MODULE + 1).map(|i| format!("name{i}")).collect();
        let (_, expected) = generated(&plain, [b"shaders/a.vert", b"shaders/b.vert"]);
        let (code, file) = generated(&names, [&path, b"shaders/b.vert"]);
        prop_assert_eq!(shape(&file.items), shape(&expected.items), "{}", code);
        let (docs, literals) = strings(&code);
        for doc in &docs {
            prop_assert!(!hides(doc), "a doc comment holds {:?}", doc);
        }
        // `NAME` of each module says its name exactly.
        for module in [&names[0], &names[NAMES_PER_MODULE]] {
            prop_assert!(literals.contains(module), "no literal {:?} in {:?}", module, literals);
        }
    }
}

#[test]
fn a_newline_in_a_name_stays_in_its_comment() {
    let mut names: Vec<String> = (0..NAMES_PER_MODULE + 1).map(|i| format!("name{i}")).collect();
    let evil = "x\n compile_error!(\"x\");\n/// ";
    names.iter_mut().for_each(|name| *name = format!("{name}{evil}"));
    let (code, file) = generated(&names, [b"a\n compile_error!(\"x\");\n.vert", b"b.vert"]);
    assert!(!code.lines().any(|line| line.trim_start().starts_with("compile_error")), "{code}");
    let plain: Vec<String> = (0..NAMES_PER_MODULE + 1).map(|i| format!("name{i}")).collect();
    assert_eq!(shape(&file.items), shape(&generated(&plain, [b"a.vert", b"b.vert"]).1.items));
}
