//! Specialization constants, folded ahead of time.
//!
//! Engines ship ubershaders whose features are switched by specialization
//! constants. [`Specializer::analyze`] parses a module once; each
//! [`Analysis::specialize`] call then produces, in one pass, a module where
//! the chosen values are plain constants, operations on them are folded,
//! branches on them are resolved (keeping structured control flow valid),
//! unreachable blocks and dead code are gone, and straight-line blocks are
//! merged.
//!
//! ```
//! use smolv_codec::specialize::{Specializer, Value};
//! # let module = smolv_codec::specialize::doc_ubershader();
//! let analysis = Specializer::analyze(&module)?;
//! assert_eq!(analysis.spec_ids(), vec![0]);
//! let specialized = analysis.specialize(&[(0, Value::Bool(false))])?;
//! assert!(specialized.len() < module.len());
//! # Ok::<(), smolv_codec::specialize::SpecializeError>(())
//! ```
//!
//! What it folds: bool and 32-bit integer arithmetic, bitwise, comparison,
//! logical, select and conversion operations, float comparisons and
//! negation (exact), and extracts from constant composites, in
//! `OpSpecConstantOp` and in function bodies alike. Conditional branches
//! and switches of selection constructs are resolved; loop headers keep
//! their structure. Decorations, names and entry-point interfaces of
//! removed ids are removed with them.

mod analysis;
mod emit;
mod fold;
mod value;

pub use analysis::{Analysis, Specializer};
// The value rule, which the runtime's driver paths apply too.
pub use fold::Scalar;
pub use value::{describe as describe_type, fit as fit_value};

/// A specialization value.
///
/// ```
/// use smolv_codec::specialize::Value;
/// assert_eq!(Value::from(true), Value::Bool(true));
/// assert_eq!(Value::from(3u32), Value::U32(3));
/// let half = Value::Bits(u64::from(0x3C00u16)); // a 16-bit float's bits
/// # let _ = half;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    /// For `bool` constants.
    Bool(bool),
    /// For signed 32-bit constants.
    I32(i32),
    /// For unsigned 32-bit constants.
    U32(u32),
    /// For 32-bit float constants.
    F32(f32),
    /// Raw bits, for any scalar type: the low 32 bits for 32-bit types.
    Bits(u64),
}

impl From<bool> for Value {
    fn from(value: bool) -> Self {
        Self::Bool(value)
    }
}

impl From<i32> for Value {
    fn from(value: i32) -> Self {
        Self::I32(value)
    }
}

impl From<u32> for Value {
    fn from(value: u32) -> Self {
        Self::U32(value)
    }
}

impl From<f32> for Value {
    fn from(value: f32) -> Self {
        Self::F32(value)
    }
}

impl Value {
    /// The value's bits as written, before any type is known: a bool is 0
    /// or 1, an `I32` its two's complement in 32 bits, an `F32` its IEEE
    /// bits ([`fit_value`] gives the bits for a type).
    ///
    /// ```
    /// use smolv_codec::specialize::Value;
    /// assert_eq!(Value::I32(-1).bits(), 0xFFFF_FFFF);
    /// assert_eq!(Value::F32(1.0).bits(), 0x3F80_0000);
    /// ```
    #[must_use]
    pub fn bits(self) -> u64 {
        match self {
            Self::Bool(b) => u64::from(b),
            Self::I32(v) => u64::from(v as u32),
            Self::U32(v) => u64::from(v),
            Self::F32(v) => u64::from(v.to_bits()),
            Self::Bits(v) => v,
        }
    }
}

/// Why a module could not be analyzed or specialized.
///
/// ```
/// use smolv_codec::specialize::{SpecializeError, Specializer, Value};
/// # let ubershader = smolv_codec::specialize::doc_ubershader();
/// let analysis = Specializer::analyze(&ubershader)?;
/// let error = analysis.specialize(&[(0, Value::F32(1.0))]).unwrap_err();
/// assert_eq!(error, SpecializeError::WrongType(0, "a bool"));
/// # Ok::<(), SpecializeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecializeError {
    /// Not a SPIR-V module.
    #[error("not a SPIR-V module: {0}; pass the words of a .spv file")]
    NotSpirv(&'static str),
    /// The module is malformed where the specializer needs to read it.
    #[error("malformed SPIR-V at word {offset}: {reason}; check the module with spirv-val")]
    Malformed {
        /// Word offset.
        offset: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A value was given for a spec id the module does not declare.
    #[error("the module has no specialization constant with id {0}; its ids are listed by Analysis::spec_ids")]
    UnknownSpecId(u32),
    /// A value that does not fit its constant's type: a float for an
    /// integer, an integer out of range, a bool other than 0 or 1, … The
    /// rule is the one the Vulkan layer applies before the driver
    /// (`VulkanError::SpecConstantValue`): a bool takes `Bool`, or 0 and 1;
    /// an integer `I32` or `U32` in range, or `Bool`; a float `F32`; any
    /// type `Bits` that fit its width.
    #[error(
        "specialization constant {0} is {1}, which cannot hold the value given; pass a value of that type \
         (Value::Bits with the raw bits for 64-bit types)"
    )]
    WrongType(u32, &'static str),
    /// An array type whose length, with the values given, folds to 0 or
    /// less: SPIR-V requires at least 1.
    #[error(
        "the array type %{array} has length {length} with these specialization values; SPIR-V needs at least 1: \
         give the constants its length is computed from values that make it positive"
    )]
    ArrayLength {
        /// The result id of the `OpTypeArray`.
        array: u32,
        /// Its length as folded, read as its type's signedness says.
        length: i64,
    },
    /// The module is larger than the specializer's compact 32-bit
    /// instruction tables hold.
    #[error("the module is {words} words long; the specializer takes modules of up to {max} words (4 GiB)")]
    TooLarge {
        /// The module's length in words.
        words: usize,
        /// The most words it takes.
        max: usize,
    },
}

/// A tiny fragment shader with one bool specialization constant guarding a
/// branch, for the documentation examples.
#[doc(hidden)]
pub fn doc_ubershader() -> alloc::vec::Vec<u32> {
    alloc::vec![
        0x0723_0203,
        0x0001_0000,
        0,
        13,
        0, // header
        0x0002_0011,
        1, // OpCapability Shader
        0x0003_000E,
        0,
        1, // OpMemoryModel Logical GLSL450
        0x0005_000F,
        4,
        1,
        0x6E69_616D,
        0, // OpEntryPoint Fragment %1 "main"
        0x0003_0010,
        1,
        7, // OpExecutionMode %1 OriginUpperLeft
        0x0004_0047,
        5,
        1,
        0, // OpDecorate %5 SpecId 0
        0x0002_0013,
        2, // %2 = OpTypeVoid
        0x0003_0021,
        3,
        2, // %3 = OpTypeFunction %2
        0x0002_0014,
        4, // %4 = OpTypeBool
        0x0003_0030,
        4,
        5, // %5 = OpSpecConstantTrue %4
        0x0005_0036,
        2,
        1,
        0,
        3, // %1 = OpFunction %2 None %3
        0x0002_00F8,
        6, // %6 = OpLabel
        0x0003_00F7,
        8,
        0, // OpSelectionMerge %8 None
        0x0004_00FA,
        5,
        7,
        8, // OpBranchConditional %5 %7 %8
        0x0002_00F8,
        7, // %7 = OpLabel
        0x0002_00F9,
        8, // OpBranch %8
        0x0002_00F8,
        8,           // %8 = OpLabel
        0x0001_00FD, // OpReturn
        0x0001_0038, // OpFunctionEnd
    ]
}
