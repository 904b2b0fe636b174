//! From a module's block layouts to Rust structs: every byte placed, padding explicit, padded array elements.

use std::collections::{BTreeSet, HashMap};

use super::layout::{BlockRole, ModuleInput, ModuleLayouts, Scalar, StructDef, Ty};
use super::{names, wrappers};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum FieldTy {
    Scalar(Scalar),
    Array(Box<FieldTy>, u32),
    /// An index into the module's [`Lowered::structs`].
    Struct(usize),
    /// Bytes the generator could not type (see the struct's problems).
    Bytes(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) ty: FieldTy,
    pub(crate) offset: u32,
    /// Padding: private, always zero.
    pub(crate) padding: bool,
    /// What the reader should know (a matrix's padded column, a bool).
    pub(crate) note: Option<String>,
}

/// What a struct is for, which decides its doc comment and extra items.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    Nested,
    Block(BlockRole),
    /// The head of a block ending in a runtime array: elements follow at `offset`, `stride` bytes apart.
    Head {
        block: BlockRole,
        element: FieldTy,
        offset: u32,
        stride: u32,
    },
    Padded,
    Vertex,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RustStruct {
    pub(crate) name: String,
    /// The shader's own name for it, before the Rust rules.
    pub(crate) shader_name: String,
    pub(crate) role: Role,
    pub(crate) fields: Vec<Field>,
    pub(crate) size: u32,
    pub(crate) align: u32,
    pub(crate) source: Option<(String, Option<u32>)>,
}

impl RustStruct {
    /// A struct the shader does not name, its size and alignment not yet placed.
    pub(crate) fn new(name: String, role: Role, fields: Vec<Field>) -> Self {
        Self { name, shader_name: String::new(), role, fields, size: 0, align: 1, source: None }
    }
}

/// A module's structs, and what could not be typed.
#[derive(Debug, Default)]
pub(crate) struct Lowered {
    pub(crate) structs: Vec<RustStruct>,
    /// One line per member the generator left as bytes, and why.
    pub(crate) problems: Vec<String>,
    /// The lowered struct of each block, in block order.
    pub(crate) blocks: Vec<usize>,
}

impl Lowered {
    pub(crate) fn size_align(&self, ty: &FieldTy) -> (u32, u32) {
        match ty {
            FieldTy::Scalar(s) => (s.size(), s.size()),
            FieldTy::Array(element, len) => {
                let (size, align) = self.size_align(element);
                (size.saturating_mul(*len), align)
            }
            FieldTy::Struct(index) => self.structs.get(*index).map_or((0, 1), |s| (s.size, s.align)),
            FieldTy::Bytes(n) => (*n, 1),
        }
    }

    /// A short name for a type, for the name of its padded element.
    fn short_name(&self, ty: &FieldTy) -> String {
        match ty {
            FieldTy::Scalar(s) => names::upper_camel(s.rust()),
            FieldTy::Array(element, len) => format!("{}x{len}", self.short_name(element)),
            FieldTy::Struct(index) => self.structs.get(*index).map_or_else(String::new, |s| s.name.clone()),
            FieldTy::Bytes(n) => format!("Bytes{n}"),
        }
    }
}

pub(crate) fn lower(input: &ModuleInput) -> Lowered {
    let layouts = wrappers::unwrapped(&input.layouts, input.mangling);
    let mut lowerer = Lowerer {
        input,
        layouts: &layouts,
        out: Lowered::default(),
        done: HashMap::new(),
        padded: HashMap::new(),
        taken: BTreeSet::new(),
    };
    for block in &layouts.blocks {
        let fallback = match block.role {
            BlockRole::Uniform { set, binding } | BlockRole::Storage { set, binding } => {
                format!("Set{set}Binding{binding}")
            }
            BlockRole::PushConstants => "PushConstants".to_owned(),
        };
        let index = lowerer.lower_struct(block.ty, &fallback, Some(block.role), 0);
        lowerer.out.blocks.push(index);
    }
    lowerer.out
}

struct Lowerer<'a> {
    input: &'a ModuleInput,
    /// The module's layouts, with the front end's wrappers undone.
    layouts: &'a ModuleLayouts,
    out: Lowered,
    /// Struct definition (and whether as a block) → lowered struct.
    done: HashMap<(usize, Option<BlockRole>), usize>,
    /// (element, stride) → its padded element struct.
    padded: HashMap<(FieldTy, u32), usize>,
    taken: BTreeSet<String>,
}

