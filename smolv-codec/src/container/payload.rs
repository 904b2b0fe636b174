//! Building containers, and decoding their payloads back to SPIR-V.

use std::borrow::Cow;
use std::cell::RefCell;

use zstd::zstd_safe::{self, CParameter, DCtx, DDict};

use crate::options::DecodeOptions;
use crate::smolv::{EncodeOptions, decode_into, encode};
use smolv_format::reflect::Reflection;

use super::error::ContainerError;
use super::format::{Codec, Container, ContentHash, write_container};

/// A zstd dictionary shared by the shaders of a bundle or a crate.
///
/// ```
/// use smolv_codec::container::{Container, ContainerBuilder, Dictionary};
/// use smolv_codec::DecodeOptions;
/// use smolv_format::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_codec::doc_example_module();
/// # let trained = zstd::dict::from_samples(&smolv_codec::container::doc_example_samples(), 1024)?;
/// // trained = zstd::dict::from_samples(&samples, 1024)?, or `zstd --train`
/// let dictionary = Dictionary::new(trained)?;
/// let reflection = Reflection::new(ShaderStage::Compute, "main");
/// let bytes = ContainerBuilder::new(&spirv, &reflection).dictionary(&dictionary).build()?;
/// let container = Container::parse(&bytes)?;
/// assert_eq!(container.dictionary_id(), dictionary.id());
/// let mut words = Vec::new();
/// container.decode_with(Some(&dictionary), &DecodeOptions::new(), &mut words)?;
/// assert_eq!(words, spirv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dictionary {
    id: u32,
    bytes: Cow<'static, [u8]>,
}

impl Dictionary {
    /// Wraps dictionary bytes as `zstd --train` writes them; the id is read from its header.
    ///
    /// ```no_run
    /// use smolv_codec::container::Dictionary;
    /// let dictionary = Dictionary::new(std::fs::read("assets/shaders.zdict")?)?;
    /// println!("dictionary {}", dictionary.id());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(bytes: impl Into<Cow<'static, [u8]>>) -> Result<Self, ContainerError> {
        let bytes = bytes.into();
        let id = zstd_safe::get_dict_id_from_dict(&bytes)
            .ok_or(ContainerError::Corrupt { what: "zstd dictionary", reason: "it has no dictionary header" })?;
        Ok(Self { id: id.get(), bytes })
    }

    /// The dictionary id that containers compressed with it record.
    ///
    /// ```
    /// use smolv_codec::container::Dictionary;
    /// # let trained = zstd::dict::from_samples(&smolv_codec::container::doc_example_samples(), 1024)?;
    /// let id = u32::from_le_bytes(trained[4..8].try_into()?); // after the magic
    /// assert_eq!(Dictionary::new(trained)?.id(), id);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The raw dictionary.
    ///
    /// ```
    /// use smolv_codec::container::Dictionary;
    /// # let trained = zstd::dict::from_samples(&smolv_codec::container::doc_example_samples(), 1024)?;
    /// let dictionary = Dictionary::new(trained.clone())?;
    /// assert_eq!(dictionary.as_bytes(), &trained[..]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Per-thread decoding state, reused so that steady-state decoding does not allocate.
struct Scratch {
    dctx: DCtx<'static>,
    smolv: Vec<u8>,
    ddict: Option<(Box<[u8]>, DDict<'static>)>,
}

/// Scratch capacity kept between decodes; anything larger is given back.
const SCRATCH_KEPT: usize = 4 << 20;

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

/// Upper bound of a SMOL-V encoding of `decoded_len` bytes of SPIR-V.
fn max_smolv_len(decoded_len: usize) -> usize {
    24 + decoded_len / 4 * 6
}

impl Container<'_> {
    /// Decodes to SPIR-V words with default options and no dictionary (else [`Container::decode_with`]).
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.decode()?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode(&self) -> Result<Vec<u32>, ContainerError> {
        let mut out = Vec::new();
        self.decode_with(None, &DecodeOptions::new(), &mut out)?;
        Ok(out)
    }

