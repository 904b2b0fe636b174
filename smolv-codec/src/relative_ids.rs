//! Relative ids: SPIR-V rewritten in place so that it compresses better: result ids and decoration
//! targets become zigzag-coded steps, other ids differences from the result id (`docs/format.md`).
//!
//! ```
//! use smolv_codec::relative_ids;
//!
//! let spirv = smolv_codec::doc_example_module();
//! let stored = relative_ids::encode(&spirv)?;
//! assert_eq!(stored.len(), spirv.len());
//! assert_eq!(relative_ids::decode(&stored)?, spirv);
//! # Ok::<(), smolv_codec::relative_ids::RelativeIdsError>(())
//! ```

use alloc::vec::Vec;

use smolv_format::spirv::{self, HEADER_WORDS};

use crate::smolv::opcodes::{OPS_KNOWN_V1, OpLayout, op};
use crate::smolv::varint::{unzigzag, zigzag};

/// Why words could not be converted: they are not well-formed SPIR-V.
///
/// ```
/// use smolv_codec::relative_ids::{self, RelativeIdsError};
///
/// assert_eq!(relative_ids::decode(&[1, 2, 3]), Err(RelativeIdsError::NotSpirv));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RelativeIdsError {
    /// Shorter than the SPIR-V header, or without the magic number.
    NotSpirv,
    /// An instruction's word count is zero or runs past the end.
    BadInstruction {
        /// Index of the instruction's first word.
        at: usize,
    },
}

// Hand-written and inline, so that printing it pulls in no other code of this crate.
impl core::fmt::Display for RelativeIdsError {
    #[inline]
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotSpirv => {
                f.write_str("not a SPIR-V module: no 5-word header starting with the magic number 0x07230203")
            }
            Self::BadInstruction { at } => write!(
                f,
                "the instruction at word {at} has a word count of zero or one that runs past the end of the \
                 module; the module is truncated or not SPIR-V"
            ),
        }
    }
}

impl core::error::Error for RelativeIdsError {}

/// Converts SPIR-V `words` to relative ids in place; on error they are left partly converted.
///
/// ```
/// let mut words = smolv_codec::doc_example_module();
/// smolv_codec::relative_ids::encode_in_place(&mut words)?;
/// smolv_codec::relative_ids::decode_in_place(&mut words)?;
/// assert_eq!(words, smolv_codec::doc_example_module());
/// # Ok::<(), smolv_codec::relative_ids::RelativeIdsError>(())
/// ```
#[inline]
pub fn encode_in_place(words: &mut [u32]) -> Result<(), RelativeIdsError> {
    convert::<false>(words)
}

/// Converts relative ids back to SPIR-V in place; on error the words are left partly converted.
///
/// ```
/// use smolv_codec::relative_ids::{decode_in_place, RelativeIdsError};
///
/// assert_eq!(decode_in_place(&mut [1, 2, 3]), Err(RelativeIdsError::NotSpirv));
/// ```
#[inline]
pub fn decode_in_place(words: &mut [u32]) -> Result<(), RelativeIdsError> {
    convert::<true>(words)
}

/// SPIR-V `spirv` with relative ids, as a new buffer of the same length.
///
/// ```
/// let spirv = smolv_codec::doc_example_module();
/// let stored = smolv_codec::relative_ids::encode(&spirv)?;
/// // OpTypeFunction %3 follows OpTypeVoid %2: its result id is stored as 0.
/// assert_eq!(&stored[27..30], &[0x0003_0021, 0, 2]);
/// # Ok::<(), smolv_codec::relative_ids::RelativeIdsError>(())
/// ```
pub fn encode(spirv: &[u32]) -> Result<Vec<u32>, RelativeIdsError> {
    check_header(spirv)?;
    let mut words = spirv.to_vec();
    encode_in_place(&mut words)?;
    Ok(words)
}

/// The SPIR-V that [`encode`] made `stored` from, as a new buffer.
///
/// ```
/// let spirv = smolv_codec::doc_example_module();
/// let stored = smolv_codec::relative_ids::encode(&spirv)?;
/// assert_eq!(smolv_codec::relative_ids::decode(&stored)?, spirv);
/// # Ok::<(), smolv_codec::relative_ids::RelativeIdsError>(())
/// ```
pub fn decode(stored: &[u32]) -> Result<Vec<u32>, RelativeIdsError> {
    check_header(stored)?;
    let mut words = stored.to_vec();
    decode_in_place(&mut words)?;
    Ok(words)
}

/// The header both forms share: five words, the first the magic number.
#[inline]
fn check_header(words: &[u32]) -> Result<(), RelativeIdsError> {
    spirv::Header::read(words).map(drop).ok_or(RelativeIdsError::NotSpirv)
}