/// Nesting beyond this is refused: a hostile module can nest deep.
const MAX_DEPTH: u32 = 64;

impl Lowerer<'_> {
    fn lower_struct(&mut self, def_index: usize, fallback: &str, block: Option<BlockRole>, depth: u32) -> usize {
        if let Some(&done) = self.done.get(&(def_index, block)) {
            return done;
        }
        let empty = StructDef { name: String::new(), members: Vec::new(), source: None };
        let def = self.layouts.structs.get(def_index).unwrap_or(&empty);
        let shader_name = names::demangle(&def.name, self.input.mangling);
        let base = if shader_name.is_empty() { fallback.to_owned() } else { names::upper_camel(&shader_name) };
        let name = names::unique(base, &mut self.taken);
        let mut members: Vec<_> = def.members.iter().collect();
        members.sort_by_key(|m| m.offset);
        let mut fields = Vec::new();
        let mut field_names = BTreeSet::new();
        let mut role = block.map_or(Role::Nested, Role::Block);
        let count = members.len();
        for (i, member) in members.into_iter().enumerate() {
            let member_name = names::demangle(&member.name, self.input.mangling);
            let member_name = if member_name.is_empty() { format!("member{i}") } else { names::snake(&member_name) };
            let member_name = names::unique(member_name, &mut field_names);
            let context = format!("{name}{}", names::upper_camel(&member_name));
            if let (Ty::RuntimeArray { element, stride }, Some(block), true) = (&member.ty, block, i + 1 == count) {
                let element = self.lower_ty(element, &context, depth + 1);
                let element = self.pad_to_stride(element, *stride, &name, &member_name);
                role = Role::Head { block, element, offset: member.offset, stride: *stride };
                continue;
            }
            let note = note_of(&member.ty);
            let ty = self.lower_ty(&member.ty, &context, depth + 1);
            fields.push(Field { name: member_name, ty, offset: member.offset, padding: false, note });
        }
        let layout_end = if let Role::Head { offset, .. } = &role { Some(*offset) } else { None };
        let index = self.finish(
            RustStruct {
                shader_name: def.name.clone(),
                source: def.source.clone(),
                ..RustStruct::new(name, role, fields)
            },
            layout_end,
        );
        self.done.insert((def_index, block), index);
        index
    }

    fn lower_ty(&mut self, ty: &Ty, context: &str, depth: u32) -> FieldTy {
        if depth > MAX_DEPTH {
            self.out.problems.push(format!("{context}: nested deeper than {MAX_DEPTH} levels"));
            return FieldTy::Bytes(0);
        }
        match ty {
            Ty::Scalar(s) => FieldTy::Scalar(*s),
            Ty::Vector { scalar, len } => FieldTy::Array(Box::new(FieldTy::Scalar(*scalar)), *len),
            Ty::Matrix { scalar, columns, rows, stride, row_major } => {
                // A column (a row, row-major) takes `stride` bytes: std140's
                // `mat3` is `[[f32; 4]; 3]`, as vulkano and wgsl_to_wgpu lay it out.
                let (vectors, len) = if *row_major { (*rows, *columns) } else { (*columns, *rows) };
                let size = scalar.size();
                if !stride.is_multiple_of(size) || *stride / size < len {
                    self.out.problems.push(format!("{context}: matrix stride {stride} does not hold its vectors"));
                    return FieldTy::Bytes(stride.saturating_mul(vectors));
                }
                FieldTy::Array(Box::new(FieldTy::Array(Box::new(FieldTy::Scalar(*scalar)), stride / size)), vectors)
            }
            Ty::Array { element, len, stride } => {
                let element = self.lower_ty(element, context, depth + 1);
                let element = self.pad_to_stride(element, *stride, context, "");
                FieldTy::Array(Box::new(element), *len)
            }
            Ty::RuntimeArray { stride, .. } => {
                self.out.problems.push(format!("{context}: a runtime-sized array that is not a block's last member"));
                FieldTy::Bytes(*stride)
            }
            Ty::Struct(index) => FieldTy::Struct(self.lower_struct(*index, context, None, depth + 1)),
            Ty::Opaque { size, why } => {
                self.out.problems.push(format!("{context}: {why}; kept as {size} bytes"));
                FieldTy::Bytes(*size)
            }
        }
    }

    /// `element` as an array element `stride` bytes apart: itself, or a struct that pads it.
    fn pad_to_stride(&mut self, element: FieldTy, stride: u32, context: &str, member: &str) -> FieldTy {
        let (size, align) = self.out.size_align(&element);
        if size == stride {
            return element;
        }
        if size > stride || !stride.is_multiple_of(align) {
            self.out
                .problems
                .push(format!("{context}{member}: array stride {stride} cannot hold its {size}-byte element"));
            return FieldTy::Bytes(stride);
        }
        if let Some(&index) = self.padded.get(&(element.clone(), stride)) {
            return FieldTy::Struct(index);
        }
        let name = names::unique(format!("{}Stride{stride}", self.out.short_name(&element)), &mut self.taken);
        let fields =
            vec![Field { name: "value".to_owned(), ty: element.clone(), offset: 0, padding: false, note: None }];
        let index = self.finish(RustStruct::new(name, Role::Padded, fields), Some(stride));
        self.padded.insert((element, stride), index);
        FieldTy::Struct(index)
    }

    /// [`place`](Lowered::place)s `rust` and stores it.
    fn finish(&mut self, mut rust: RustStruct, end: Option<u32>) -> usize {
        self.out.place(&mut rust, end);
        // glslang's std140 and std430 copies of a struct that come out the same are one Rust type.
        let same = |other: &RustStruct| {
            other.shader_name == rust.shader_name
                && other.role == rust.role
                && other.fields == rust.fields
                && (other.size, other.align) == (rust.size, rust.align)
        };
        if let Some(index) = self.out.structs.iter().position(same) {
            self.taken.remove(&rust.name);
            return index;
        }
        self.out.structs.push(rust);
        self.out.structs.len() - 1
    }
}

