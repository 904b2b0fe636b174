//! What one shader stage hands the next, and whether two stages agree on it (Vulkan's interface matching).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::interface::ScalarKind;
use super::spirv::vk_format;
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
    /// `layout(location = ...)`: one entry per element or column.
    pub location: u32,
    /// `layout(component = ...)`, 0 without one.
    pub component: u32,
    /// Its `VkFormat` per location, as [`InterfaceVariable::format`](super::InterfaceVariable::format); 0 for a struct.
    pub format: u32,
    /// The variable's name; empty without debug names.
    pub name: String,
}

/// The user-defined inputs and outputs of a module's first entry point, sorted by location, without
/// built-ins and per-vertex arrays.
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
    /// Whether it also writes a block whose members carry the locations: then no input is refused as unwritten.
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

    /// The first input of `self` that `before` (the stage before) does not write with the same type, per component;
    /// with [`unplaced_outputs`](Self::unplaced_outputs) or structs, only one written with another type is refused.
    ///
    /// ```
    /// use smolv_format::reflect::{ShaderStage, StageInterface, StageVariable};
    /// let (vertex, fragment) = (StageInterface::new(ShaderStage::Vertex), StageInterface::new(ShaderStage::Fragment));
    /// assert_eq!(fragment.unmatched_input(&vertex), None);
    /// ```
    pub fn unmatched_input(&self, before: &Self) -> Option<StageMismatch> {
        // Which output writes each (location, component), with which scalar type; the first wins.
        let mut written = BTreeMap::new();
        for (index, output) in before.outputs.iter().enumerate() {
            for (location, component, scalar) in components(output).into_iter().flatten() {
                written.entry((location, component)).or_insert((scalar, index));
            }
        }
        let fail_open = before.unplaced_outputs || before.outputs.iter().any(|v| v.format == 0);
        for input in &self.inputs {
            let problem = if input.format == 0 {
                // A struct: its members' types are not followed.
                if fail_open || written.range((input.location, 0)..(input.location, 4)).next().is_some() {
                    continue;
                }
                Problem::NotWritten
            } else {
                let Some(components) = components(input) else { continue };
                let mut any_written = None;
                let mut all_match = true;
                for (location, component, scalar) in components {
                    match written.get(&(location, component)) {
                        Some(&(found, index)) => {
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

/// The (location, component, scalar) of each 32-bit component of `variable`; `None` for a struct or non-vector.
fn components(variable: &StageVariable) -> Option<Vec<(u32, u32, Scalar)>> {
    let (kind, width, count) = format_parts(variable.format)?;
    let taken = if width == 64 { 2 * count } else { count };
    (0..taken)
        .map(|i| {
            let slot = variable.component.checked_add(i)?;
            Some((variable.location.checked_add(slot / 4)?, slot % 4, (kind, width)))
        })
        .collect()
}

/// The scalar kind, width and component count of a `VkFormat` that [`vk_format`] makes.
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

/// An input that the stage before does not write, or writes with another type; it displays as one sentence.
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

/// The GLSL name of `format`'s type (`vec4`, `ivec2`, `uint`), or the format's number where none fits.
fn type_name(format: u32, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let Some((kind, width, count)) = format_parts(format) else {
        return if format == 0 { f.write_str("a struct") } else { write!(f, "VkFormat {format}") };
    };
    let (scalar, vector) = match kind {
        ScalarKind::Float => ("float", "vec"),
        ScalarKind::Sint => ("int", "ivec"),
        _ => ("uint", "uvec"),
    };
    match (width, count) {
        (32, 1) => f.write_str(scalar),
        (32, _) => write!(f, "{vector}{count}"),
        (_, 1) => write!(f, "{width}-bit {scalar}"),
        (_, _) => write!(f, "{count} × {width}-bit {scalar}"),
    }
}
