//! SMOL-V: SPIR-V ⇄ SMOL-V, the encoding of
//! [aras-p/smol-v](https://github.com/aras-p/smol-v).
//!
//! SMOL-V (Aras Pranckevičius, <https://github.com/aras-p/smol-v>) is a
//! lossless re-encoding of SPIR-V that is about a third of its size and
//! compresses better with general-purpose compressors. This module writes
//! encoding version 1 byte-for-byte as the reference encoder does, and
//! reads every version the reference has written: version 1, version 0
//! and the 2016-08-31 dialect of version 0.
//!
//! Unlike the reference, decoding is safe on any input: every read is
//! bounds-checked, the declared size is checked against what the input can
//! produce before anything is allocated, and every decoded instruction must
//! be exactly as long as it says.
//!
//! | function | what it does |
//! |---|---|
//! | [`encode`], [`encode_into`] | SPIR-V (words or bytes, either byte order) to SMOL-V |
//! | [`decode`], [`decode_into`] | SMOL-V to SPIR-V words |
//! | [`decoded_len`], [`inspect`] | read the header only |

mod decode;
mod encode;
mod error;
mod header;
mod input;
pub(crate) mod opcodes;
mod varint;

pub use crate::options::DecodeOptions;

#[cfg(feature = "std")]
pub use decode::decode_current_into;
pub use decode::{decode, decode_into, decoded_len, inspect};
pub use encode::{EncodeOptions, NameFilter, encode, encode_into};
pub use error::{DecodeError, EncodeError};
pub use header::SmolvInfo;
pub use input::SpirvInput;
