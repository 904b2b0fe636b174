//! SPIR-V ⇄ [SMOL-V](https://github.com/aras-p/smol-v), byte-exact with the reference encoder (version 1);
//! versions 1, 0 and the 2016-08-31 dialect of 0 are read, safely on any input.

mod decode;
mod encode;
mod error;
mod header;
mod input;
pub(crate) mod opcodes;
pub(crate) mod varint;

pub use crate::options::DecodeOptions;

#[cfg(feature = "std")]
pub use decode::decode_current_into;
pub use decode::{decode, decode_into, decoded_len, inspect};
pub use encode::{EncodeOptions, NameFilter, encode, encode_into};
pub use error::{DecodeError, EncodeError};
pub use header::SmolvInfo;
pub use input::SpirvInput;
