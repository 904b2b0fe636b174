//! The rest of a module's interface as Rust items: bindings, push constants, workgroup size, spec constants, inputs.

use std::collections::BTreeSet;
use std::fmt::Write;

use smolv_format::reflect::{DescriptorBinding, ShaderStage, SpecConstantType};

use super::escape;
use super::layout::{Mangling, ModuleInput, Scalar};
use super::lower::{Field, FieldTy, Lowered, Role, RustStruct};
use super::names;

/// A vertex attribute: location, `VkFormat`, offset.
pub(crate) type Attribute = (u32, u32, u32);

/// The plain-data types the module constants use, once at the top.
pub(crate) const SHARED_ITEMS: &str = "\
/// The plain data that each shader module's constants use: smolv-runtime's
/// own, so that a constant goes to the Vulkan layer as it is.
#[allow(unreachable_pub)]
pub mod interface {
    #[allow(unused_imports)]
    pub use ::smolv_runtime::interface::{Binding, PushConstantRange, VertexAttribute, VertexBufferLayout};
}
";

/// The scalar and component count of a vertex `VkFormat`.
fn vertex_format(format: u32) -> Option<(Scalar, u32)> {
    // R, RG, RGB, RGBA for (uint, sint, sfloat) at 16, 32 and 64 bits:
    // VK_FORMAT_R16_UINT = 74 to VK_FORMAT_R64G64B64A64_SFLOAT = 121.
    let (base, scalars) = match format {
        74..=97 => (74, [Scalar::U16, Scalar::I16, Scalar::F16]),
        98..=109 => (98, [Scalar::U32, Scalar::I32, Scalar::F32]),
        110..=121 => (110, [Scalar::U64, Scalar::I64, Scalar::F64]),
        _ => return None,
    };
    let step = if base == 74 { 7 } else { 3 };
    let index = format - base;
    // The 16-bit rows also hold norm and scaled formats: `get` finds nothing.
    let (count, kind) = (index / step + 1, index % step);
    Some((*scalars.get(usize::try_from(kind).ok()?)?, count))
}

/// The vertex struct of a vertex module: one field per location, one interleaved buffer.
pub(crate) fn vertex_struct(input: &ModuleInput, lowered: &mut Lowered) -> Option<(usize, Vec<Attribute>)> {
    if input.reflection.stage != ShaderStage::Vertex || input.reflection.inputs.is_empty() {
        return None;
    }
    let (mut fields, mut attributes, mut taken) = (Vec::new(), Vec::new(), BTreeSet::new());
    let mut offset = 0u32;
    for variable in &input.reflection.inputs {
        let Some((scalar, count)) = vertex_format(variable.format) else {
            lowered.problems.push(format!(
                "vertex input at location {}: format {} has no Rust type; left out of the vertex",
                variable.location, variable.format
            ));
            continue;
        };
        let size = scalar.size();
        let aligned = offset.div_ceil(size) * size;
        let name = if variable.name.is_empty() {
            format!("location{}", variable.location)
        } else {
            names::snake(&names::demangle(&variable.name, input.mangling))
        };
        let ty =
            if count == 1 { FieldTy::Scalar(scalar) } else { FieldTy::Array(Box::new(FieldTy::Scalar(scalar)), count) };
        fields.push(Field {
            name: names::unique(name, &mut taken),
            ty,
            offset: aligned,
            padding: false,
            note: Some(format!("Location {}.", variable.location)),
        });
        attributes.push((variable.location, variable.format, aligned));
        offset = aligned + size * count;
    }
    // Padded where the fields leave gaps, as every struct is.
    let mut vertex = RustStruct::new("Vertex".to_owned(), Role::Vertex, fields);
    lowered.place(&mut vertex, None);
    lowered.structs.push(vertex);
    Some((lowered.structs.len() - 1, attributes))
}