    /// Decodes into `out`, replacing its contents; `dictionary` for [`Codec::SmolvZstdDictionary`].
    ///
    /// ```
    /// # use smolv_codec::DecodeOptions;
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// let mut words = Vec::new(); // reused from shader to shader
    /// let container = Container::parse(&bytes)?;
    /// container.decode_with(None, &DecodeOptions::new(), &mut words)?;
    /// assert_eq!(words, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_with(
        &self,
        dictionary: Option<&Dictionary>,
        options: &DecodeOptions,
        out: &mut Vec<u32>,
    ) -> Result<(), ContainerError> {
        let result = self.decode_unchecked(dictionary, options, out).and_then(|()| {
            if out.len() * 4 != self.decoded_len() {
                return Err(ContainerError::Corrupt {
                    what: "shader container",
                    reason: "the payload decodes to a different size than the header records",
                });
            }
            if options.verifies_hash() && ContentHash::of_spirv(out) != self.content_hash() {
                return Err(ContainerError::HashMismatch);
            }
            Ok(())
        });
        if result.is_err() {
            out.clear();
        }
        result
    }

    fn decode_unchecked(
        &self,
        dictionary: Option<&Dictionary>,
        options: &DecodeOptions,
        out: &mut Vec<u32>,
    ) -> Result<(), ContainerError> {
        if self.decoded_len() > options.decoded_len_limit() {
            return Err(ContainerError::TooLarge { declared: self.decoded_len(), limit: options.decoded_len_limit() });
        }
        let smolv_options = DecodeOptions::new().max_decoded_len(self.decoded_len());
        match self.codec() {
            Codec::Spirv => {
                out.clear();
                out.extend(self.payload().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
                Ok(())
            }
            Codec::Smolv => Ok(decode_into(self.payload(), out, &smolv_options)?),
            Codec::SmolvZstd | Codec::SmolvZstdDictionary => {
                let mismatch = |found| ContainerError::DictionaryMismatch { expected: self.dictionary_id(), found };
                let dictionary = match (self.codec(), dictionary) {
                    (Codec::SmolvZstd, _) => None,
                    (_, Some(d)) if d.id() == self.dictionary_id() => Some(d),
                    (_, Some(_)) => return Err(mismatch("a different dictionary was given")),
                    (_, None) => return Err(mismatch("no dictionary was given")),
                };
                SCRATCH.with(|cell| {
                    let mut slot = cell.borrow_mut();
                    let scratch =
                        slot.get_or_insert_with(|| Scratch { dctx: DCtx::create(), smolv: Vec::new(), ddict: None });
                    self.decompress(scratch, dictionary)?;
                    Ok(decode_into(&scratch.smolv, out, &smolv_options)?)
                })
            }
            // `Container::parse` reads only the four codecs a container holds.
            Codec::SmolvLz4 | Codec::SpirvRelativeIds | Codec::SpirvRelativeIdsLz4 => {
                Err(ContainerError::Corrupt { what: "shader container", reason: "a codec containers do not hold" })
            }
        }
    }

    fn decompress(&self, scratch: &mut Scratch, dictionary: Option<&Dictionary>) -> Result<(), ContainerError> {
        // The frame's recorded size, never more than the declared SPIR-V could encode to.
        let len = match zstd_safe::get_frame_content_size(self.payload()) {
            Ok(Some(len)) => usize::try_from(len).ok().filter(|&len| len <= max_smolv_len(self.decoded_len())),
            _ => None,
        }
        .ok_or(ContainerError::Corrupt {
            what: "shader container",
            reason: "the zstd frame records no size, or more than the SPIR-V could encode to",
        })?;
        // A huge shader once must not keep a huge buffer for the thread's life.
        if scratch.smolv.capacity() > SCRATCH_KEPT.max(len) {
            scratch.smolv = Vec::new();
        }
        scratch.smolv.clear();
        scratch.smolv.reserve_exact(len);
        let result = match dictionary {
            None => scratch.dctx.decompress(&mut scratch.smolv, self.payload()),
            Some(dictionary) => {
                // Keyed by the bytes (two may share an id); one zstd cannot load is an error, not a panic.
                let kept = match scratch.ddict.take() {
                    Some(kept) if kept.0[..] == *dictionary.as_bytes() => kept,
                    _ => {
                        let ddict = DDict::try_create(dictionary.as_bytes()).ok_or(ContainerError::Corrupt {
                            what: "zstd dictionary",
                            reason: "zstd cannot load it (its header is damaged)",
                        })?;
                        (dictionary.as_bytes().into(), ddict)
                    }
                };
                let result = scratch.dctx.decompress_using_ddict(&mut scratch.smolv, self.payload(), &kept.1);
                scratch.ddict = Some(kept);
                result
            }
        };
        result.map(|_| ()).map_err(|code| ContainerError::Decompress(zstd_safe::get_error_name(code)))
    }
}