impl Lowered {
    /// Pads `rust` before each field and at the end (to `end` where given, then to the alignment), and sizes it.
    pub(crate) fn place(&mut self, rust: &mut RustStruct, end: Option<u32>) {
        let mut placed = Vec::new();
        let mut cursor = 0u32;
        let mut align = 1u32;
        let mut pads = 0;
        for mut field in std::mem::take(&mut rust.fields) {
            let (size, field_align) = self.size_align(&field.ty);
            if field.offset < cursor {
                self.problems.push(format!(
                    "{}.{}: offset {} overlaps the member before it, which ends at {cursor}",
                    rust.name, field.name, field.offset
                ));
                continue;
            }
            if !field.offset.is_multiple_of(field_align) {
                self.problems.push(format!(
                    "{}.{}: offset {} is not a multiple of its Rust alignment {field_align}; kept as bytes",
                    rust.name, field.name, field.offset
                ));
                field.ty = FieldTy::Bytes(size);
            }
            let field_align = self.size_align(&field.ty).1;
            if field.offset > cursor {
                placed.push(padding(&mut pads, cursor, field.offset - cursor));
            }
            align = align.max(field_align);
            cursor = field.offset.saturating_add(size);
            placed.push(field);
        }
        if let Some(end) = end.filter(|end| *end > cursor) {
            placed.push(padding(&mut pads, cursor, end - cursor));
            cursor = end;
        }
        let size = cursor.div_ceil(align).saturating_mul(align);
        if size > cursor {
            placed.push(padding(&mut pads, cursor, size - cursor));
        }
        rust.fields = placed;
        rust.size = size;
        rust.align = align;
    }
}

/// The `_padN` field of `bytes` at `offset`, `count` the padding so far.
fn padding(count: &mut usize, offset: u32, bytes: u32) -> Field {
    let name = format!("_pad{count}");
    *count += 1;
    Field { name, ty: FieldTy::Bytes(bytes), offset, padding: true, note: None }
}

/// What a field's doc says beyond its name.
fn note_of(ty: &Ty) -> Option<String> {
    match ty {
        Ty::Scalar(Scalar::Bool) => Some("A shader `bool`: 0 or 1.".to_owned()),
        Ty::Scalar(Scalar::F16) => Some("A `float16_t`: its bits.".to_owned()),
        Ty::Matrix { columns, rows, stride, row_major, .. } => Some(format!(
            "A {columns}×{rows} matrix, {}, {stride} bytes per {}.",
            if *row_major { "row-major" } else { "column-major" },
            if *row_major { "row" } else { "column" }
        )),
        _ => None,
    }
}
