//! Specialization constants folded ahead of time: [`Specializer::analyze`] parses a module once, and each
//! [`Analysis::specialize`] writes it with the values as constants, folded, without dead code.
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

macro_rules! value_from {
    ($($ty:ty => $variant:ident),*) => {$(
        impl From<$ty> for Value {
            fn from(value: $ty) -> Self {
                Self::$variant(value)
            }
        }
    )*};
}

value_from!(bool => Bool, i32 => I32, u32 => U32, f32 => F32);

impl Value {
    /// The value's bits as written, before any type is known ([`fit_value`] gives a type's).
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
    /// A value that does not fit its constant's type ([`fit_value`]'s rule).
    #[error(
        "specialization constant {0} is {1}, which cannot hold the value given; pass a value of that type \
         (Value::Bits with the raw bits for 64-bit types)"
    )]
    WrongType(u32, &'static str),
    /// An array type whose length, with the values given, folds to 0 or less.
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
    /// The module is larger than the specializer's 32-bit instruction tables hold.
    #[error("the module is {words} words long; the specializer takes modules of up to {max} words (4 GiB)")]
    TooLarge {
        /// The module's length in words.
        words: usize,
        /// The most words it takes.
        max: usize,
    },
}

/// The documentation examples' fragment shader: a branch on `%5 = OpSpecConstantTrue %4` (`SpecId` 0).
#[doc(hidden)]
pub fn doc_ubershader() -> alloc::vec::Vec<u32> {
    alloc::vec![
        0x07230203, 0x00010000, 0, 13, 0, 0x00020011, 1, 0x0003000E, 0, 1, 0x0005000F, 4, 1, 0x6E69616D, 0, 0x00030010,
        1, 7, 0x00040047, 5, 1, 0, 0x00020013, 2, 0x00030021, 3, 2, 0x00020014, 4, 0x00030030, 4, 5, 0x00050036, 2, 1,
        0, 3, 0x000200F8, 6, 0x000300F7, 8, 0, 0x000400FA, 5, 7, 8, 0x000200F8, 7, 0x000200F9, 8, 0x000200F8, 8,
        0x000100FD, 0x00010038
    ]
}
