//! What one shader stage hands the next: the user-defined inputs and
//! outputs of an entry point by location, and whether a pair of stages
//! agrees on them (Vulkan's interface matching, for the case a hot reload
//! meets: a varying removed or retyped in one file of a program).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::binary::ReflectionError;
use super::interface::ScalarKind;
use super::spirv::{stage_interface, vk_format};
use super::types::ShaderStage;

/// One location of a user-defined input or output of a stage (a varying).
///
/// ```
/// use smolv_format::reflect::StageInterface;
/// let interface = StageInterface::from_spirv(&smolv_format::doc_example_module())?;
/// assert!(interface.inputs.is_empty(), "a compute shader has none");
/// # Ok::<(), smolv_format::reflect::ReflectionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct StageVariable {
    /// `layout(location = ...)`; an array or a matrix takes one entry per
    /// location.
    pub location: u32,
    /// `layout(component = ...)`, 0 without one.
    pub component: u32,
    /// The `VkFormat` of one location's worth (as
    /// [`InterfaceVariable::format`](super::InterfaceVariable::format));
    /// 0 for a struct, whose members this does not follow.
    pub format: u32,
    /// The variable's name; empty without debug names.
    pub name: String,
}

/// The user-defined inputs and outputs of a module's first entry point,
/// sorted by location: what the stage before it must write and the stage
/// after it may read. Built-ins are left out, and the outer per-vertex
/// array of tessellation and geometry variables is taken off.
///
/// ```
/// use smolv_format::reflect::{ShaderStage, StageInterface};
/// let interface = StageInterface::from_spirv(&smolv_format::doc_example_module())?;
/// assert_eq!(interface.stage, ShaderStage::Compute);
/// # Ok::<(), smolv_format::reflect::ReflectionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct StageInterface {
    /// The entry point's stage.
    pub stage: ShaderStage,
    /// What it reads from the stage before it.
    pub inputs: Vec<StageVariable>,
    /// What it writes for the stage after it.
    pub outputs: Vec<StageVariable>,
    /// Whether it also writes outputs whose locations this reflection does
    /// not follow: a block whose members carry their own `Location`s.
    /// [`unmatched_input`](Self::unmatched_input) then refuses no input
    /// for not being written.
    pub unplaced_outputs: bool,
}

impl StageInterface {
    /// An interface of `stage` with no inputs or outputs.
    ///
    /// ```
    /// use smolv_format::reflect::{ShaderStage, StageInterface};
    /// assert!(StageInterface::new(ShaderStage::Vertex).outputs.is_empty());
    /// ```
    pub fn new(stage: ShaderStage) -> Self {
        Self { stage, inputs: Vec::new(), outputs: Vec::new(), unplaced_outputs: false }
    }

    /// Reads the interface of a SPIR-V module's first entry point: the
    /// variables of its `OpEntryPoint` interface in the `Input` and
    /// `Output` storage classes that carry a `Location`.
    ///
    /// # Errors
    /// [`ReflectionError::NotSpirv`] and [`ReflectionError::NoEntryPoint`],
    /// as [`Reflection::from_spirv`](super::Reflection::from_spirv).
    ///
    /// ```
    /// use smolv_format::reflect::StageInterface;
    /// assert!(StageInterface::from_spirv(&[1, 2, 3]).is_err());
    /// ```
    pub fn from_spirv(spirv: &[u32]) -> Result<Self, ReflectionError> {
        stage_interface(spirv)
    }