/// Appends the module's constants and its spec-constant struct to `out`.
pub(crate) fn render_constants(out: &mut String, input: &ModuleInput, vertex: Option<(&[Attribute], u32)>) {
    let reflection = &input.reflection;
    let _ = writeln!(
        out,
        "    /// The module's name, as `include_shader!` takes it.\n    pub const NAME: &::core::primitive::str = {};\n    \
         /// Its shader stage.\n    pub const STAGE: ::smolv_runtime::reflect::ShaderStage = ::smolv_runtime::reflect::ShaderStage::{:?};\n",
        escape::string(&input.name),
        reflection.stage
    );
    let mut taken = BTreeSet::from(
        [
            "NAME",
            "STAGE",
            "BINDINGS",
            "PUSH_CONSTANTS",
            "WORKGROUP_SIZE",
            "WORKGROUP_SIZE_SPEC_IDS",
            "VERTEX_ATTRIBUTES",
            "VERTEX_STRIDE",
            "VERTEX_LAYOUT",
        ]
        .map(String::from),
    );
    let mut all = Vec::new();
    for binding in &reflection.bindings {
        let name = binding_constant(binding, input.mangling, &mut taken);
        let _ = writeln!(
            out,
            "    /// {}: set {}, binding {}.\n    pub const {name}: super::interface::Binding = {};",
            escape::code(&binding.name),
            binding.set,
            binding.binding,
            binding_value(binding)
        );
        all.push(name);
    }
    let _ = writeln!(
        out,
        "    /// Every descriptor binding, by set then binding.\n    pub const BINDINGS: [super::interface::Binding; {}] = [{}];\n",
        all.len(),
        all.join(", ")
    );
    let push = reflection.push_constants.iter().map(|p| (p.offset, p.offset.saturating_add(p.size), p.stages));
    let push = push.reduce(|(start, end, stages), (s, e, more)| (start.min(s), end.max(e), stages | more));
    let _ = writeln!(
        out,
        "    /// The push-constant bytes the module reads, with its own stage only; `None` where it\n    \
         /// reads none. A program's `PUSH_CONSTANTS` has the flags of all its stages.\n    \
         pub const PUSH_CONSTANTS: ::core::option::Option<super::interface::PushConstantRange> = {};\n",
        push_value(push)
    );
    let workgroup = input.interface.as_ref().and_then(|i| i.workgroup_size);
    if let Some(size) = workgroup {
        let [x, y, z] = size.size;
        let _ = writeln!(
            out,
            "    /// `local_size` without specialization.\n    pub const WORKGROUP_SIZE: [::core::primitive::u32; 3] = [{x}, {y}, {z}];\n    \
             /// The spec constant that sets each of x, y and z, where one does.\n    \
             pub const WORKGROUP_SIZE_SPEC_IDS: [::core::option::Option<::core::primitive::u32>; 3] = [{}];\n",
            size.spec_ids
                .map(|id| match id {
                    Some(id) => format!("::core::option::Option::Some({id})"),
                    None => "::core::option::Option::None".to_owned(),
                })
                .join(", ")
        );
    } else if let Some([x, y, z]) = reflection.workgroup_size {
        let _ = writeln!(
            out,
            "    /// `local_size`.\n    pub const WORKGROUP_SIZE: [::core::primitive::u32; 3] = [{x}, {y}, {z}];\n"
        );
    }
    render_spec_constants(out, input);
    if let Some((attributes, stride)) = vertex {
        let rows: Vec<String> = attributes
            .iter()
            .map(|(location, format, offset)| {
                format!(
                    "super::interface::VertexAttribute {{ location: {location}, format: {format}, offset: {offset} }}"
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "    /// The vertex inputs' attributes, for one interleaved buffer of [`Vertex`].\n    \
             pub const VERTEX_ATTRIBUTES: [super::interface::VertexAttribute; {}] = [{}];\n    \
             /// Bytes from one [`Vertex`] to the next.\n    pub const VERTEX_STRIDE: ::core::primitive::u32 = {};\n    \
             /// One per-vertex buffer of [`Vertex`], as `VertexInput::from_buffers` takes it.\n    \
             pub const VERTEX_LAYOUT: super::interface::VertexBufferLayout<'static> = \
             super::interface::VertexBufferLayout {{ stride: VERTEX_STRIDE, per_instance: false, attributes: &VERTEX_ATTRIBUTES }};\n\n    \
             impl Vertex {{\n        /// [`VERTEX_LAYOUT`]: a buffer of these, one per vertex.\n        \
             pub const LAYOUT: super::interface::VertexBufferLayout<'static> = VERTEX_LAYOUT;\n    }}\n",
            rows.len(),
            rows.join(", "),
            stride
        );
    }
}

/// The constant a binding is named by (`FRAME`, or `SET0_BINDING1`), unique among `taken`.
pub(crate) fn binding_constant(
    binding: &DescriptorBinding,
    mangling: Mangling,
    taken: &mut BTreeSet<String>,
) -> String {
    let name = names::demangle(&binding.name, mangling);
    let name = if name.is_empty() {
        format!("SET{}_BINDING{}", binding.set, binding.binding)
    } else {
        names::screaming(&name).trim_start_matches("r#").to_owned()
    };
    names::unique(name, taken)
}

/// A binding as a `super::interface::Binding` expression.
pub(crate) fn binding_value(binding: &DescriptorBinding) -> String {
    format!(
        "super::interface::Binding {{ set: {}, binding: {}, kind: ::smolv_runtime::reflect::DescriptorKind::{:?}, count: {}, stages: {:#x} }}",
        binding.set, binding.binding, binding.kind, binding.count, binding.stages
    )
}

/// A push-constant range `(start, end, stages)` as an `Option` expression.
pub(crate) fn push_value(range: Option<(u32, u32, u32)>) -> String {
    range.map_or("::core::option::Option::None".to_owned(), |(start, end, stages)| {
        format!(
            "::core::option::Option::Some(super::interface::PushConstantRange {{ offset: {start}, size: {}, stages: {stages:#x} }})",
            end.saturating_sub(start)
        )
    })
}

/// The spec constants as a struct whose `Default` is the shader's.
fn render_spec_constants(out: &mut String, input: &ModuleInput) {
    let constants = &input.reflection.spec_constants;
    if constants.is_empty() {
        return;
    }
    let mut taken = BTreeSet::new();
    let (mut fields, mut defaults, mut values) = (String::new(), String::new(), Vec::new());
    for constant in constants {
        let name = names::demangle(&constant.name, input.mangling);
        let name = if name.is_empty() { format!("constant{}", constant.id) } else { names::snake(&name) };
        let name = names::unique(name, &mut taken);
        let bits = constant.default;
        // 32-bit constants hold their value in the low 32 bits.
        let low = u32::try_from(bits & 0xFFFF_FFFF).unwrap_or_default();
        let (ty, default, variant, conversion) = match constant.ty {
            SpecConstantType::Bool => ("bool", (bits != 0).to_string(), "Bool", ""),
            SpecConstantType::I32 => ("i32", i32::from_ne_bytes(low.to_ne_bytes()).to_string(), "I32", ""),
            SpecConstantType::U32 => ("u32", low.to_string(), "U32", ""),
            SpecConstantType::F32 => ("f32", format!("::core::primitive::f32::from_bits({low:#x})"), "F32", ""),
            SpecConstantType::I64 => {
                ("i64", i64::from_ne_bytes(bits.to_ne_bytes()).to_string(), "Bits", " as ::core::primitive::u64")
            }
            SpecConstantType::F64 => {
                ("f64", format!("::core::primitive::f64::from_bits({bits:#x})"), "Bits", ".to_bits()")
            }
            // U64 and the 8- and 16-bit types: their bits.
            _ => ("u64", format!("{bits:#x}"), "Bits", ""),
        };
        let _ = writeln!(
            fields,
            "        /// {}, `constant_id = {}`.\n        pub {name}: ::core::primitive::{ty},",
            escape::code(&constant.name),
            constant.id
        );
        let _ = writeln!(defaults, "                {name}: {default},");
        values.push(format!("({}, Value::{variant}(self.{name}{conversion}))", constant.id));
    }
    let _ = writeln!(
        out,
        "    /// The module's specialization constants. `Default` gives the shader's\n    \
         /// own values; [`values`](Self::values) is what the specializer and\n    \
         /// `PipelineManager` take.\n    #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::cmp::PartialEq)]\n    pub struct SpecConstants {{\n{fields}    }}\n\n    \
         #[allow(clippy::derivable_impls)]\n    impl ::core::default::Default for SpecConstants {{\n        fn default() -> Self {{\n            Self {{\n{defaults}            }}\n        }}\n    }}\n\n    \
         impl SpecConstants {{\n        /// `(SpecId, value)` for each constant, by id.\n        \
         pub fn values(&self) -> [(::core::primitive::u32, ::smolv_runtime::specialize::Value); {n}] {{\n            \
         use ::smolv_runtime::specialize::Value;\n            [{values}]\n        }}\n    }}\n\n    \
         impl ::core::convert::From<SpecConstants> for ::std::vec::Vec<(::core::primitive::u32, ::smolv_runtime::specialize::Value)> {{\n        \
         fn from(constants: SpecConstants) -> Self {{\n            constants.values().to_vec()\n        }}\n    }}\n",
        n = values.len(),
        values = values.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_formats_map_to_their_rust_types() {
        assert_eq!(vertex_format(106), Some((Scalar::F32, 3))); // R32G32B32_SFLOAT
        assert_eq!(vertex_format(109), Some((Scalar::F32, 4)));
        assert_eq!(vertex_format(98), Some((Scalar::U32, 1)));
        assert_eq!(vertex_format(102), Some((Scalar::I32, 2)));
        assert_eq!(vertex_format(81), Some((Scalar::U16, 2))); // R16G16_UINT
        assert_eq!(vertex_format(90), Some((Scalar::F16, 3))); // R16G16B16_SFLOAT
        assert_eq!(vertex_format(118), Some((Scalar::F64, 3)));
        assert_eq!(vertex_format(37), None);
    }
}
