//! Accepting SPIR-V as words or bytes, in either byte order.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::error::EncodeError;
use super::header::SPIRV_MAGIC;

/// SPIR-V that [`encode`](crate::encode) accepts (sealed): native-order `[u32]` words, or `[u8]` bytes
/// in either byte order, and their `Vec`s and arrays.
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

/// `Vec`s and arrays forward to their slices.
macro_rules! forward_to_slice {
    ($([$($generics:tt)*] $ty:ty),*) => {$(
        impl<$($generics)*> sealed::Sealed for $ty {}

        impl<$($generics)*> SpirvInput for $ty {
            fn spirv_words(&self) -> Result<Cow<'_, [u32]>, EncodeError> {
                self.as_slice().spirv_words()
            }
        }
    )*};
}

forward_to_slice!([] Vec<u32>, [] Vec<u8>, [const N: usize] [u32; N], [const N: usize] [u8; N]);
