//! What the generator reads: each module's block layouts, from smolv-format's interface ([`from_interface`]).

use std::path::PathBuf;

use smolv_format::reflect::Reflection;
use smolv_format::reflect::{self as format, ArrayLength, BlockKind, Interface, ScalarKind, Type};

/// A scalar as a block stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Scalar {
    /// A block's `bool`: 4 bytes, 0 or 1.
    Bool,
    I8,
    U8,
    I16,
    U16,
    /// `float16_t`: its bits.
    F16,
    I32,
    U32,
    F32,
    I64,
    U64,
    F64,
}

/// Each scalar, in declaration order: its kind, its width in bits, and its Rust type (`bool` is a `u32` and
/// `float16_t` a `u16`: `Pod` ones).
const SCALARS: [(Scalar, ScalarKind, u32, &str); 12] = [
    (Scalar::Bool, ScalarKind::Bool, 32, "u32"),
    (Scalar::I8, ScalarKind::Sint, 8, "i8"),
    (Scalar::U8, ScalarKind::Uint, 8, "u8"),
    (Scalar::I16, ScalarKind::Sint, 16, "i16"),
    (Scalar::U16, ScalarKind::Uint, 16, "u16"),
    (Scalar::F16, ScalarKind::Float, 16, "u16"),
    (Scalar::I32, ScalarKind::Sint, 32, "i32"),
    (Scalar::U32, ScalarKind::Uint, 32, "u32"),
    (Scalar::F32, ScalarKind::Float, 32, "f32"),
    (Scalar::I64, ScalarKind::Sint, 64, "i64"),
    (Scalar::U64, ScalarKind::Uint, 64, "u64"),
    (Scalar::F64, ScalarKind::Float, 64, "f64"),
];

impl Scalar {
    pub(crate) fn size(self) -> u32 {
        SCALARS[self as usize].2 / 8
    }