    /// The first input of `self` that `before`, the stage that runs before
    /// it, does not write with the same type; `None` where the two match.
    ///
    /// Matching is per component, as Vulkan's: every component an input
    /// reads (from its `Component` on, two per element of a 64-bit type,
    /// spilling into the next location) must be written at that location
    /// and component, with the same scalar kind (float, int, uint) and
    /// width. An output may be wider than the input that reads it, and two
    /// outputs may make up one input. Outputs nothing reads are fine.
    ///
    /// Where `before` writes something this cannot place (a struct, or a
    /// block whose members carry the locations: see
    /// [`unplaced_outputs`](Self::unplaced_outputs)), an input is refused
    /// only for a component written with another type, never for one not
    /// written. A struct input needs only something written at its first
    /// location.
    ///
    /// ```
    /// use smolv_format::reflect::{ShaderStage, StageInterface, StageVariable};
    /// let (vertex, fragment) = (StageInterface::new(ShaderStage::Vertex), StageInterface::new(ShaderStage::Fragment));
    /// assert_eq!(fragment.unmatched_input(&vertex), None);
    /// ```
    pub fn unmatched_input(&self, before: &Self) -> Option<StageMismatch> {
        let written = Coverage::of(&before.outputs);
        let fail_open = before.unplaced_outputs || before.outputs.iter().any(|v| v.format == 0);
        for input in &self.inputs {
            let problem = if input.format == 0 {
                // A struct: its members' types are not followed.
                if fail_open || written.at_location(input.location) {
                    continue;
                }
                Problem::NotWritten
            } else {
                let Some(components) = components(input) else { continue };
                let mut any_written = None;
                let mut all_match = true;
                for (location, component, scalar) in components {
                    match written.get(location, component) {
                        Some((found, index)) => {
                            any_written.get_or_insert(index);
                            all_match &= found == scalar;
                        }
                        None => all_match &= fail_open,
                    }
                }
                match any_written {
                    _ if all_match => continue,
                    Some(index) => Problem::Retyped { written: before.outputs[index].clone() },
                    None => Problem::NotWritten,
                }
            };
            return Some(StageMismatch { writer: before.stage, reader: self.stage, input: input.clone(), problem });
        }
        None
    }
}

/// A scalar type as interface matching compares it: kind and bit width.
type Scalar = (ScalarKind, u32);

/// Which output writes each component of each location, and with which
/// scalar type.
struct Coverage(BTreeMap<(u32, u32), (Scalar, usize)>);

impl Coverage {
    /// The components `outputs` write (the first output wins where two
    /// overlap, which Vulkan does not allow anyway).
    fn of(outputs: &[StageVariable]) -> Self {
        let mut map = BTreeMap::new();
        for (index, output) in outputs.iter().enumerate() {
            for (location, component, scalar) in components(output).into_iter().flatten() {
                map.entry((location, component)).or_insert((scalar, index));
            }
        }
        Self(map)
    }

    fn get(&self, location: u32, component: u32) -> Option<(Scalar, usize)> {
        self.0.get(&(location, component)).copied()
    }

    fn at_location(&self, location: u32) -> bool {
        self.0.range((location, 0)..(location, 4)).next().is_some()
    }
}

/// The (location, component, scalar type) of each 32-bit component
/// `variable` takes; a 64-bit element takes two, and components past the
/// fourth go on in the next location. `None` for a struct or a format
/// that is not a vector of numbers.
fn components(variable: &StageVariable) -> Option<Vec<(u32, u32, Scalar)>> {
    let (kind, width, count) = format_parts(variable.format)?;
    let per_element = if width == 64 { 2 } else { 1 };
    let taken = count * per_element;
    let mut out = Vec::new();
    for i in 0..taken {
        let slot = variable.component.checked_add(i)?;
        out.push((variable.location.checked_add(slot / 4)?, slot % 4, (kind, width)));
    }
    Some(out)
}

/// The scalar kind, width and component count of a `VkFormat` that
/// [`vk_format`] makes.
fn format_parts(format: u32) -> Option<(ScalarKind, u32, u32)> {
    if format == 0 {
        return None;
    }
    [ScalarKind::Float, ScalarKind::Sint, ScalarKind::Uint].into_iter().find_map(|kind| {
        [32, 16, 64]
            .into_iter()
            .find_map(|width| (1..=4).find(|&n| vk_format(kind, width, n) == format).map(|n| (kind, width, n)))
    })
}

/// Why an input does not match: see [`StageMismatch`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Problem {
    NotWritten,
    Retyped { written: StageVariable },
}

/// An input of one stage that the stage before it does not write, or
/// writes with another type. It displays as one sentence that names both
/// stages and the location:
/// ``the fragment shader reads location 0 (`v_color`, vec4), which the
/// vertex shader does not write``.
///
/// ```
/// use smolv_format::reflect::{ShaderStage, StageInterface};
/// let vertex = StageInterface::new(ShaderStage::Vertex);
/// let fragment = StageInterface::new(ShaderStage::Fragment);
/// assert!(fragment.unmatched_input(&vertex).is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageMismatch {
    writer: ShaderStage,
    reader: ShaderStage,
    input: StageVariable,
    problem: Problem,
}

