//! Accepting SPIR-V as words or bytes, in either byte order.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::error::EncodeError;
use super::header::SPIRV_MAGIC;

/// SPIR-V that [`encode`](crate::encode) accepts: `[u32]` words in native
/// order, or `[u8]` bytes as read from a `.spv` file.
///
/// Modules written in the other byte order (their magic reads
/// `0x03022307`) are byte-swapped on the way in, so the SMOL-V output, and
/// the SPIR-V decoded from it, is always little-endian.
///
/// This trait is sealed: it is implemented for `[u32]`, `[u8]`, their `Vec`s
/// and arrays.
///
/// ```
/// use smolv_codec::{encode, EncodeOptions};
/// let words: Vec<u32> = smolv_codec::doc_example_module();
/// let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect(); // as read from a .spv file
/// let swapped: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect(); // the other byte order
/// let options = EncodeOptions::new();
/// let smolv = encode(&words[..], &options)?;
/// assert_eq!(encode(&bytes[..], &options)?, smolv);
/// assert_eq!(encode(&swapped[..], &options)?, smolv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait SpirvInput: sealed::Sealed {
    /// The module as native-order words.
    #[doc(hidden)]
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for [u32] {}
    impl Sealed for [u8] {}
    impl Sealed for alloc::vec::Vec<u32> {}
    impl Sealed for alloc::vec::Vec<u8> {}
    impl<const N: usize> Sealed for [u32; N] {}
    impl<const N: usize> Sealed for [u8; N] {}
}

impl SpirvInput for [u32] {
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
        match self.first() {
            Some(&magic) if magic == SPIRV_MAGIC.swap_bytes() => {
                Ok(Cow::Owned(self.iter().map(|w| w.swap_bytes()).collect()))
            }
            _ => Ok(Cow::Borrowed(self)),
        }
    }
}

impl SpirvInput for [u8] {
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
        if !self.len().is_multiple_of(4) {
            return Err(EncodeError::NotWordAligned { len: self.len() });
        }
        let big_endian = self.get(..4) == Some(&SPIRV_MAGIC.to_be_bytes()[..]);
        let native_is_file_order = cfg!(target_endian = "little") != big_endian;
        if native_is_file_order && let Ok(words) = bytemuck::try_cast_slice::<u8, u32>(self) {
            return Ok(Cow::Borrowed(words));
        }
        let read: fn([u8; 4]) -> u32 = if big_endian { u32::from_be_bytes } else { u32::from_le_bytes };
        Ok(Cow::Owned(self.chunks_exact(4).map(|c| read([c[0], c[1], c[2], c[3]])).collect::<Vec<u32>>()))
    }
}

impl SpirvInput for Vec<u32> {
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
        self.as_slice().spirv_words()
    }
}

impl SpirvInput for Vec<u8> {
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
        self.as_slice().spirv_words()
    }
}

impl<const N: usize> SpirvInput for [u32; N] {
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
        self.as_slice().spirv_words()
    }
}

impl<const N: usize> SpirvInput for [u8; N] {
    fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
        self.as_slice().spirv_words()
    }
}
