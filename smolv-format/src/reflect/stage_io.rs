//! What one shader stage hands the next: the user-defined inputs and
//! outputs of an entry point by location, and whether a pair of stages
//! agrees on them (Vulkan's interface matching, for the case a hot reload
//! meets: a varying removed or retyped in one file of a program).

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
}

impl StageInterface {
    /// An interface of `stage` with no inputs or outputs.
    ///
    /// ```
    /// use smolv_format::reflect::{ShaderStage, StageInterface};
    /// assert!(StageInterface::new(ShaderStage::Vertex).outputs.is_empty());
    /// ```
    pub fn new(stage: ShaderStage) -> Self {
        Self { stage, inputs: Vec::new(), outputs: Vec::new() }
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
    /// An input no output has at its location and component is unmatched,
    /// unless `before` writes a struct (whose members this does not
    /// follow). Both sides must have the same format where both are known.
    /// Outputs nothing reads are fine.
    ///
    /// ```
    /// use smolv_format::reflect::{ShaderStage, StageInterface, StageVariable};
    /// let (vertex, fragment) = (StageInterface::new(ShaderStage::Vertex), StageInterface::new(ShaderStage::Fragment));
    /// assert_eq!(fragment.unmatched_input(&vertex), None);
    /// ```
    pub fn unmatched_input(&self, before: &Self) -> Option<StageMismatch> {
        let writes_structs = before.outputs.iter().any(|v| v.format == 0);
        for input in &self.inputs {
            let written =
                before.outputs.iter().find(|o| (o.location, o.component) == (input.location, input.component));
            let problem = match written {
                None if writes_structs => continue,
                None => Problem::NotWritten,
                Some(output) if output.format != 0 && input.format != 0 && output.format != input.format => {
                    Problem::Retyped { written: output.clone() }
                }
                Some(_) => continue,
            };
            return Some(StageMismatch { writer: before.stage, reader: self.stage, input: input.clone(), problem });
        }
        None
    }
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
