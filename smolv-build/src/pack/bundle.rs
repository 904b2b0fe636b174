//! Bundles, the asset-file form: one container per module; [`write_bundle`] makes one from SPIR-V.

use rayon::prelude::*;
use smolv_codec::container::{BundleBuilder, Codec, assemble};
use smolv_format::reflect::{Reflection, ShaderStage};

use crate::error::Error;
use crate::options::DictionaryMode;
use crate::pack::encode::{Encoded, Strip, encode_module};
use crate::pack::reflect::reflect;
use crate::pack::zstd_forms::{Packed, compress};

/// One module going into a bundle.
pub(crate) struct BundleModule<'a> {
    pub(crate) name: &'a str,
    pub(crate) encoded: &'a Encoded,
    pub(crate) reflection: &'a Reflection,
}

/// A bundle, and each module's container in it, in input order.
pub(crate) struct Bundled {
    pub(crate) bytes: Vec<u8>,
    pub(crate) containers: Vec<Vec<u8>>,
}

/// Each module's container, from its payload in `packed`, and the bundle of them all.
pub(crate) fn assemble_bundle(modules: &[BundleModule<'_>], packed: &Packed) -> Result<Bundled, Error> {
    let mut builder = BundleBuilder::new();
    let (codec, dictionary_id) = match &packed.dictionary {
        Some(dictionary) => {
            builder = builder.dictionary(dictionary.clone());
            (Codec::SmolvZstdDictionary, dictionary.id())
        }
        None => (Codec::SmolvZstd, 0),
    };
    let mut containers = Vec::with_capacity(modules.len());
    for (module, payload) in modules.iter().zip(&packed.payloads) {
        let container = assemble(codec, &module.encoded.decoded, dictionary_id, module.reflection, payload)
            .map_err(|e| Error::Internal(format!("{}: {e}", module.name)))?;
        builder.push(module.name.to_owned(), container.clone());
        containers.push(container);
    }
    Ok(Bundled { bytes: builder.build().map_err(|e| Error::Internal(e.to_string()))?, containers })
}

/// How [`write_bundle`] encodes a bundle.
///
/// ```
/// use smolv_build::DictionaryMode;
/// use smolv_build::bundle::{write_bundle, BundleOptions};
/// let options = BundleOptions::new().zstd_level(22).dictionary(DictionaryMode::Off).strip_debug(true);
/// let bundle = write_bundle(&[("fill.comp".to_owned(), smolv_format::doc_example_module())], &options)?;
/// assert_eq!(bundle.dictionary_bytes, 0);
/// # Ok::<(), smolv_build::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BundleOptions {
    /// zstd level (default 19).
    pub zstd_level: i32,
    /// Dictionary policy (default automatic).
    pub dictionary: DictionaryMode,
    /// Strip debug info (off by default: decoding gives back the input).
    pub strip_debug: bool,
}

impl Default for BundleOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl BundleOptions {
    /// The defaults: zstd level 19, an automatic dictionary, debug info kept.
    ///
    /// ```
    /// use smolv_build::bundle::BundleOptions;
    /// let options = BundleOptions::new();
    /// assert_eq!((options.zstd_level, options.strip_debug), (19, false));
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self { zstd_level: 19, dictionary: DictionaryMode::Auto, strip_debug: false }
    }

    /// Sets the zstd level (1 to 22; higher is smaller and slower).
    ///
    /// ```
    /// let options = smolv_build::bundle::BundleOptions::new().zstd_level(22);
    /// assert_eq!(options.zstd_level, 22);
    /// ```
    #[must_use]
    pub const fn zstd_level(mut self, level: i32) -> Self {
        self.zstd_level = level;
        self
    }

    /// Sets the dictionary policy.
    ///
    /// ```
    /// use smolv_build::{bundle::BundleOptions, DictionaryMode};
    /// let options = BundleOptions::new().dictionary(DictionaryMode::Off);
    /// assert_eq!(options.dictionary, DictionaryMode::Off);
    /// ```
    #[must_use]
    pub const fn dictionary(mut self, mode: DictionaryMode) -> Self {
        self.dictionary = mode;
        self
    }

    /// Strips debug info (`OpName`, `OpLine`, sources) from every module.
    ///
    /// ```
    /// let options = smolv_build::bundle::BundleOptions::new().strip_debug(true);
    /// assert!(options.strip_debug);
    /// ```
    #[must_use]
    pub const fn strip_debug(mut self, strip: bool) -> Self {
        self.strip_debug = strip;
        self
    }
}

/// One bundle entry's sizes, as [`write_bundle`] wrote it.
///
/// ```
/// use smolv_build::bundle::{write_bundle, BundleOptions};
/// let spirv = smolv_format::doc_example_module();
/// let bundle = write_bundle(&[("fill.comp".to_owned(), spirv.clone())], &BundleOptions::default())?;
/// let entry = &bundle.entries[0];
/// assert_eq!((entry.name.as_str(), entry.spirv_bytes), ("fill.comp", spirv.len() * 4));
/// assert!(entry.smolv_bytes < entry.spirv_bytes);
/// # Ok::<(), smolv_build::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct WrittenEntry {
    /// Entry name.
    pub name: String,
    /// SPIR-V bytes in.
    pub spirv_bytes: usize,
    /// SMOL-V bytes.
    pub smolv_bytes: usize,
    /// Compressed payload bytes.
    pub compressed_bytes: usize,
}