/// Builds a container from SPIR-V and its reflection.
///
/// ```
/// use smolv_codec::container::{Codec, Container, ContainerBuilder};
/// use smolv_format::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_codec::doc_example_module();
/// let bytes = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main"))
///     .codec(Codec::SmolvZstd)
///     .zstd_level(19)
///     .build()?;
/// assert_eq!(Container::parse(&bytes)?.decode()?, spirv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// ```
/// # use smolv_codec::container::{Codec, Container, ContainerBuilder};
/// # let (spirv, reflection, _) = smolv_codec::container::doc_example_container()?;
/// let stripped = ContainerBuilder::new(&spirv, &reflection)
///     .codec(Codec::SmolvZstd)
///     .encode_options(smolv_codec::EncodeOptions::new().strip_debug(true))
///     .zstd_level(22)
///     .build()?;
/// assert!(Container::parse(&stripped)?.decoded_len() < spirv.len() * 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ContainerBuilder<'a> {
    spirv: &'a [u32],
    reflection: &'a Reflection,
    codec: Codec,
    encode_options: EncodeOptions,
    zstd_level: i32,
    dictionary: Option<&'a Dictionary>,
}

impl<'a> ContainerBuilder<'a> {
    /// A builder for `spirv` (SMOL-V + zstd level 19 by default).
    ///
    /// ```
    /// # use smolv_codec::container::Container;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// assert_eq!(Container::parse(&bytes)?.decode()?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(spirv: &'a [u32], reflection: &'a Reflection) -> Self {
        Self {
            spirv,
            reflection,
            codec: Codec::SmolvZstd,
            encode_options: EncodeOptions::new(),
            zstd_level: 19,
            dictionary: None,
        }
    }

    /// How to store the payload ([`Codec::SmolvZstdDictionary`] needs [`ContainerBuilder::dictionary`]).
    ///
    /// ```
    /// # use smolv_codec::container::{Codec, Container, ContainerBuilder};
    /// # let (spirv, reflection, _) = smolv_codec::container::doc_example_container()?;
    /// let raw = ContainerBuilder::new(&spirv, &reflection).codec(Codec::Spirv).build()?;
    /// assert_eq!(Container::parse(&raw)?.payload().len(), spirv.len() * 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn codec(mut self, codec: Codec) -> Self {
        self.codec = codec;
        self
    }

    /// SMOL-V options (for example `strip_debug`).
    ///
    /// ```
    /// # use smolv_codec::container::{Container, ContainerBuilder};
    /// # let (spirv, reflection, _) = smolv_codec::container::doc_example_container()?;
    /// let options = smolv_codec::EncodeOptions::new().strip_debug(true);
    /// let stripped = ContainerBuilder::new(&spirv, &reflection).encode_options(options).build()?;
    /// assert!(Container::parse(&stripped)?.decode()?.len() < spirv.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode_options(mut self, options: EncodeOptions) -> Self {
        self.encode_options = options;
        self
    }

    /// zstd compression level (1–22).
    ///
    /// ```
    /// # use smolv_codec::container::{Container, ContainerBuilder};
    /// # let (spirv, reflection, _) = smolv_codec::container::doc_example_container()?;
    /// let fast = ContainerBuilder::new(&spirv, &reflection).zstd_level(1).build()?;
    /// assert_eq!(Container::parse(&fast)?.decode()?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zstd_level(mut self, level: i32) -> Self {
        self.zstd_level = level;
        self
    }

    /// The shared dictionary to compress with.
    ///
    /// ```
    /// # use smolv_codec::container::Dictionary;
    /// # use smolv_codec::container::{Codec, Container, ContainerBuilder};
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// # let trained = zstd::dict::from_samples(&smolv_codec::container::doc_example_samples(), 1024)?;
    /// let dictionary = Dictionary::new(trained)?;
    /// let bytes = ContainerBuilder::new(&spirv, &reflection).dictionary(&dictionary).build()?;
    /// assert_eq!(Container::parse(&bytes)?.codec(), Codec::SmolvZstdDictionary);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dictionary(mut self, dictionary: &'a Dictionary) -> Self {
        self.dictionary = Some(dictionary);
        self.codec = Codec::SmolvZstdDictionary;
        self
    }

    /// Encodes and compresses.
    ///
    /// ```
    /// # use smolv_codec::container::ContainerBuilder;
    /// # let (spirv, reflection, bytes) = smolv_codec::container::doc_example_container()?;
    /// let bytes = ContainerBuilder::new(&spirv, &reflection).build()?;
    /// std::fs::write(std::env::temp_dir().join("fill.comp.smvc"), &bytes)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(&self) -> Result<Vec<u8>, ContainerError> {
        let smolv = encode(self.spirv, &self.encode_options)?;
        // What a reader will get back: the stripped module when stripping.
        let decoded = crate::smolv::decode(&smolv, &DecodeOptions::new())?;
        let hash = ContentHash::of_spirv(&decoded);
        let reflection = self.reflection.to_bytes()?;
        let decoded_len = decoded.len() * 4;
        let (payload, dictionary_id) = match self.codec {
            Codec::Spirv => (decoded.iter().flat_map(|w| w.to_le_bytes()).collect(), 0),
            Codec::Smolv => (smolv, 0),
            Codec::SmolvZstd => (compress(&smolv, self.zstd_level, None)?, 0),
            Codec::SmolvZstdDictionary => {
                let dictionary = self.dictionary.ok_or(ContainerError::Build(
                    "Codec::SmolvZstdDictionary needs a dictionary: call ContainerBuilder::dictionary",
                ))?;
                (compress(&smolv, self.zstd_level, Some(dictionary))?, dictionary.id())
            }
            Codec::SmolvLz4 | Codec::SpirvRelativeIds | Codec::SpirvRelativeIdsLz4 => {
                return Err(ContainerError::Build(super::format::NOT_A_CONTAINER_CODEC));
            }
        };
        write_container(self.codec, decoded_len, dictionary_id, &hash, &reflection, &payload)
    }
}

