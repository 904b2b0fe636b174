//! Shader sets: every shader of a crate (`include_shaders!`), or of a
//! bundle file.

use std::sync::OnceLock;

use smolv_format::{Codec, Framing};

use super::Shader;
use super::kind::{Packed, SetKind};
use crate::embed::EmbeddedSet;
use smolv_codec::container::NotFound;
#[cfg(feature = "zstd-fast")]
use smolv_codec::container::{BundleBuilder, ContainerBuilder, ContainerError, OpenError};

/// How a set's shaders are packed; displays as the build report does: `smolv-lz4 (stream)`.
///
/// ```
/// use smolv_runtime::{Codec, Framing};
/// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
/// let packing = set.packing();
/// // A loaded bundle; an embedded set names its codec, such as `Some(Codec::SmolvLz4)`.
/// assert_eq!((packing.codec, packing.framing), (None, Framing::PerModule));
/// assert_eq!(packing.to_string(), "bundle (per module)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SetPacking {
    /// The codec of an embedded set; `None` for a loaded bundle file.
    pub codec: Option<Codec>,
    /// Whether the modules are packed one by one or as one stream.
    pub framing: Framing,
}

impl core::fmt::Display for SetPacking {
    #[inline]
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let codec = self.codec.map_or("bundle", Codec::name);
        let framing = if self.framing == Framing::Stream { "stream" } else { "per module" };
        write!(f, "{codec} ({framing})")
    }
}

/// What a packed set holds. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct PackedSource(SetSource);

impl SetKind for Packed {
    type Source = PackedSource;
}

/// Where a packed set's shaders come from.
#[derive(Debug)]
enum SetSource {
    /// Embedded: the set, and a `static` shader per module.
    Embedded { set: &'static EmbeddedSet, shaders: &'static [Shader] },
    /// Embedded, with shaders made on first access (large sets).
    Made(&'static LazyShaders),
    /// Embedded words (raw SPIR-V or relative ids), a `static` shader per module.
    Words { shaders: &'static [Shader], stored_len: usize, codec: Codec },
    /// A bundle file, checked when it was loaded.
    #[cfg(feature = "zstd-fast")]
    Bundle { bytes: super::loaded::Shared, shaders: Vec<Shader> },
}

/// Many shaders: what `include_shaders!` embeds, or a bundle file
/// (`cargo smolv pack`). Decoding one never decodes the others.
///
/// ```text
/// smolv_runtime::include_shaders!(static ALL);
/// let sky = ALL.get("sky.wgsl#fs_main")?.decode()?;
/// for shader in ALL.shaders() {
///     println!("{}: {} bytes of SPIR-V", shader.name(), shader.spirv_len());
/// }
/// ```
///
/// `ShaderSet` is a set of any packing ([`Packed`]); a small raw set is a
/// `ShaderSet<Raw>` ([`Raw`](super::Raw)), which links no decoding code.
#[derive(Debug)]
pub struct ShaderSet<K: SetKind = Packed> {
    pub(super) source: K::Source,
}

impl ShaderSet {
    /// For `include_shaders!`: an embedded set. Not a stable API.
    #[doc(hidden)]
    pub const fn embedded(set: &'static EmbeddedSet, shaders: &'static [Shader]) -> Self {
        Self { source: PackedSource(SetSource::Embedded { set, shaders }) }
    }

    /// For `include_shaders!`: a large embedded set. Not a stable API.
    #[doc(hidden)]
    pub const fn made(shaders: &'static LazyShaders) -> Self {
        Self { source: PackedSource(SetSource::Made(shaders)) }
    }

    /// For `include_shaders!`: an embedded set of words, sorted by name. Not a stable API.
    #[doc(hidden)]
    pub const fn words(shaders: &'static [Shader], stored_len: usize, codec: Codec) -> Self {
        Self { source: PackedSource(SetSource::Words { shaders, stored_len, codec }) }
    }

    /// A set from bundle bytes (an `.smvb` asset), checked now and on every decode.
    ///
    /// ```
    /// # use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
    /// # use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// # let spirv = smolv_runtime::doc_example_module();
    /// # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
    /// # let bundle = BundleBuilder::new().add("blur.comp", container).build()?;
    /// // let bundle = std::fs::read("assets/shaders.smvb")?;
    /// let set = smolv_runtime::ShaderSet::from_vec(bundle)?;
    /// assert_eq!(set.get("blur.comp")?.decode()?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "zstd-fast")]
    #[inline]
    pub fn from_vec(bundle: Vec<u8>) -> Result<Self, ContainerError> {
        let (bytes, shaders) = super::loaded::loaded_set(bundle)?;
        Ok(Self { source: PackedSource(SetSource::Bundle { bytes, shaders }) })
    }

    /// Reads a bundle file.
    ///
    /// ```no_run
    /// let set = smolv_runtime::ShaderSet::open("assets/shaders.smvb")?;
    /// let sky = set.get("sky.wgsl#fs_main")?.decode()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "zstd-fast")]
    #[inline]
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Self, OpenError> {
        OpenError::read(path.as_ref(), Self::from_vec)
    }

    /// Every shader, sorted by name.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// assert_eq!(set.shaders().len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn shaders(&self) -> &[Shader] {
        match &self.source.0 {
            SetSource::Embedded { shaders, .. } | SetSource::Words { shaders, .. } => shaders,
            SetSource::Made(made) => (made.make)(made),
            #[cfg(feature = "zstd-fast")]
            SetSource::Bundle { shaders, .. } => shaders,
        }
    }

    /// Iterates over every shader, sorted by name.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// for shader in set.iter() {
    ///     println!("{}: {} bytes of SPIR-V", shader.name(), shader.spirv_len());
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Shader> {
        self.shaders().iter()
    }

    /// The shader named `name`. A miss suggests the closest names.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// assert_eq!(set.get("blur.comp")?.name(), "blur.comp");
    /// let missing = set.get("blur.com").unwrap_err();
    /// assert!(missing.to_string().contains("blur.comp"), "{missing}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn get(&self, name: &str) -> Result<&Shader, NotFound> {
        named(self.shaders(), name, Shader::name)
    }