    /// The Rust type (see [`SCALARS`]).
    pub(crate) fn rust(self) -> &'static str {
        SCALARS[self as usize].3
    }

    /// The scalar of a reflected type (a bool of any width); `None` for a width Rust lacks.
    pub(crate) fn of(scalar: format::ScalarType) -> Option<Self> {
        let found = SCALARS.iter().find(|r| r.1 == scalar.kind && (r.2 == scalar.width || r.0 == Self::Bool));
        found.map(|row| row.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Scalar(Scalar),
    Vector {
        scalar: Scalar,
        len: u32,
    },
    /// `columns` vectors of `rows` (column-major) or the reverse (row-major), each `stride` bytes apart.
    Matrix {
        scalar: Scalar,
        columns: u32,
        rows: u32,
        stride: u32,
        row_major: bool,
    },
    Array {
        element: Box<Ty>,
        len: u32,
        stride: u32,
    },
    /// A runtime-sized array: only ever a block's last member.
    RuntimeArray {
        element: Box<Ty>,
        stride: u32,
    },
    /// An index into [`ModuleLayouts::structs`].
    Struct(usize),
    /// Bytes whose type Rust cannot hold, and why.
    Opaque {
        size: u32,
        why: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Member {
    /// Its name in the shader; empty where stripped.
    pub(crate) name: String,
    pub(crate) offset: u32,
    pub(crate) ty: Ty,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StructDef {
    pub(crate) name: String,
    pub(crate) members: Vec<Member>,
    /// The file and line that declare it, where the front end says.
    pub(crate) source: Option<(String, Option<u32>)>,
}

/// What a block is bound as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum BlockRole {
    Uniform { set: u32, binding: u32 },
    Storage { set: u32, binding: u32 },
    PushConstants,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) role: BlockRole,
    /// Its struct, in [`ModuleLayouts::structs`].
    pub(crate) ty: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ModuleLayouts {
    pub(crate) structs: Vec<StructDef>,
    pub(crate) blocks: Vec<Block>,
}

/// Which front end made the module, which decides its [`names`](super::names)' mangling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mangling {
    /// GLSL, and HLSL through glslang: names as written.
    None,
    /// DXC-style `type.ConstantBuffer.X` and `type.X`.
    Dxc,
    /// Slang: `_0` and `_std140_0`-style suffixes.
    Slang,
    /// WGSL, with WESL's `package::path` names.
    Wgsl,
}

#[derive(Clone, Debug)]
pub(crate) struct ModuleInput {
    /// The module's name (`lit.frag`, `lit.frag@shadows`).
    pub(crate) name: String,
    pub(crate) source: PathBuf,
    pub(crate) mangling: Mangling,
    pub(crate) reflection: Reflection,
    /// The typed interface, where the build could read it.
    pub(crate) interface: Option<Interface>,
    pub(crate) layouts: ModuleLayouts,
}

pub(crate) fn from_interface(interface: &Interface) -> ModuleLayouts {
    let structs = interface
        .types
        .iter()
        .map(|def| StructDef {
            name: def.name.clone(),
            members: def
                .members
                .iter()
                .map(|m| Member { name: m.name.clone(), offset: m.offset, ty: ty_of(&m.ty, m.size) })
                .collect(),
            source: def.source.as_ref().map(|s| (s.file.clone(), s.line)),
        })
        .collect();
    let blocks = interface
        .blocks
        .iter()
        .map(|block| {
            let (set, binding) = (block.set.unwrap_or(0), block.binding.unwrap_or(0));
            let role = match block.kind {
                BlockKind::Uniform => BlockRole::Uniform { set, binding },
                BlockKind::PushConstant => BlockRole::PushConstants,
                _ => BlockRole::Storage { set, binding },
            };
            Block { role, ty: block.ty }
        })
        .collect();
    ModuleLayouts { structs, blocks }
}

fn ty_of(ty: &Type, size: u32) -> Ty {
    let opaque = |why: &str| Ty::Opaque { size, why: why.to_owned() };
    let with = |s: &format::ScalarType, ty: &dyn Fn(Scalar) -> Ty| {
        Scalar::of(*s).map_or_else(|| opaque("a scalar width Rust lacks"), ty)
    };
    match ty {
        Type::Scalar(s) => with(s, &Ty::Scalar),
        Type::Vector { scalar, count } => with(scalar, &|scalar| Ty::Vector { scalar, len: *count }),
        &Type::Matrix { ref scalar, columns, rows, stride, row_major } => {
            with(scalar, &|scalar| Ty::Matrix { scalar, columns, rows, stride, row_major })
        }
        Type::Array { element, length, stride } => {
            // The element's own size is not stored; the stride bounds it.
            let element = Box::new(ty_of(element, *stride));
            match length {
                ArrayLength::Runtime => Ty::RuntimeArray { element, stride: *stride },
                ArrayLength::Fixed(len) | ArrayLength::SpecConstant { default: len, .. } => {
                    Ty::Array { element, len: *len, stride: *stride }
                }
                _ => opaque("an array whose length is a spec-constant expression"),
            }
        }
        Type::Struct(index) => Ty::Struct(*index),
        // A `buffer_reference` is a 64-bit device address.
        Type::DeviceAddress { .. } => Ty::Scalar(Scalar::U64),
        _ => opaque("a type this smolv-build does not know"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scalar_table_is_in_declaration_order() {
        for (i, row) in SCALARS.iter().enumerate() {
            assert_eq!(row.0 as usize, i, "{row:?}");
        }
        let bool8 = format::ScalarType { kind: ScalarKind::Bool, width: 8 };
        assert_eq!(Scalar::of(bool8), Some(Scalar::Bool));
        assert_eq!(Scalar::of(format::ScalarType { kind: ScalarKind::Float, width: 16 }), Some(Scalar::F16));
        assert_eq!(Scalar::of(format::ScalarType { kind: ScalarKind::Sint, width: 128 }), None);
    }
}