/// Assembles a container around a payload compressed elsewhere, which decodes to `decoded`.
///
/// ```
/// use smolv_codec::container::{assemble, compress, Codec, Container};
/// use smolv_format::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = smolv_codec::encode(&spirv[..], &Default::default())?;
/// let payload = compress(&smolv, 19, None)?; // compressed elsewhere, for example in parallel
/// let bytes = assemble(Codec::SmolvZstd, &spirv, 0, &Reflection::new(ShaderStage::Compute, "main"), &payload)?;
/// assert_eq!(Container::parse(&bytes)?.decode()?, spirv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn assemble(
    codec: Codec,
    decoded: &[u32],
    dictionary_id: u32,
    reflection: &Reflection,
    payload: &[u8],
) -> Result<Vec<u8>, ContainerError> {
    let hash = ContentHash::of_spirv(decoded);
    write_container(codec, decoded.len() * 4, dictionary_id, &hash, &reflection.to_bytes()?, payload)
}

/// zstd-compresses `data` as containers store it: no frame checksum and no dictionary id.
///
/// ```
/// use smolv_codec::container::compress;
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = smolv_codec::encode(&spirv[..], &Default::default())?;
/// let payload = compress(&smolv, 19, None)?;
/// assert_eq!(zstd::bulk::decompress(&payload, smolv.len())?, smolv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compress(data: &[u8], level: i32, dictionary: Option<&Dictionary>) -> Result<Vec<u8>, ContainerError> {
    let failed = |code| ContainerError::Compress(zstd_safe::get_error_name(code));
    let mut cctx = zstd_safe::CCtx::create();
    for parameter in [
        CParameter::CompressionLevel(level),
        CParameter::ChecksumFlag(false),
        CParameter::DictIdFlag(false),
        CParameter::ContentSizeFlag(true),
    ] {
        cctx.set_parameter(parameter).map_err(failed)?;
    }
    if let Some(dictionary) = dictionary {
        cctx.load_dictionary(dictionary.as_bytes()).map_err(failed)?;
    }
    let mut out = Vec::with_capacity(zstd_safe::compress_bound(data.len()));
    cctx.compress2(&mut out, data).map_err(failed)?;
    Ok(out)
}