    /// How the set is packed, as smolv-build chose it.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// // A bundle; an embedded set names its codec, such as `Some(Codec::SmolvLz4)`.
    /// assert_eq!(set.packing().codec, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn packing(&self) -> SetPacking {
        match &self.source.0 {
            SetSource::Embedded { set, .. } | SetSource::Made(LazyShaders { set, .. }) => SetPacking {
                codec: Some(set.codec()),
                framing: if set.one_stream() { Framing::Stream } else { Framing::PerModule },
            },
            SetSource::Words { codec, .. } => SetPacking { codec: Some(*codec), framing: Framing::PerModule },
            #[cfg(feature = "zstd-fast")]
            SetSource::Bundle { .. } => SetPacking { codec: None, framing: Framing::PerModule },
        }
    }

    /// How many bytes the set occupies in the binary (as the build report counts them) or as a file.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// assert!(set.stored_len() > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn stored_len(&self) -> usize {
        match &self.source.0 {
            SetSource::Embedded { set, .. } | SetSource::Made(LazyShaders { set, .. }) => set.stored_len(),
            SetSource::Words { stored_len, .. } => *stored_len,
            #[cfg(feature = "zstd-fast")]
            SetSource::Bundle { bytes, .. } => bytes.get().len(),
        }
    }
}

/// The one of `shaders` (sorted by name) named `name`; a miss suggests the closest names.
#[inline]
pub(super) fn named<'s, T>(shaders: &'s [T], name: &str, name_of: fn(&T) -> &str) -> Result<&'s T, NotFound> {
    match shaders.binary_search_by(|s| name_of(s).cmp(name)) {
        Ok(i) => Ok(&shaders[i]),
        Err(_) => Err(NotFound::new(name, shaders.iter().map(name_of))),
    }
}

/// A bundle of `blur.comp` and its SPIR-V, for doc examples. Not a stable API.
#[doc(hidden)]
#[cfg(feature = "zstd-fast")]
pub fn doc_example_set() -> (Vec<u32>, ShaderSet) {
    use crate::reflect::{Reflection, ShaderStage};
    let spirv = smolv_format::doc_example_module();
    let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build();
    let bundle = BundleBuilder::new().add("blur.comp", container.expect("the example container")).build();
    (spirv, ShaderSet::from_vec(bundle.expect("the example bundle")).expect("the example set"))
}

/// An embedded set built at run time (tests and benchmarks), leaked. Not a stable API.
#[doc(hidden)]
pub fn leaked_embedded_set(set: EmbeddedSet) -> ShaderSet {
    let set: &'static EmbeddedSet = Box::leak(Box::new(set));
    let shaders: Vec<Shader> = (0..set.len()).map(|index| Shader::in_set(set, index)).collect();
    ShaderSet::embedded(set, shaders.leak())
}

/// The shaders of a large embedded set, made on first access (`make` is linked
/// only by such sets). Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct LazyShaders {
    set: &'static EmbeddedSet,
    made: OnceLock<&'static [Shader]>,
    make: fn(&'static LazyShaders) -> &'static [Shader],
}

impl LazyShaders {
    /// The shaders of `set`. Not a stable API.
    pub const fn new(set: &'static EmbeddedSet) -> Self {
        Self { set, made: OnceLock::new(), make: Self::make }
    }

    fn make(&'static self) -> &'static [Shader] {
        let set = self.set;
        self.made.get_or_init(|| (0..set.len()).map(|index| Shader::in_set(set, index)).collect::<Vec<_>>().leak())
    }
}

#[cfg(all(test, feature = "zstd-fast"))]
mod tests {
    use super::ShaderSet;
    use smolv_codec::container::{BundleBuilder, ContainerBuilder};
    use smolv_format::reflect::{Reflection, ShaderStage};

    /// A set's own slicing of a bundle (`Bundle::layout`) under every
    /// truncation and bit flip: an error, or exactly the right module.
    #[test]
    fn every_truncation_and_bit_flip_of_a_bundle_is_an_error_or_a_checked_decode() {
        let spirv = smolv_format::doc_example_module();
        let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build().unwrap();
        let bundle = BundleBuilder::new().add("a.comp", container.clone()).add("b.comp", container).build().unwrap();
        assert_eq!(ShaderSet::from_vec(bundle.clone()).unwrap().get("b.comp").unwrap().decode().unwrap(), spirv);
        for len in 0..bundle.len() {
            assert!(ShaderSet::from_vec(bundle[..len].to_vec()).is_err(), "bundle truncated to {len}");
        }
        for bit in 0..bundle.len() * 8 {
            let mut flipped = bundle.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            if let Ok(set) = ShaderSet::from_vec(flipped) {
                for shader in set.iter() {
                    if let Ok(words) = shader.decode() {
                        assert_eq!(words, spirv, "bit {bit}");
                    }
                }
            }
        }
    }
}