/// One pass to relative ids or back (`DECODE`); the running ids are always absolute.
#[inline]
fn convert<const DECODE: bool>(words: &mut [u32]) -> Result<(), RelativeIdsError> {
    check_header(words)?;
    // The result id and the decoration target the coded steps start from.
    let mut running = [0u32; 2];
    let mut at = HEADER_WORDS;
    while let Some(&first) = words.get(at) {
        let end =
            spirv::instruction_end(words.len(), at, first).map_err(|_| RelativeIdsError::BadInstruction { at })?;
        let opcode = spirv::split_first_word(first).1;
        let operands = &mut words[at + 1..end];
        // SMOL-V's layout (version 1) of the opcode, from its 367-byte table.
        let layout = OpLayout::of(opcode, OPS_KNOWN_V1);
        let has_type = usize::from(layout.has_type());
        // The word stored as a zigzag-coded step, the running id it steps from, what a step of 0 means.
        let (step_at, slot, bias) = if matches!(opcode, op::DECORATE | op::MEMBER_DECORATE) {
            (0, 1, 0)
        } else if layout.has_result() {
            (has_type, 0, 1)
        } else {
            (usize::MAX, 0, 0)
        };
        let relative_from = if step_at == usize::MAX { has_type } else { step_at + 1 };
        let relative_end = relative_from + layout.id_deltas();
        // In order: the result id changes partway.
        for (index, word) in operands.iter_mut().enumerate() {
            if index == step_at {
                let previous = running[slot].wrapping_add(bias);
                let id = if DECODE { previous.wrapping_add(unzigzag(*word)) } else { *word };
                *word = if DECODE { id } else { zigzag(id.wrapping_sub(previous)) };
                running[slot] = id;
            } else if (relative_from..relative_end).contains(&index) {
                // `result - x` is its own inverse.
                *word = running[0].wrapping_sub(*word);
            }
        }
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn module(body: &[u32]) -> Vec<u32> {
        let mut words = vec![spirv::MAGIC, 0x0001_0000, 0, 100, 0];
        words.extend_from_slice(body);
        words
    }

    #[test]
    fn zigzag_round_trips_and_keeps_small_steps_small() {
        for value in [0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, u32::MAX, u32::MAX - 1] {
            assert_eq!(unzigzag(zigzag(value)), value);
        }
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(u32::MAX), 1, "-1 codes as 1");
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn consecutive_results_and_their_operands_become_small_and_alike() {
        // %10 = OpLoad %5 %7 ; %11 = OpLoad %5 %8: the same words once
        // relative, whatever the ids.
        let spirv = module(&[0x0004_003D, 5, 10, 7, 0x0004_003D, 5, 11, 8]);
        let stored = encode(&spirv).unwrap();
        assert_eq!(&stored[5..], &[0x0004_003D, 5, zigzag(9), 3, 0x0004_003D, 5, 0, 3]);
        assert_eq!(decode(&stored).unwrap(), spirv);
    }

    #[test]
    fn decoration_targets_are_steps_from_the_previous_target() {
        // OpDecorate %4 Binding 0 ; OpDecorate %6 Binding 1
        let spirv = module(&[0x0004_0047, 4, 33, 0, 0x0004_0047, 6, 33, 1]);
        let stored = encode(&spirv).unwrap();
        assert_eq!(&stored[5..], &[0x0004_0047, zigzag(4), 33, 0, 0x0004_0047, zigzag(2), 33, 1]);
        assert_eq!(decode(&stored).unwrap(), spirv);
    }

    #[test]
    fn unknown_opcodes_and_short_instructions_stay_as_they_are() {
        // An extension opcode, and an OpLoad cut to its opcode word.
        let spirv = module(&[0x0003_1400, 9, 9, 0x0001_003D]);
        assert_eq!(encode(&spirv).unwrap(), spirv);
        assert_eq!(decode(&spirv).unwrap(), spirv);
    }

    #[test]
    fn malformed_words_are_errors() {
        assert_eq!(encode(&[spirv::MAGIC, 0, 0, 0]), Err(RelativeIdsError::NotSpirv));
        assert_eq!(decode(&[0, 0, 0, 0, 0]), Err(RelativeIdsError::NotSpirv));
        assert_eq!(encode(&module(&[0x0000_003D])), Err(RelativeIdsError::BadInstruction { at: 5 }));
        assert_eq!(decode(&module(&[0x0001_0000, 0x0003_003D, 1])), Err(RelativeIdsError::BadInstruction { at: 6 }));
    }

    #[test]
    fn the_header_is_kept_as_it_is() {
        let spirv = module(&[]);
        assert_eq!(encode(&spirv).unwrap(), spirv);
    }
}