/// A bundle [`write_bundle`] wrote, and what went into it.
///
/// ```no_run
/// use smolv_build::bundle::{write_bundle, BundleOptions};
/// # let (blur, sky) = (smolv_format::doc_example_module(), smolv_format::doc_example_module());
/// let bundle = write_bundle(&[("blur.comp".to_owned(), blur), ("sky.frag".to_owned(), sky)], &BundleOptions::default())?;
/// std::fs::write("assets/shaders.smvb", &bundle.bytes)?;
/// println!("{} entries, dictionary {} bytes", bundle.entries.len(), bundle.dictionary_bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WrittenBundle {
    /// The bundle (`.smvb`), as [`container::Bundle`](smolv_codec::container::Bundle) reads it.
    pub bytes: Vec<u8>,
    /// Per-entry sizes, sorted by name.
    pub entries: Vec<WrittenEntry>,
    /// Size of the shared dictionary (0 if none).
    pub dictionary_bytes: usize,
}

/// Writes named SPIR-V modules into a bundle.
///
/// ```
/// use smolv_build::bundle::{write_bundle, BundleOptions};
/// use smolv_runtime::ShaderSet;
///
/// let spirv = smolv_format::doc_example_module();
/// let bundle = write_bundle(&[("blur.comp".to_owned(), spirv.clone())], &BundleOptions::default())?;
/// let set = ShaderSet::from_vec(bundle.bytes)?;
/// assert_eq!(set.get("blur.comp")?.decode()?, spirv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_bundle(modules: &[(String, Vec<u32>)], options: &BundleOptions) -> Result<WrittenBundle, Error> {
    let mut sorted: Vec<&(String, Vec<u32>)> = modules.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(Error::Config(format!("two modules are named {:?}", pair[0].0)));
    }
    let encoded = sorted
        .par_iter()
        .map(|(name, spirv)| {
            // Containers carry their reflection, so stripping keeps no names.
            let strip = if options.strip_debug { Strip::All } else { Strip::Nothing };
            let encoded = encode_module(spirv, strip).map_err(|e| format!("{name}: {e}"))?;
            Ok((encoded, reflect(spirv, ShaderStage::Vertex, "main")))
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(Error::Internal)?;
    let smolv: Vec<Vec<u8>> = encoded.iter().map(|(e, _)| e.smolv.clone()).collect();
    let packed = compress(&smolv, options.zstd_level, options.dictionary).map_err(Error::Internal)?;
    let modules: Vec<BundleModule<'_>> = sorted
        .iter()
        .zip(&encoded)
        .map(|((name, _), (encoded, reflection))| BundleModule { name, encoded, reflection })
        .collect();
    let bundled = assemble_bundle(&modules, &packed)?;
    let entries = sorted
        .iter()
        .zip(&encoded)
        .zip(&packed.payloads)
        .map(|(((name, spirv), (encoded, _)), payload)| WrittenEntry {
            name: name.clone(),
            spirv_bytes: spirv.len() * 4,
            smolv_bytes: encoded.smolv.len(),
            compressed_bytes: payload.len(),
        })
        .collect();
    Ok(WrittenBundle {
        bytes: bundled.bytes,
        entries,
        dictionary_bytes: packed.dictionary.as_ref().map_or(0, |d| d.as_bytes().len()),
    })
}

/// SMOL-V modules compressed together by [`compress_set`].
///
/// ```
/// use smolv_build::DictionaryMode;
/// use smolv_build::bundle::compress_set;
/// # let spirv = smolv_format::doc_example_module();
/// let smolv = smolv_codec::encode(&spirv[..], &Default::default())?;
/// let set = compress_set(&[smolv], 19, DictionaryMode::Auto)?;
/// assert_eq!(set.payloads.len(), 1);
/// assert_eq!(set.dictionary, None, "one module is too little to train a dictionary on");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressedSet {
    /// The shared zstd dictionary the payloads need, if one was worth it.
    pub dictionary: Option<Vec<u8>>,
    /// Each module's payload: one zstd frame, without checksum or dictionary id.
    pub payloads: Vec<Vec<u8>>,
}

impl CompressedSet {
    /// Size of the shared dictionary, 0 if there is none.
    ///
    /// ```
    /// let set = smolv_build::bundle::CompressedSet { dictionary: Some(vec![0; 1024]), payloads: Vec::new() };
    /// assert_eq!(set.dictionary_len(), 1024);
    /// ```
    pub fn dictionary_len(&self) -> usize {
        self.dictionary.as_ref().map_or(0, Vec::len)
    }
}

/// Compresses SMOL-V modules as the build does: zstd at `level`, with a dictionary as `mode` says.
///
/// ```
/// use smolv_build::DictionaryMode;
/// use smolv_build::bundle::compress_set;
/// # let spirv = smolv_format::doc_example_module();
/// let smolv = smolv_codec::encode(&spirv[..], &Default::default())?;
/// let set = compress_set(&[smolv.clone(), smolv.clone()], 19, DictionaryMode::Auto)?;
/// assert_eq!(set.payloads.len(), 2);
/// // Everything to decompress them is in the set.
/// let mut zstd = match &set.dictionary {
///     Some(dictionary) => zstd::bulk::Decompressor::with_dictionary(dictionary)?,
///     None => zstd::bulk::Decompressor::new()?,
/// };
/// assert_eq!(zstd.decompress(&set.payloads[0], smolv.len())?, smolv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compress_set(smolv: &[Vec<u8>], level: i32, mode: DictionaryMode) -> Result<CompressedSet, Error> {
    let packed = compress(smolv, level, mode).map_err(Error::Internal)?;
    Ok(CompressedSet { dictionary: packed.dictionary.map(|d| d.as_bytes().to_vec()), payloads: packed.payloads })
}