impl StageMismatch {
    /// The stage that writes the location (or should).
    pub fn writer(&self) -> ShaderStage {
        self.writer
    }

    /// The stage that reads it.
    pub fn reader(&self) -> ShaderStage {
        self.reader
    }

    /// The input that is not matched.
    pub fn input(&self) -> &StageVariable {
        &self.input
    }
}

impl fmt::Display for StageMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (writer, reader, input) = (self.writer.name(), self.reader.name(), &self.input);
        match &self.problem {
            Problem::NotWritten => write!(
                f,
                "the {reader} shader reads location {}{} ({}), which the {writer} shader does not write",
                input.location,
                component(input),
                Described(input)
            ),
            Problem::Retyped { written } => write!(
                f,
                "location {}{} is {} in the {writer} shader but {} in the {reader} shader",
                input.location,
                component(input),
                Described(written),
                Described(input)
            ),
        }
    }
}

/// `, component N` where the variable has one.
fn component(variable: &StageVariable) -> String {
    if variable.component == 0 { String::new() } else { alloc::format!(", component {}", variable.component) }
}

/// A variable as `` `name`, vec4 `` (or its type alone, without a name).
struct Described<'a>(&'a StageVariable);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.name.is_empty() {
            write!(f, "`{}`, ", self.0.name.escape_debug())?;
        }
        type_name(self.0.format, f)
    }
}

