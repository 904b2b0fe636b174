//! The generated types on the GPU: each layout case of issue 29 is filled
//! through the Rust types smolv-build generates, in a crate built as a
//! user builds theirs, and uploaded as a uniform block, a storage block
//! and push constants. A compute shader copies every member into a flat
//! buffer of `uint` words, and the readback must equal the Rust values,
//! on lavapipe under the validation layer with no message.
//!
//! Each case is one small model ([`Kind`]) from which the test writes the
//! shader in each language, the Rust expression that fills the generated
//! type, and the words the shader must write.
//!
//! What runs where (lavapipe has every feature these need, so no case is
//! left out for the device; each is left out only where the language
//! cannot say it):
//! - GLSL: every case; uniform (std140), storage and push constants
//!   (std430), or all three in `scalar` layout. The scalar, 8/16-bit and
//!   64-bit cases use the features tests/src/vulkan.rs enables where the
//!   device has them: `scalarBlockLayout`, the 8/16-bit storage and
//!   push-constant features, `shaderInt8`, `shaderInt16`,
//!   `shaderFloat16`, `shaderInt64` and `shaderFloat64`.
//! - WGSL: uniform, storage and push constants (naga's `var<immediate>`,
//!   formerly `var<push_constant>`). WGSL has no row-major matrices, no
//!   `scalar` layout and no `bool` in a host-shareable block, and its
//!   uniform arrays need a 16-byte stride, so the std140 scalar and
//!   `vec2` array case is not a uniform there. No 8/16-bit case (naga's
//!   `f16` is not enabled here, and WGSL has no 8-bit or 16-bit
//!   integers). The 64-bit case uses naga's `f64` and `u64`, which WGSL
//!   itself lacks.
//! - HLSL (through glslang, `name.comp.hlsl`): uniform (`ConstantBuffer`),
//!   storage (a `StructuredBuffer` of one element) and push constants,
//!   for the cases without 8/16-bit members (DXC's
//!   `-enable-16bit-types`), `scalar` layout or SPIR-V column-major
//!   matrices: glslang makes every matrix in a struct RowMajor (HLSL's
//!   default `column_major`) whatever the member says. glslang has no
//!   `asuint` of a `double`, so the shader splits one in arithmetic. No
//!   runtime-sized case: a `StructuredBuffer` is all runtime array, with
//!   no head.
//! - Slang (through slangc): uniform, storage and push constants as for
//!   HLSL, both matrix orientations, 8/16-bit and 64-bit members, for the
//!   cases without `scalar` layout or a runtime-sized head. slangc stores
//!   a `bool` as an `int` (an `i32` in Rust), and lays out a struct once
//!   per block layout, so the storage and push blocks' `Inner` is
//!   `Inner2` beside the uniform block's.
#![allow(unsafe_code)]

use std::fmt::Write;

use ash::vk;
use smolv_runtime::ShaderSet;
use smolv_tests::outside::{self, workspace, write};
use smolv_tests::vulkan::Gpu;

/// A member's type in the model.
#[derive(Clone, Debug)]
enum Kind {
    F32,
    U32,
    I32,
    Bool,
    F64,
    U64,
    I8,
    U8,
    I16,
    U16,
    /// `float16_t`, held in Rust as its bits.
    F16,
    Vector(u32),
    /// `columns`×`rows`, in SPIR-V's terms.
    Mat {
        columns: u32,
        rows: u32,
        row_major: bool,
    },
    Array(Box<Kind>, u32),
    /// `struct Inner { vec3 v; float s; }`
    Inner,
    /// `struct Outer { Inner i; float t; }`
    Outer,
}

use Kind::*;

fn array(kind: Kind, len: u32) -> Kind {
    Array(Box::new(kind), len)
}

fn mat(columns: u32, rows: u32, row_major: bool) -> Kind {
    Mat { columns, rows, row_major }
}

