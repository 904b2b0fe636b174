//! The container byte layout: parsing without copying.

use smolv_format::reflect::Reflection;

use super::error::ContainerError;

const CONTAINER_MAGIC: &str = "SMVC";
/// The format version of containers and bundles alike.
pub(crate) const FORMAT_VERSION: u8 = 1;
const HEADER_LEN: usize = 56;
const WHAT: &str = "shader container";

/// The checks of a container's or a bundle's header: magic, length, version.
pub(crate) fn check_header(
    bytes: &[u8],
    what: &'static str,
    magic: &'static str,
    header_len: usize,
) -> Result<(), ContainerError> {
    if bytes.get(..4).is_some_and(|m| m != magic.as_bytes()) || bytes.is_empty() {
        return Err(ContainerError::BadMagic { what, expected: magic });
    }
    if bytes.len() < header_len {
        return Err(ContainerError::TooShort { what, len: bytes.len(), needed: header_len });
    }
    if bytes[4] != FORMAT_VERSION {
        return Err(ContainerError::UnsupportedVersion { what, version: bytes[4] });
    }
    Ok(())
}

/// How a container's payload is stored: a [`Codec`] other than LZ4 and relative ids (embedded sets only).
///
/// ```
/// use smolv_codec::container::{Codec, Container, ContainerBuilder};
/// use smolv_format::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_codec::doc_example_module();
/// let reflection = Reflection::new(ShaderStage::Compute, "main");
/// for codec in [Codec::Spirv, Codec::Smolv, Codec::SmolvZstd] {
///     let bytes = ContainerBuilder::new(&spirv, &reflection).codec(codec).build()?;
///     assert_eq!(Container::parse(&bytes)?.codec(), codec);
/// }
/// assert!(ContainerBuilder::new(&spirv, &reflection).codec(Codec::SmolvLz4).build().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use smolv_format::Codec;

/// Why a container cannot hold a codec.
#[cfg(feature = "zstd-fast")]
pub(crate) const NOT_A_CONTAINER_CODEC: &str = "a container holds only the spirv, smolv, smolv-zstd and \
     smolv-zstd-dictionary codecs; LZ4 and relative ids are for embedded sets: choose one of the four";

/// The codecs a container holds, indexed by their byte in its header (not their directory byte).
const CONTAINER_CODECS: [Codec; 4] = [Codec::Spirv, Codec::Smolv, Codec::SmolvZstd, Codec::SmolvZstdDictionary];

/// blake3 hash of a shader's decoded SPIR-V bytes (little-endian words).
///
/// ```
/// use smolv_codec::container::ContentHash;
/// # let spirv = smolv_codec::doc_example_module();
/// let hash = ContentHash::of_spirv(&spirv);
/// println!("pipeline cache key {:016x} for {hash}", hash.short());
/// assert_eq!(hash, ContentHash::of_spirv(&spirv.clone()));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentHash(pub [u8; 32]);

impl ContentHash {
    /// Hashes SPIR-V words.
    ///
    /// ```
    /// use smolv_codec::container::ContentHash;
    /// # let spirv = smolv_codec::doc_example_module();
    /// let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    /// assert_eq!(ContentHash::of_spirv(&spirv).0, *blake3::hash(&bytes).as_bytes());
    /// ```
    pub fn of_spirv(words: &[u32]) -> Self {
        let mut hasher = blake3::Hasher::new();
        if cfg!(target_endian = "little") {
            // The words' memory already is their little-endian byte form.
            hasher.update(bytemuck::cast_slice(words));
        } else {
            for chunk in words.chunks(1024) {
                let mut bytes = [0u8; 4096];
                for (dst, w) in bytes.chunks_exact_mut(4).zip(chunk) {
                    dst.copy_from_slice(&w.to_le_bytes());
                }
                hasher.update(&bytes[..chunk.len() * 4]);
            }
        }
        Self(*hasher.finalize().as_bytes())
    }

    /// The first eight bytes as a number, for compact keys.
    ///
    /// ```
    /// use smolv_codec::container::ContentHash;
    /// let hash = ContentHash([7; 32]);
    /// assert_eq!(hash.short(), u64::from_le_bytes([7; 8]));
    /// ```
    pub fn short(&self) -> u64 {
        u64::from_le_bytes([self.0[0], self.0[1], self.0[2], self.0[3], self.0[4], self.0[5], self.0[6], self.0[7]])
    }
}