/// The GLSL name of the type of `format` (`vec4`, `ivec2`, `uint`), or the
/// format's number where none fits.
fn type_name(format: u32, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    const KINDS: [(ScalarKind, &str, &str); 3] =
        [(ScalarKind::Float, "float", "vec"), (ScalarKind::Sint, "int", "ivec"), (ScalarKind::Uint, "uint", "uvec")];
    for (kind, scalar, vector) in KINDS {
        for width in [32, 16, 64] {
            for count in 1..=4 {
                if format != 0 && vk_format(kind, width, count) == format {
                    return match (width, count) {
                        (32, 1) => f.write_str(scalar),
                        (32, _) => write!(f, "{vector}{count}"),
                        (_, 1) => write!(f, "{width}-bit {scalar}"),
                        (_, _) => write!(f, "{count} × {width}-bit {scalar}"),
                    };
                }
            }
        }
    }
    if format == 0 { f.write_str("a struct") } else { write!(f, "VkFormat {format}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    /// A module of `model` (0 vertex, 4 fragment) with one variable of
    /// storage class `storage` (1 input, 3 output) at `location`: a vector
    /// of `count` floats named `v`, and a built-in beside it.
    fn module(model: u32, storage: u32, location: u32, count: u32) -> Vec<u32> {
        let mut m = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
        let mut inst = |op: u32, operands: &[u32]| {
            m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
            m.extend_from_slice(operands);
        };
        inst(17, &[1]); // OpCapability Shader
        inst(14, &[0, 1]); // OpMemoryModel
        inst(15, &[model, 1, 0x6E69_616D, 0, 6, 9]); // OpEntryPoint %1 "main" %6 %9
        inst(5, &[6, u32::from_le_bytes(*b"v\0\0\0")]); // OpName %6 "v"
        inst(71, &[6, 30, location]); // OpDecorate %6 Location
        inst(71, &[9, 11, 0]); // OpDecorate %9 BuiltIn Position
        inst(22, &[2, 32]); // %2 = OpTypeFloat 32
        inst(23, &[3, 2, count]); // %3 = OpTypeVector %2 count
        inst(32, &[4, storage, 3]); // %4 = OpTypePointer storage %3
        inst(59, &[4, 6, storage]); // %6 = OpVariable %4 storage
        inst(59, &[4, 9, storage]); // %9 = OpVariable %4 storage (built-in)
        inst(59, &[4, 10, storage]); // %10: not in the entry point's interface
        inst(71, &[10, 30, 7]); // OpDecorate %10 Location 7
        m
    }

    /// The interface of a module of `model` (0 vertex, 4 fragment) with
    /// one variable per `(storage, location, component, type)` (storage 1
    /// input, 3 output; type as GLSL: `vec3`, `ivec2`, `uint`, `dvec4`),
    /// and, with `block`, an output block whose members carry locations 0
    /// and 1 (the variable none).
    fn stage(model: u32, vars: &[(u32, u32, u32, &str)], block: bool) -> StageInterface {
        let mut m = vec![0x0723_0203, 0x0001_0000, 0, 1000, 0];
        let inst = |m: &mut Vec<u32>, op: u32, operands: &[u32]| {
            m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
            m.extend_from_slice(operands);
        };
        let mut body = Vec::new();
        let mut ids = Vec::new();
        let mut next = 10;
        for &(storage, location, component, ty) in vars {
            let (scalar, vector, pointer, variable) = (next, next + 1, next + 2, next + 3);
            next += 4;
            let (prefix, count) = ty.split_at(ty.find("vec").map_or(0, |i| i));
            let count = count.strip_prefix("vec").map_or(1, |n| n.parse().unwrap());
            match (prefix, ty) {
                ("i", _) | (_, "int") => inst(&mut body, 21, &[scalar, 32, 1]),
                ("u", _) | (_, "uint") => inst(&mut body, 21, &[scalar, 32, 0]),
                ("d", _) | (_, "double") => inst(&mut body, 22, &[scalar, 64]),
                _ => inst(&mut body, 22, &[scalar, 32]),
            }
            inst(&mut body, 23, &[vector, scalar, count]);
            inst(&mut body, 32, &[pointer, storage, if count == 1 { scalar } else { vector }]);
            inst(&mut body, 59, &[pointer, variable, storage]);
            inst(&mut body, 71, &[variable, 30, location]);
            if component != 0 {
                inst(&mut body, 71, &[variable, 31, component]);
            }
            ids.push(variable);
        }
        if block {
            let (float, vector, strukt, pointer, variable) = (next, next + 1, next + 2, next + 3, next + 4);
            inst(&mut body, 22, &[float, 32]);
            inst(&mut body, 23, &[vector, float, 4]);
            inst(&mut body, 30, &[strukt, vector, vector]);
            inst(&mut body, 71, &[strukt, 2]); // Block
            inst(&mut body, 72, &[strukt, 0, 30, 0]); // member 0: Location 0
            inst(&mut body, 72, &[strukt, 1, 30, 1]); // member 1: Location 1
            inst(&mut body, 32, &[pointer, 3, strukt]);
            inst(&mut body, 59, &[pointer, variable, 3]);
            ids.push(variable);
        }
        inst(&mut m, 17, &[1]); // OpCapability Shader
        inst(&mut m, 14, &[0, 1]); // OpMemoryModel
        let mut entry = vec![model, 1, 0x6E69_616D, 0];
        entry.extend(ids);
        inst(&mut m, 15, &entry);
        m.extend(body);
        StageInterface::from_spirv(&m).unwrap()
    }

    #[test]
    fn inputs_match_outputs_per_component_as_vulkan_does() {
        let vertex = |vars: &[(u32, u32, u32, &str)]| stage(0, vars, false);
        let fragment = |vars: &[(u32, u32, u32, &str)]| stage(4, vars, false);
        // A wider output than the input that reads it.
        assert_eq!(fragment(&[(1, 0, 0, "vec3")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])), None);
        // An input at component 2 inside a wider output.
        assert_eq!(fragment(&[(1, 0, 2, "vec2")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])), None);
        assert_eq!(fragment(&[(1, 0, 3, "float")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])), None);
        // Two outputs read as one input.
        let two_halves = vertex(&[(3, 0, 0, "vec2"), (3, 0, 2, "vec2")]);
        assert_eq!(fragment(&[(1, 0, 0, "vec4")]).unmatched_input(&two_halves), None);
        // A 64-bit vec4 takes two locations; its second half is readable.
        let dvec4 = vertex(&[(3, 0, 0, "dvec4")]);
        assert_eq!(fragment(&[(1, 1, 0, "dvec2")]).unmatched_input(&dvec4), None);
        assert_eq!(fragment(&[(1, 2, 0, "double")]).unmatched_input(&dvec4).unwrap().input().location, 2);

        // Refused: a component nothing writes, another kind, another width.
        let half = vertex(&[(3, 0, 0, "vec2")]);
        let missing = fragment(&[(1, 0, 2, "vec2")]).unmatched_input(&half).unwrap();
        assert_eq!(
            missing.to_string(),
            "the fragment shader reads location 0, component 2 (vec2), which the vertex shader does not write"
        );
        assert_eq!(
            fragment(&[(1, 0, 0, "vec4")]).unmatched_input(&half).unwrap().to_string(),
            "location 0 is vec2 in the vertex shader but vec4 in the fragment shader"
        );
        assert_eq!(
            fragment(&[(1, 0, 0, "ivec2")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])).unwrap().to_string(),
            "location 0 is vec4 in the vertex shader but ivec2 in the fragment shader"
        );
        assert_eq!(
            fragment(&[(1, 0, 0, "uint")]).unmatched_input(&vertex(&[(3, 0, 0, "ivec2")])).unwrap().to_string(),
            "location 0 is ivec2 in the vertex shader but uint in the fragment shader"
        );
        assert!(fragment(&[(1, 0, 0, "double")]).unmatched_input(&vertex(&[(3, 0, 0, "vec2")])).is_some());
    }

    #[test]
    fn an_output_block_with_member_locations_makes_no_input_unwritten() {
        let block = stage(0, &[], true);
        assert!(block.unplaced_outputs && block.outputs.is_empty());
        let reads = stage(4, &[(1, 0, 0, "vec4"), (1, 1, 0, "vec4")], false);
        assert_eq!(reads.unmatched_input(&block), None);
        // A placed output still refuses another type.
        let mixed = stage(0, &[(3, 2, 0, "ivec4")], true);
        assert!(stage(4, &[(1, 2, 0, "vec4")], false).unmatched_input(&mixed).is_some());
        // Without the block, the same inputs are not written.
        assert!(reads.unmatched_input(&stage(0, &[], false)).is_some());
        // gl_PerVertex-style built-in blocks are no unplaced outputs.
        assert!(!StageInterface::from_spirv(&module(0, 3, 0, 4)).unwrap().unplaced_outputs);
    }

    #[test]
    fn a_module_s_varyings_are_read_by_location_without_built_ins() {
        let vertex = StageInterface::from_spirv(&module(0, 3, 2, 4)).unwrap();
        assert_eq!(vertex.stage, ShaderStage::Vertex);
        assert!(vertex.inputs.is_empty());
        let expected = StageVariable { location: 2, component: 0, format: 109, name: "v".into() };
        assert_eq!(vertex.outputs, [expected]);
    }

    #[test]
    fn an_input_the_stage_before_does_not_write_or_retypes_is_named_with_both_stages() {
        let fragment = StageInterface::from_spirv(&module(4, 1, 0, 4)).unwrap();
        let writes_0 = StageInterface::from_spirv(&module(0, 3, 0, 4)).unwrap();
        assert_eq!(fragment.unmatched_input(&writes_0), None);

        let writes_1 = StageInterface::from_spirv(&module(0, 3, 1, 4)).unwrap();
        let missing = fragment.unmatched_input(&writes_1).unwrap();
        assert_eq!(
            (missing.writer(), missing.reader(), missing.input().location),
            (ShaderStage::Vertex, ShaderStage::Fragment, 0)
        );
        assert_eq!(
            missing.to_string(),
            "the fragment shader reads location 0 (`v`, vec4), which the vertex shader does not write"
        );

        let writes_vec3 = StageInterface::from_spirv(&module(0, 3, 0, 3)).unwrap();
        assert_eq!(
            fragment.unmatched_input(&writes_vec3).unwrap().to_string(),
            "location 0 is `v`, vec3 in the vertex shader but `v`, vec4 in the fragment shader"
        );
        // Unread outputs are fine.
        assert_eq!(StageInterface::new(ShaderStage::Fragment).unmatched_input(&writes_1), None);
    }
}