/// One case: its members, and a runtime-sized last member (storage only).
struct Case {
    name: &'static str,
    members: Vec<(&'static str, Kind)>,
    runtime: Option<Kind>,
    /// Every block in `scalar` layout (instead of std140 and std430).
    scalar: bool,
}

impl Case {
    /// Whether a member is 8 or 16 bits wide (somewhere inside).
    fn small(&self) -> bool {
        fn small(kind: &Kind) -> bool {
            match kind {
                I8 | U8 | I16 | U16 | F16 => true,
                Array(element, _) => small(element),
                _ => false,
            }
        }
        self.members.iter().any(|(_, k)| small(k)) || self.runtime.as_ref().is_some_and(small)
    }
}

fn cases() -> Vec<Case> {
    let case = |name, members| Case { name, members, runtime: None, scalar: false };
    let scalar = |name, members| Case { name, members, runtime: None, scalar: true };
    vec![
        case("vec3_scalar", vec![("a", Vector(3)), ("b", F32), ("c", Vector(3)), ("d", U32), ("e", I32)]),
        case("booleans", vec![("a", Vector(3)), ("flag", Bool), ("other", Bool)]),
        case("columns", vec![("m3", mat(3, 3, false)), ("m43", mat(4, 3, false)), ("m2", mat(2, 2, false))]),
        case("rows", vec![("m3", mat(3, 3, true)), ("m43", mat(4, 3, true)), ("m2", mat(2, 2, true))]),
        case("arrays", vec![("fs", array(F32, 3)), ("v2s", array(Vector(2), 2)), ("v3s", array(Vector(3), 2))]),
        case("structs", vec![("one", Inner), ("many", array(Inner, 2)), ("outer", Outer), ("after", F32)]),
        case("wide", vec![("d", F64), ("u", U64), ("f", F32), ("e", F64), ("ds", Vector(3))]),
        // std140's stride 16, std430's 8.
        // Each 64-bit array last: glslang 16 places the HLSL cbuffer member
        // after a `double da[2]` (stride 16) at the array's offset + 16,
        // inside it (glslang 12 and DXC: after it), and the generated type
        // leaves overlapping members out with a warning. Reported in the
        // closing note of issue 38.
        case("wide_array", vec![("f", F32), ("g", F32), ("da", array(F64, 2))]),
        case("wide_uarray", vec![("f", F32), ("ua", array(U64, 2))]),
        Case {
            name: "runtime",
            members: vec![("count", U32), ("scale", Vector(3))],
            runtime: Some(Inner),
            scalar: false,
        },
        case("small", vec![("a", I8), ("b", U8), ("c", I16), ("d", U16), ("e", F16), ("f", U32), ("g", array(U16, 3))]),
        scalar(
            "scalar",
            vec![
                ("a", Vector(3)),
                ("b", F32),
                ("c", Vector(3)),
                ("d", Vector(2)),
                ("m", mat(3, 3, false)),
                ("vs", array(Vector(3), 2)),
                ("fs", array(F32, 2)),
                ("one", Inner),
            ],
        ),
        scalar(
            "scalar_small",
            vec![("a", U8), ("b", array(F16, 3)), ("c", I16), ("d", Vector(3)), ("e", array(I8, 3)), ("f", U16)],
        ),
        Case {
            name: "scalar_runtime",
            members: vec![("count", U16), ("scale", Vector(3))],
            runtime: Some(Inner),
            scalar: true,
        },
    ]
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    Glsl,
    Wgsl,
    /// Through glslang (`glslc -x hlsl`).
    Hlsl,
    /// Through slangc.
    Slang,
}

/// Whether `lang` can express `kind` in a block (`uniform`: in a uniform block).
fn expressible(lang: Lang, kind: &Kind, uniform: bool) -> bool {
    match (lang, kind) {
        (Lang::Glsl, _) => true,
        (Lang::Wgsl, Bool | I8 | U8 | I16 | U16 | F16 | Mat { row_major: true, .. }) => false,
        (Lang::Wgsl, Array(element, _)) => {
            expressible(lang, element, uniform)
                && !(uniform && matches!(**element, F32 | U32 | I32 | F64 | U64 | Vector(2)))
        }
        (Lang::Wgsl, _) => true,
        // The 8/16-bit types need DXC's `-enable-16bit-types`. glslang
        // makes every matrix in a struct SPIR-V RowMajor (HLSL's default
        // `column_major`), whatever the member says.
        (Lang::Hlsl, I8 | U8 | I16 | U16 | F16 | Mat { row_major: false, .. }) => false,
        (Lang::Hlsl, Array(element, _)) => expressible(lang, element, uniform),
        (Lang::Hlsl, _) => true,
        (Lang::Slang, Array(element, _)) => expressible(lang, element, uniform),
        (Lang::Slang, _) => true,
    }
}

/// The shader type of `kind`.
fn shader_type(lang: Lang, kind: &Kind) -> String {
    match (lang, kind) {
        (Lang::Glsl, F32) => "float".into(),
        (Lang::Glsl, U32) => "uint".into(),
        (Lang::Glsl, I32) => "int".into(),
        (Lang::Glsl, Bool) => "bool".into(),
        (Lang::Glsl, F64) => "double".into(),
        (Lang::Glsl, U64) => "uint64_t".into(),
        (Lang::Glsl, I8) => "int8_t".into(),
        (Lang::Glsl, U8) => "uint8_t".into(),
        (Lang::Glsl, I16) => "int16_t".into(),
        (Lang::Glsl, U16) => "uint16_t".into(),
        (Lang::Glsl, F16) => "float16_t".into(),
        (Lang::Glsl, Vector(n)) => format!("vec{n}"),
        (Lang::Glsl, Mat { columns, rows, row_major }) => {
            format!("layout({}) mat{columns}x{rows}", if *row_major { "row_major" } else { "column_major" })
        }
        (Lang::Wgsl, F32) => "f32".into(),
        (Lang::Wgsl, U32) => "u32".into(),
        (Lang::Wgsl, I32) => "i32".into(),
        // naga's extensions, not WGSL's: `f64` and `u64`.
        (Lang::Wgsl, F64) => "f64".into(),
        (Lang::Wgsl, U64) => "u64".into(),
        (Lang::Wgsl, Vector(n)) => format!("vec{n}<f32>"),
        (Lang::Wgsl, Mat { columns, rows, .. }) => format!("mat{columns}x{rows}<f32>"),
        (Lang::Wgsl, Array(element, len)) => format!("array<{}, {len}>", shader_type(lang, element)),
        (Lang::Hlsl | Lang::Slang, F32) => "float".into(),
        (Lang::Hlsl | Lang::Slang, U32) => "uint".into(),
        (Lang::Hlsl | Lang::Slang, I32) => "int".into(),
        (Lang::Hlsl | Lang::Slang, Bool) => "bool".into(),
        (Lang::Hlsl | Lang::Slang, U64) => "uint64_t".into(),
        (Lang::Hlsl | Lang::Slang, F64) => "double".into(),
        (Lang::Hlsl | Lang::Slang, Vector(n)) => format!("float{n}"),
        (Lang::Slang, I8) => "int8_t".into(),
        (Lang::Slang, U8) => "uint8_t".into(),
        (Lang::Slang, I16) => "int16_t".into(),
        (Lang::Slang, U16) => "uint16_t".into(),
        (Lang::Slang, F16) => "half".into(),
        // As in HLSL; slangc keeps each member's own.
        (Lang::Slang, Mat { columns, rows, row_major }) => {
            format!("{} float{columns}x{rows}", if *row_major { "column_major" } else { "row_major" })
        }
        // HLSL's rows are SPIR-V's columns, and its default
        // `column_major` is SPIR-V's RowMajor.
        (Lang::Hlsl, Mat { columns, rows, .. }) => format!("float{columns}x{rows}"),
        (_, Inner) => "Inner".into(),
        (_, Outer) => "Outer".into(),
        (lang, kind) => panic!("{lang:?} cannot express {kind:?}"),
    }
}

fn declare(lang: Lang, name: &str, kind: &Kind) -> String {
    match (lang, kind) {
        (Lang::Glsl | Lang::Hlsl | Lang::Slang, Array(element, len)) => {
            format!("{} {name}[{len}];", shader_type(lang, element))
        }
        (Lang::Glsl | Lang::Hlsl | Lang::Slang, kind) => format!("{} {name};", shader_type(lang, kind)),
        (Lang::Wgsl, kind) => format!("{name}: {},", shader_type(lang, kind)),
    }
}

/// What one walk of a value writes: the Rust expression (returned), the
/// shader's copy statements, and the words they must produce.
struct Walk {
    lang: Lang,
    next: u32,
    copies: Vec<String>,
    words: Vec<u32>,
    /// The Rust module that holds the case's types.
    module: String,
    /// What follows `Inner` and `Outer` in their Rust names: slangc lays
    /// a struct out once per block layout, and the generator names the
    /// second `Inner2`.
    suffix: &'static str,
}

impl Walk {
    fn leaf(&mut self, path: &str, kind: &Kind) -> String {
        self.next += 1;
        let k = self.next;
        let (rust, words, copies): (String, Vec<u32>, Vec<String>) = match (self.lang, kind) {
            (lang, F32) => {
                let value = k as f32 + 0.5;
                let copy = match lang {
                    Lang::Glsl => format!("floatBitsToUint({path})"),
                    Lang::Wgsl => format!("bitcast<u32>({path})"),
                    Lang::Hlsl | Lang::Slang => format!("asuint({path})"),
                };
                (format!("{value:?}f32"), vec![value.to_bits()], vec![copy])
            }
            (_, U32) => (format!("{}u32", 1000 + k), vec![1000 + k], vec![path.to_owned()]),
            (lang, I32) => {
                let value = -(k as i32) - 7;
                let copy = match lang {
                    Lang::Glsl => format!("uint({path})"),
                    Lang::Wgsl => format!("bitcast<u32>({path})"),
                    Lang::Hlsl | Lang::Slang => format!("asuint({path})"),
                };
                (format!("{value}i32"), vec![value as u32], vec![copy])
            }
            // slangc stores a block's `bool` as an `int`, so the type has an `i32`.
            (Lang::Slang, Bool) => (format!("{}i32", k % 2), vec![k % 2], vec![format!("uint({path})")]),
            (_, Bool) => (format!("{}u32", k % 2), vec![k % 2], vec![format!("uint({path})")]),
            (_, I8) => {
                let value = -i8::try_from(k % 100).unwrap() - 1;
                (format!("{value}i8"), vec![i32::from(value) as u32], vec![format!("uint(int({path}))")])
            }
            (_, U8) => {
                let value = u8::try_from(k % 200).unwrap() + 50;
                (format!("{value}u8"), vec![u32::from(value)], vec![format!("uint({path})")])
            }
            (_, I16) => {
                let value = -i16::try_from(k).unwrap() - 300;
                (format!("{value}i16"), vec![i32::from(value) as u32], vec![format!("uint(int({path}))")])
            }
            (_, U16) => {
                let value = u16::try_from(k).unwrap() + 40000;
                (format!("{value}u16"), vec![u32::from(value)], vec![format!("uint({path})")])
            }
            (lang, F16) => {
                // 1.0 and a little more: a normal half, so its bits survive.
                let bits = 0x3c00 + u16::try_from(k).unwrap();
                let copy = match lang {
                    Lang::Slang => format!("uint(asuint16({path}))"),
                    _ => format!("uint(float16BitsToUint16({path}))"),
                };
                (format!("{bits}u16"), vec![u32::from(bits)], vec![copy])
            }
            // glslang's HLSL has no `asuint` of a `double` (its one-argument
            // form converts to `float` first), so the shader splits the
            // value in arithmetic: its whole part, then its fraction in
            // 2^-30ths, 39 bits of mantissa in all, more than a `float` holds.
            (Lang::Hlsl, F64) => {
                let fraction = (k * 7919) % (1 << 30);
                let value = f64::from(k) + f64::from(fraction) / f64::from(1u32 << 30);
                (
                    format!("{value:?}f64"),
                    vec![k, fraction],
                    vec![format!("uint({path})"), format!("uint(({path} - double(uint({path}))) * 1073741824.0)")],
                )
            }
            (lang, F64) => {
                let value = k as f64 + 0.125;
                let copies = match lang {
                    Lang::Glsl => [format!("unpackDouble2x32({path}).x"), format!("unpackDouble2x32({path}).y")],
                    Lang::Wgsl => [format!("u32(bitcast<u64>({path}))"), format!("u32(bitcast<u64>({path}) >> 32u)")],
                    _ => {
                        [format!("uint(bit_cast<uint64_t>({path}))"), format!("uint(bit_cast<uint64_t>({path}) >> 32)")]
                    }
                };
                (format!("{value:?}f64"), halves(value.to_bits()), copies.to_vec())
            }
            (lang, U64) => {
                let value = (u64::from(k) << 33) | u64::from(k);
                let copies = match lang {
                    Lang::Wgsl => [format!("u32({path})"), format!("u32({path} >> 32u)")],
                    _ => [format!("uint({path})"), format!("uint({path} >> 32)")],
                };
                (format!("{value}u64"), halves(value), copies.to_vec())
            }
            (_, kind) => panic!("not a leaf: {kind:?}"),
        };
        self.words.extend(words);
        let index = |i: usize| self.copies.len() + i;
        let copies: Vec<String> = copies
            .into_iter()
            .enumerate()
            .map(|(i, c)| (index(i), c))
            .map(|(i, c)| match self.lang {
                Lang::Hlsl | Lang::Slang => format!("o[BASE + {i}u] = {c};"),
                _ => format!("o.w[BASE + {i}u] = {c};"),
            })
            .collect();
        self.copies.extend(copies);
        rust
    }