impl core::fmt::Debug for ContentHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ContentHash({self})")
    }
}

impl core::fmt::Display for ContentHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// A parsed view of one shader container; nothing is copied or decoded.
///
/// ```
/// # use smolv_codec::container::Container;
/// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
/// let container = Container::parse(&bytes)?;
/// println!("{:?}, {} bytes of SPIR-V, hash {}", container.codec(), container.decoded_len(), container.content_hash());
/// assert_eq!(container.decode()?, spirv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Container<'a> {
    codec: Codec,
    decoded_len: usize,
    dictionary_id: u32,
    hash: ContentHash,
    reflection: &'a [u8],
    payload: &'a [u8],
}

impl<'a> Container<'a> {
    /// Checks the header and splits the container into its parts.
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert!(Container::parse(&bytes).is_ok());
    /// assert!(Container::parse(&bytes[..bytes.len() - 1]).is_err(), "the length must match the header");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ContainerError> {
        check_header(bytes, WHAT, CONTAINER_MAGIC, HEADER_LEN)?;
        let corrupt = |reason| ContainerError::Corrupt { what: WHAT, reason };
        let codec = CONTAINER_CODECS.get(usize::from(bytes[5])).copied().ok_or(corrupt("unknown codec"))?;
        if bytes[6] != 0 || bytes[7] != 0 {
            return Err(corrupt("reserved flags are set"));
        }
        let u32_at = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        // A length that does not fit `usize` (16-bit targets) cannot match the input's.
        let len_at = |at: usize| usize::try_from(u32_at(at)).map_err(|_| corrupt("a length does not fit in memory"));
        let decoded_len = len_at(8)?;
        let dictionary_id = u32_at(12);
        let mut hash = [0u8; 32];
        hash.copy_from_slice(&bytes[16..48]);
        let reflection_len = len_at(48)?;
        let payload_len = len_at(52)?;
        if decoded_len < 20 || !decoded_len.is_multiple_of(4) {
            return Err(corrupt("decoded size is not a whole SPIR-V module"));
        }
        if (codec == Codec::SmolvZstdDictionary) != (dictionary_id != 0) {
            return Err(corrupt("dictionary id does not match the codec"));
        }
        let (payload_at, _) = section_layout(reflection_len, payload_len)
            .filter(|&(_, end)| end == bytes.len())
            .ok_or(corrupt("section lengths do not add up to the container size"))?;
        if codec == Codec::Spirv && payload_len != decoded_len {
            return Err(corrupt("raw SPIR-V payload is not the decoded size"));
        }
        Ok(Self {
            codec,
            decoded_len,
            dictionary_id,
            hash: ContentHash(hash),
            // In bounds: HEADER_LEN + reflection_len <= payload_at <= bytes.len().
            reflection: &bytes[HEADER_LEN..HEADER_LEN + reflection_len],
            payload: &bytes[payload_at..],
        })
    }

    /// How the payload is stored.
    ///
    /// ```
    /// # use smolv_codec::container::{Codec, Container};
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.codec(), Codec::SmolvZstd, "the builder's default");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Size of the decoded SPIR-V in bytes.
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.decoded_len(), spirv.len() * 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decoded_len(&self) -> usize {
        self.decoded_len
    }

    /// The zstd dictionary the payload needs, or 0.
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.dictionary_id(), 0, "no dictionary");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dictionary_id(&self) -> u32 {
        self.dictionary_id
    }

    /// blake3 hash of the decoded SPIR-V.
    ///
    /// ```
    /// # use smolv_codec::container::ContentHash;
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.content_hash(), ContentHash::of_spirv(&spirv));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn content_hash(&self) -> ContentHash {
        self.hash
    }

    /// The stored payload bytes.
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// let container = Container::parse(&bytes)?;
    /// let smolv = zstd::bulk::decompress(container.payload(), 1 << 20)?;
    /// assert_eq!(smolv_codec::decode(&smolv, &Default::default())?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// The serialized reflection.
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # use smolv_format::reflect::Reflection;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// let container = Container::parse(&bytes)?;
    /// assert_eq!(Reflection::from_bytes(container.reflection_bytes())?, reflection);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reflection_bytes(&self) -> &'a [u8] {
        self.reflection
    }

    /// Parses the reflection (allocates the names and lists).
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # use smolv_format::reflect::ShaderStage;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.reflection()?.stage, ShaderStage::Compute);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reflection(&self) -> Result<Reflection, ContainerError> {
        Ok(Reflection::from_bytes(self.reflection)?)
    }
}