    /// The Rust expression of a value of `kind` at shader path `path`.
    fn value(&mut self, path: &str, kind: &Kind) -> String {
        match kind {
            Vector(n) => {
                let parts: Vec<String> = (0..*n).map(|i| self.leaf(&format!("{path}[{i}]"), &F32)).collect();
                format!("[{}]", parts.join(", "))
            }
            Mat { columns, rows, row_major } => {
                // Leaves in SPIR-V's column order; Rust holds rows for a row-major matrix.
                let mut values = vec![String::new(); (columns * rows) as usize];
                for c in 0..*columns {
                    for r in 0..*rows {
                        let at = if *row_major { r * columns + c } else { c * rows + r };
                        values[at as usize] = self.leaf(&format!("{path}[{c}][{r}]"), &F32);
                    }
                }
                let len = if *row_major { columns } else { rows };
                format!("mat(&[{}], {len})", values.join(", "))
            }
            Array(element, len) => {
                let parts: Vec<String> =
                    (0..*len).map(|i| format!("({}).into()", self.value(&format!("{path}[{i}]"), element))).collect();
                format!("[{}]", parts.join(", "))
            }
            Inner => {
                let v = self.value(&format!("{path}.v"), &Vector(3));
                let s = self.value(&format!("{path}.s"), &F32);
                format!("{}::Inner{}::new({v}, {s})", self.module, self.suffix)
            }
            Outer => {
                let i = self.value(&format!("{path}.i"), &Inner);
                let t = self.value(&format!("{path}.t"), &F32);
                format!("{}::Outer{}::new({i}, {t})", self.module, self.suffix)
            }
            leaf => self.leaf(path, leaf),
        }
    }
}

/// One block of one module: the Rust that writes its bytes, and the words.
struct Block {
    /// `uniform`, `storage` or `push`.
    kind: &'static str,
    rust: String,
    words: Vec<u32>,
}

/// One module: its file, its shader text, and its blocks in copy order.
struct Module {
    file: String,
    name: String,
    text: String,
    blocks: Vec<Block>,
}

fn module(lang: Lang, case: &Case) -> Option<Module> {
    let (file, name, rust_module) = match lang {
        Lang::Glsl => (format!("{}.comp", case.name), format!("{}.comp", case.name), format!("{}_comp", case.name)),
        Lang::Wgsl => {
            (format!("{}.wgsl", case.name), format!("{}.wgsl#main", case.name), format!("{}_wgsl_main", case.name))
        }
        Lang::Hlsl => {
            let file = format!("{}.comp.hlsl", case.name);
            (file.clone(), file, format!("{}_comp_hlsl", case.name))
        }
        Lang::Slang => {
            (format!("{}.slang", case.name), format!("{}.slang#main", case.name), format!("{}_slang_main", case.name))
        }
    };
    let kinds: &[&'static str] = match (lang, &case.runtime) {
        // glslang's storage buffers are `StructuredBuffer`s: a runtime
        // array of one struct, not a block of members.
        (Lang::Hlsl | Lang::Slang, Some(_)) => return None,
        (_, Some(_)) => &["storage"],
        (_, None) => &["uniform", "storage", "push"],
    };
    let members: Vec<&(&str, Kind)> = case.members.iter().collect();
    let uniform_ok = members.iter().all(|(_, k)| expressible(lang, k, true));
    let storage_ok = members.iter().all(|(_, k)| expressible(lang, k, false));
    if !storage_ok || (lang != Lang::Glsl && case.scalar) {
        return None;
    }
    let (std140, std430) = if case.scalar { ("scalar", "scalar") } else { ("std140", "std430") };
    let kinds: Vec<&'static str> = kinds.iter().copied().filter(|k| *k != "uniform" || uniform_ok).collect();
    let mut text = String::new();
    let mut copies = String::new();
    let mut blocks = Vec::new();
    let mut base = 0usize;
    for (b, kind) in kinds.iter().enumerate() {
        let (block, var) = [("U", "u"), ("S", "s"), ("P", "p")]
            [["uniform", "storage", "push"].iter().position(|k| k == kind).unwrap()];
        // HLSL's storage block is a `StructuredBuffer<S>` of one element.
        let structured = matches!(lang, Lang::Hlsl | Lang::Slang) && *kind == "storage";
        let var = if structured { "sb[0]" } else { var };
        let mut walk = Walk {
            lang,
            next: 100 * u32::try_from(b).unwrap(),
            copies: Vec::new(),
            words: Vec::new(),
            module: rust_module.clone(),
            suffix: if lang == Lang::Slang && *kind != "uniform" && kinds.contains(&"uniform") { "2" } else { "" },
        };
        let values: Vec<String> = members.iter().map(|(n, k)| walk.value(&format!("{var}.{n}"), k)).collect();
        let value = format!("{rust_module}::{block}::new({})", values.join(", "));
        let mut rust = if structured {
            // The block is the buffer (glslang names it after the
            // variable, slangc after its kind), and one element of it,
            // `S` padded to the array's stride, is what is uploaded.
            let head = if lang == Lang::Hlsl { "Sb" } else { "StructuredBuffer" };
            format!(
                "let value = {rust_module}::{head}Element::from({value});\n\
                 assert_eq!(value.as_bytes().len(), {rust_module}::{head}::ELEMENT_STRIDE);\n"
            )
        } else {
            format!("let value = {value};\n")
        };
        rust.push_str("#[allow(unused_mut)]\nlet mut bytes = value.as_bytes().to_vec();\n");
        if let Some(element) = &case.runtime {
            rust.push_str(&format!("assert_eq!(bytes.len(), {rust_module}::{block}::ELEMENT_OFFSET);\n"));
            for i in 0..2 {
                let e = walk.value(&format!("{var}.items[{i}]"), element);
                rust.push_str(&format!(
                    "bytes.extend_from_slice({rust_module}::{block}Element::from({e}).as_bytes());\n"
                ));
            }
        }
        for line in &walk.copies {
            let _ = writeln!(copies, "    {}", line.replace("BASE", &base.to_string()));
        }
        base += walk.words.len();
        let body: String = members.iter().map(|(n, k)| format!("    {}\n", declare(lang, n, k))).collect();
        let runtime = case.runtime.as_ref().map(|k| match lang {
            Lang::Glsl | Lang::Hlsl | Lang::Slang => format!("    {} items[];\n", shader_type(lang, k)),
            Lang::Wgsl => format!("    items: array<{}>,\n", shader_type(lang, k)),
        });
        let body = body + &runtime.unwrap_or_default();
        match (lang, *kind) {
            (Lang::Glsl, "uniform") => {
                let _ = write!(text, "layout({std140}, set = 0, binding = 0) uniform U {{\n{body}}} u;\n");
            }
            (Lang::Glsl, "storage") => {
                let _ = write!(text, "layout({std430}, set = 0, binding = 1) readonly buffer S {{\n{body}}} s;\n");
            }
            (Lang::Glsl, _) => {
                let _ = write!(text, "layout(push_constant, {std430}) uniform P {{\n{body}}} p;\n");
            }
            (Lang::Wgsl, "uniform") => {
                let _ = write!(text, "struct U {{\n{body}}}\n@group(0) @binding(0) var<uniform> u: U;\n");
            }
            (Lang::Wgsl, "storage") => {
                let _ = write!(text, "struct S {{\n{body}}}\n@group(0) @binding(1) var<storage, read> s: S;\n");
            }
            // naga's `var<push_constant>`, called `var<immediate>` since naga 27.
            (Lang::Wgsl, _) => {
                let _ = write!(text, "struct P {{\n{body}}}\nvar<immediate> p: P;\n");
            }
            (Lang::Hlsl | Lang::Slang, "uniform") => {
                let _ = write!(text, "struct U {{\n{body}}};\n[[vk::binding(0, 0)]] ConstantBuffer<U> u;\n");
            }
            (Lang::Hlsl | Lang::Slang, "storage") => {
                let _ = write!(text, "struct S {{\n{body}}};\n[[vk::binding(1, 0)]] StructuredBuffer<S> sb;\n");
            }
            (Lang::Hlsl | Lang::Slang, _) => {
                let _ = write!(text, "struct P {{\n{body}}};\n[[vk::push_constant]] ConstantBuffer<P> p;\n");
            }
        }
        blocks.push(Block { kind, rust, words: walk.words });
    }
    let mut extensions = String::new();
    if case.scalar {
        extensions.push_str("#extension GL_EXT_scalar_block_layout : require\n");
    }
    if case.small() {
        extensions.push_str(
            "#extension GL_EXT_shader_explicit_arithmetic_types : require\n\
             #extension GL_EXT_shader_8bit_storage : require\n#extension GL_EXT_shader_16bit_storage : require\n",
        );
    }
    let text = match lang {
        Lang::Glsl => format!(
            "#version 450\n#extension GL_ARB_gpu_shader_int64 : require\n{extensions}\
             struct Inner {{ vec3 v; float s; }};\nstruct Outer {{ Inner i; float t; }};\n{text}\
             layout(std430, set = 0, binding = 2) buffer Out {{ uint w[]; }} o;\nlayout(local_size_x = 1) in;\n\
             void main() {{\n{copies}}}\n"
        ),
        Lang::Wgsl => format!(
            "struct Inner {{ v: vec3<f32>, s: f32 }}\nstruct Outer {{ i: Inner, t: f32 }}\n{text}\
             struct Out {{ w: array<u32> }}\n@group(0) @binding(2) var<storage, read_write> o: Out;\n\
             @compute @workgroup_size(1)\nfn main() {{\n{copies}}}\n"
        ),
        Lang::Hlsl => format!(
            "struct Inner {{ float3 v; float s; }};\nstruct Outer {{ Inner i; float t; }};\n{text}\
             [[vk::binding(2, 0)]] RWStructuredBuffer<uint> o;\n\
             [numthreads(1, 1, 1)]\nvoid main() {{\n{copies}}}\n"
        ),
        Lang::Slang => format!(
            "struct Inner {{ float3 v; float s; }};\nstruct Outer {{ Inner i; float t; }};\n{text}\
             [[vk::binding(2, 0)]] RWStructuredBuffer<uint> o;\n\
             [shader(\"compute\")]\n[numthreads(1, 1, 1)]\nvoid main() {{\n{copies}}}\n"
        ),
    };
    Some(Module { file, name, text, blocks })
}

/// A 64-bit value as the two words the shader writes: low, then high.
fn halves(value: u64) -> Vec<u32> {
    let [a, b, c, d, e, f, g, h] = value.to_le_bytes();
    vec![u32::from_le_bytes([a, b, c, d]), u32::from_le_bytes([e, f, g, h])]
}

/// A vertex shader whose vertex and spec constants the crate hands to the
/// Vulkan layer as they are.
const INPUT_VERT: &str = "#version 450
layout(constant_id = 3) const int COUNT = 7;
layout(constant_id = 5) const float GAIN = 1.5;
layout(location = 0) in vec3 position;
layout(location = 1) in vec2 uv;
layout(location = 2) in uvec4 ids;
void main() {
    gl_Position = vec4(position * GAIN + vec3(uv, float(ids.x + uint(COUNT))), 1.0);
}
";

/// The generated constants are the Vulkan layer's own types: a vertex
/// layout goes to `VertexInput::from_buffers`, the spec constants to a
/// `Stage`, with no conversion.
const VULKAN_CHECK: &str = "
fn vulkan_check() {
    use smolv_runtime::specialize::Value;
    use smolv_runtime::vulkan::{Stage, VertexInput};
    let input = VertexInput::from_buffers(&[input_vert::VERTEX_LAYOUT, input_vert::Vertex::LAYOUT]);
    let VertexInput::Explicit { bindings, attributes, .. } = input else { panic!(\"explicit vertex input\") };
    assert_eq!(bindings.len(), 2);
    assert_eq!(bindings[1].stride, input_vert::VERTEX_STRIDE);
    assert_eq!(bindings[1].stride as usize, core::mem::size_of::<input_vert::Vertex>());
    let places: Vec<(u32, u32, u32)> = attributes.iter().map(|a| (a.binding, a.location, a.offset)).collect();
    assert_eq!(places, [(0, 0, 0), (0, 1, 12), (0, 2, 20), (1, 0, 0), (1, 1, 12), (1, 2, 20)]);
    // A second buffer at another rate: the generated layout, per instance.
    let instances = smolv_runtime::interface::VertexBufferLayout { per_instance: true, ..input_vert::VERTEX_LAYOUT };
    let VertexInput::Explicit { bindings, attributes, .. } = VertexInput::from_buffers(&[input_vert::VERTEX_LAYOUT, instances]) else {
        panic!(\"explicit vertex input\")
    };
    let binding = instances.vk_binding(1);
    assert_eq!((bindings[1].binding, bindings[1].stride), (binding.binding, binding.stride));
    // VK_VERTEX_INPUT_RATE_INSTANCE
    assert_eq!((bindings[1].input_rate.as_raw(), binding.input_rate.as_raw()), (1, 1));
    let first = input_vert::VERTEX_ATTRIBUTES[0].vk_description(1);
    assert_eq!((attributes[3].location, attributes[3].binding, attributes[3].offset), (first.location, 1, first.offset));
    // VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32A32_UINT
    assert_eq!((attributes[4].format.as_raw(), attributes[5].format.as_raw()), (103, 107));
    let constants = input_vert::SpecConstants { count: 9, ..Default::default() };
    let values = constants.values();
    let reflection = smolv_runtime::reflect::Reflection::new(input_vert::STAGE, \"main\");
    let stage = Stage { spirv: &[], reflection: &reflection, specialization: &values };
    assert_eq!(stage.specialization, [(3, Value::I32(9)), (5, Value::F32(1.5))]);
}
";

const HELPERS: &str = "
/// A matrix from its scalars, vector by vector, `len` to a vector; the
/// rest of each (std140's padding of a column) stays zero.
fn mat<const V: usize, const L: usize>(values: &[f32], len: usize) -> [[f32; L]; V] {
    let mut out = [[0.0; L]; V];
    for (i, value) in values.iter().enumerate() {
        out[i / len][i % len] = *value;
    }
    out
}
";

#[test]
fn every_layout_case_filled_through_the_generated_types_reads_back_on_the_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let modules: Vec<Module> = [Lang::Glsl, Lang::Wgsl, Lang::Hlsl, Lang::Slang]
        .iter()
        .flat_map(|&lang| cases().into_iter().filter_map(move |c| module(lang, &c)))
        .collect();
    for module in &modules {
        write(&root.join("shaders").join(&module.file), &module.text);
    }
    write(&root.join("shaders/input.vert"), INPUT_VERT);
    // The crate that fills the generated types and writes their bytes.
    let ws = workspace();
    outside::create(
        root,
        &format!(
            "[package]\nname = \"smolv-typed-gpu\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {:?}, features = [\"vulkan\"] }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {:?} }}\n\n[workspace]\n",
            ws.join("smolv-runtime"),
            ws.join("smolv-build")
        ),
    );
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    let mut main = String::from("smolv_runtime::include_types!();\n");
    main.push_str(HELPERS);
    main.push_str(VULKAN_CHECK);
    main.push_str("\nfn main() {\n    vulkan_check();\n    let out = std::path::PathBuf::from(std::env::args().nth(1).unwrap());\n");
    for module in &modules {
        for block in &module.blocks {
            let _ = writeln!(
                main,
                "    {{\n{}        std::fs::write(out.join({:?}), &bytes).unwrap();\n    }}",
                block.rust.lines().map(|l| format!("        {l}\n")).collect::<String>(),
                format!("{}.{}", module.file, block.kind)
            );
        }
    }
    main.push_str("}\n");
    write(&root.join("src/main.rs"), &main);
    let bytes_dir = root.join("bytes");
    std::fs::create_dir_all(&bytes_dir).unwrap();
    let output = outside::output(outside::cargo(root, &["run", "--"]).arg(&bytes_dir));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the crate must build and run:\n{stderr}\n{main}");
    let warnings: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("warning") && !l.starts_with("warning: smolv-typed-gpu@")).collect();
    assert!(warnings.is_empty(), "the generated code must build without warnings:\n{stderr}");
    // Every GLSL case, and the WGSL ones it can express.
    assert_eq!(modules.len(), 14 + 8 + 8 + 10, "{:?}", modules.iter().map(|m| &m.file).collect::<Vec<_>>());

    // The same shaders, built here for their SPIR-V.
    let mut config = smolv_build::Config::new();
    config.shader_dir(root.join("shaders")).out_dir(root.join("out")).cargo_directives(false);
    config.try_compile().unwrap_or_else(|e| panic!("{e}"));
    let set = ShaderSet::open(root.join("out/smolv/shaders.smvb")).unwrap();
    let gpu = Gpu::new();
    for module in &modules {
        let code = set.get(&module.name).unwrap_or_else(|_| panic!("no module {}", module.name)).decode().unwrap();
        let expected: Vec<u32> = module.blocks.iter().flat_map(|b| b.words.clone()).collect();
        let uploads: Vec<(&str, Vec<u8>)> = module
            .blocks
            .iter()
            .map(|b| (b.kind, std::fs::read(bytes_dir.join(format!("{}.{}", module.file, b.kind))).unwrap()))
            .collect();
        let words = run(&gpu, &code, &uploads, expected.len());
        assert_eq!(
            words, expected,
            "{}: the words the shader copied are not the Rust values\n{}",
            module.file, module.text
        );
    }
    gpu.assert_validation_clean();
    gpu.finish();
}

/// Runs `code` once with `uploads` bound (uniform at 0, storage at 1,
/// push constants) and `words` words of output at 2; returns them.
fn run(gpu: &Gpu, code: &[u32], uploads: &[(&str, Vec<u8>)], words: usize) -> Vec<u32> {
    let d = &gpu.device;
    // SAFETY: every object is created, used to completion (queue_wait_idle)
    // and destroyed within this function.
    unsafe {
        let shader = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None).unwrap();
        let binding = |b: u32, ty| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        };
        let mut bindings = vec![binding(2, vk::DescriptorType::STORAGE_BUFFER)];
        let mut buffers = Vec::new();
        let mut push = Vec::new();
        for (kind, bytes) in uploads {
            match *kind {
                "uniform" => {
                    bindings.push(binding(0, vk::DescriptorType::UNIFORM_BUFFER));
                    buffers.push((
                        0,
                        vk::DescriptorType::UNIFORM_BUFFER,
                        gpu.buffer_with(bytes, vk::BufferUsageFlags::UNIFORM_BUFFER),
                        bytes.len(),
                    ));
                }
                "storage" => {
                    bindings.push(binding(1, vk::DescriptorType::STORAGE_BUFFER));
                    buffers.push((
                        1,
                        vk::DescriptorType::STORAGE_BUFFER,
                        gpu.buffer_with(bytes, vk::BufferUsageFlags::STORAGE_BUFFER),
                        bytes.len(),
                    ));
                }
                // Vulkan takes push constants in whole words; a block
                // ending in an 8/16-bit member is shorter.
                _ => {
                    push = bytes.clone();
                    push.resize(bytes.len().next_multiple_of(4), 0);
                }
            }
        }
        let out_bytes = words * 4;
        buffers.push((
            2,
            vk::DescriptorType::STORAGE_BUFFER,
            gpu.buffer_with(&vec![0xee; out_bytes], vk::BufferUsageFlags::STORAGE_BUFFER),
            out_bytes,
        ));
        let set_layout = d
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None)
            .unwrap();
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(u32::try_from(push.len()).unwrap())];
        let layouts = [set_layout];
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        let info = if push.is_empty() { info } else { info.push_constant_ranges(&ranges) };
        let layout = d.create_pipeline_layout(&info, None).unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(c"main");
        let pipeline = d
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)],
                None,
            )
            .unwrap()[0];
        let sizes = [
            vk::DescriptorPoolSize { ty: vk::DescriptorType::UNIFORM_BUFFER, descriptor_count: 1 },
            vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: 2 },
        ];
        let pool = d
            .create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes), None)
            .unwrap();
        let set = d
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts),
            )
            .unwrap()[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|(_, _, (buffer, _), len)| {
                [vk::DescriptorBufferInfo { buffer: *buffer, offset: 0, range: *len as u64 }]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet<'_>> = buffers
            .iter()
            .zip(&infos)
            .map(|((b, ty, _, _), info)| {
                vk::WriteDescriptorSet::default().dst_set(set).dst_binding(*b).descriptor_type(*ty).buffer_info(info)
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);
        let command = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default().command_pool(gpu.pool).command_buffer_count(1),
            )
            .unwrap()[0];
        d.begin_command_buffer(command, &vk::CommandBufferBeginInfo::default()).unwrap();
        d.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, pipeline);
        d.cmd_bind_descriptor_sets(command, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
        if !push.is_empty() {
            d.cmd_push_constants(command, layout, vk::ShaderStageFlags::COMPUTE, 0, &push);
        }
        d.cmd_dispatch(command, 1, 1, 1);
        d.end_command_buffer(command).unwrap();
        let commands = [command];
        d.queue_submit(gpu.queue, &[vk::SubmitInfo::default().command_buffers(&commands)], vk::Fence::null()).unwrap();
        d.queue_wait_idle(gpu.queue).unwrap();
        let (_, _, (_, out_memory), _) = buffers.last().unwrap();
        let mapped = d.map_memory(*out_memory, 0, out_bytes as u64, vk::MemoryMapFlags::empty()).unwrap();
        let bytes = std::slice::from_raw_parts(mapped.cast::<u8>(), out_bytes);
        let words = bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        d.unmap_memory(*out_memory);
        d.free_command_buffers(gpu.pool, &commands);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
        d.destroy_shader_module(shader, None);
        for (_, _, (buffer, memory), _) in &buffers {
            d.destroy_buffer(*buffer, None);
            d.free_memory(*memory, None);
        }
        words
    }
}