/// Where the payload starts and the container ends; `None` on overflow (a forged header, on 32 bits).
fn section_layout(reflection_len: usize, payload_len: usize) -> Option<(usize, usize)> {
    let payload_at = HEADER_LEN.checked_add(reflection_len)?.checked_next_multiple_of(4)?;
    Some((payload_at, payload_at.checked_add(payload_len)?))
}

/// Writes a container from its parts ([`ContainerError::TooLargeToWrite`] for a size past its field).
#[cfg(feature = "zstd-fast")]
pub(crate) fn write_container(
    codec: Codec,
    decoded_len: usize,
    dictionary_id: u32,
    hash: &ContentHash,
    reflection: &[u8],
    payload: &[u8],
) -> Result<Vec<u8>, ContainerError> {
    let codec_byte = CONTAINER_CODECS
        .iter()
        .position(|&c| c == codec)
        .and_then(|i| u8::try_from(i).ok())
        .ok_or(ContainerError::Build(NOT_A_CONTAINER_CODEC))?;
    let field = |part, len: usize| {
        u32::try_from(len).map_err(|_| ContainerError::TooLargeToWrite {
            what: WHAT,
            part,
            len,
            max: u64::from(u32::MAX),
        })
    };
    let decoded_field = field("decoded SPIR-V (bytes)", decoded_len)?;
    let reflection_field = field("reflection (bytes)", reflection.len())?;
    let payload_field = field("payload (bytes)", payload.len())?;
    let (payload_at, total) =
        section_layout(reflection.len(), payload.len()).ok_or(ContainerError::TooLargeToWrite {
            what: WHAT,
            part: "container (bytes)",
            len: reflection.len().saturating_add(payload.len()),
            max: u64::try_from(usize::MAX).unwrap_or(u64::MAX),
        })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(CONTAINER_MAGIC.as_bytes());
    out.extend_from_slice(&[FORMAT_VERSION, codec_byte, 0, 0]);
    out.extend_from_slice(&decoded_field.to_le_bytes());
    out.extend_from_slice(&dictionary_id.to_le_bytes());
    out.extend_from_slice(&hash.0);
    out.extend_from_slice(&reflection_field.to_le_bytes());
    out.extend_from_slice(&payload_field.to_le_bytes());
    out.extend_from_slice(reflection);
    out.resize(payload_at, 0);
    out.extend_from_slice(payload);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_lengths_that_overflow_usize_are_refused() {
        // On 32-bit targets usize::MAX is u32::MAX, so these are the sums a
        // forged header reaches there.
        for reflection_len in [usize::MAX, usize::MAX - 3, usize::MAX - HEADER_LEN, usize::MAX - HEADER_LEN + 1] {
            assert_eq!(section_layout(reflection_len, 0), None, "reflection length {reflection_len:#x}");
        }
        assert_eq!(section_layout(0, usize::MAX), None);
        assert_eq!(section_layout(4, usize::MAX - HEADER_LEN - 3), None, "one byte past usize::MAX");
        assert_eq!(section_layout(1, 8), Some((60, 68)), "the payload starts 4-aligned after the reflection");
    }

    #[test]
    fn forged_header_lengths_near_u32_max_are_errors() {
        let mut header = [0u8; HEADER_LEN];
        header[..4].copy_from_slice(CONTAINER_MAGIC.as_bytes());
        header[4] = FORMAT_VERSION;
        header[8..12].copy_from_slice(&20u32.to_le_bytes());
        for (reflection_len, payload_len) in
            [(u32::MAX, 0), (0, u32::MAX), (u32::MAX - 56, 0), (u32::MAX - 59, 4), (u32::MAX / 2, u32::MAX / 2 + 2)]
        {
            let mut forged = header;
            forged[48..52].copy_from_slice(&reflection_len.to_le_bytes());
            forged[52..56].copy_from_slice(&payload_len.to_le_bytes());
            let err = Container::parse(&forged).unwrap_err();
            assert!(matches!(err, ContainerError::Corrupt { .. }), "{reflection_len:#x} + {payload_len:#x}: {err}");
        }
    }
}
