//! Shaders and shader sets: what the macros embed and asset files load into.
//!
//! ```
//! use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
//! use smolv_runtime::reflect::{Reflection, ShaderStage};
//! use smolv_runtime::ShaderSet;
//!
//! # let spirv = smolv_runtime::doc_example_module();
//! # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
//! # let asset = BundleBuilder::new().add("blur.comp", container).build()?;
//! // let asset = std::fs::read("assets/shaders.smvb")?;
//! let shaders = ShaderSet::from_vec(asset)?;
//! let blur = shaders.get("blur.comp")?;
//! assert_eq!(blur.reflection()?.stage, ShaderStage::Compute);
//! let words = blur.decode()?;
//! assert_eq!(words[0], 0x0723_0203);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "hot-reload")]
pub mod hot_reload;
mod kind;
#[cfg(feature = "zstd-fast")]
mod loaded;
mod raw;
mod set;

pub use kind::{Packed, Raw, SetKind};
pub use raw::RawShader;
#[doc(hidden)]
pub use raw::doc_example_raw_set;
#[cfg(feature = "zstd-fast")]
#[doc(hidden)]
pub use set::doc_example_set;
pub use set::{LazyShaders, SetPacking, ShaderSet, leaked_embedded_set};

use std::borrow::Cow;

use crate::embed::source::ShaderSource;
use crate::embed::{EmbeddedModule, EmbeddedSet, RelativeIdsModule, WgslModule, WgslSet, copy_words};
use crate::reflect::{Reflection, ShaderStage};
use crate::shader_error::ShaderError;
use smolv_codec::DecodeOptions;
use smolv_codec::container::ContentHash;

/// What a shader records of its origin: nothing without `hot-reload`.
#[cfg(feature = "hot-reload")]
type OriginOf = hot_reload::Origin;
#[cfg(not(feature = "hot-reload"))]
type OriginOf = ();

/// Where a shader's bytes come from: two levels, so a raw shader is as small as `(&str, &[u8])`.
#[derive(Debug)]
pub(crate) enum Source {
    /// Raw SPIR-V words, checked at compile time ([`spirv_module`](crate::embed::spirv_module)).
    Raw { name: &'static str, words: &'static [u32] },
    /// Everything that must be decoded before it is SPIR-V.
    Encoded(Encoded),
}

/// A shader stored as other than SPIR-V, behind a trait object (see [`ShaderSource`]).
pub(crate) enum Encoded {
    /// Module `index` of what the macros embedded.
    Embedded { source: &'static dyn ShaderSource, index: usize },
    /// A container from a file or a bundle.
    #[cfg(feature = "zstd-fast")]
    Loaded(Box<dyn ShaderSource>),
}

impl Encoded {
    /// The source and the module's index in it.
    #[inline]
    fn parts(&self) -> (&dyn ShaderSource, usize) {
        match self {
            Self::Embedded { source, index } => (*source, *index),
            #[cfg(feature = "zstd-fast")]
            Self::Loaded(loaded) => (&**loaded, 0),
        }
    }

    #[inline]
    fn decode_cached(&self) -> Result<&[u32], ShaderError> {
        let (source, index) = self.parts();
        crate::embed::decode_cached(source, index)
    }
}

/// `Encoded`'s methods that call its source's method of the same name on its module.
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        impl Encoded {$(
            #[inline]
            fn $name(&self, $($arg: $ty),*) -> $out {
                let (source, index) = self.parts();
                source.$name(index, $($arg),*)
            }
        )*}
    };
}

forward! {
    name() -> &str;
    stored() -> &[u8];
    spirv_len() -> usize;
    decode(options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError>;
    wgsl() -> Result<Option<&str>, ShaderError>;
}

/// Prints the name and index without `Debug` in the kinds' vtables.
impl core::fmt::Debug for Encoded {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Embedded { source, index } => {
                f.debug_struct("Embedded").field("name", &source.name(*index)).field("index", index).finish()
            }
            #[cfg(feature = "zstd-fast")]
            Self::Loaded(loaded) => f.debug_struct("Loaded").field("name", &loaded.name(0)).finish(),
        }
    }
}

/// Each embedded kind's constructor, and its `_from` twin that also takes the origin.
macro_rules! constructors {
    ($($(#[$doc:meta])* $name:ident, $from:ident($($arg:ident: $ty:ty),*) => $source:expr;)*) => {$(
        $(#[$doc])*
        #[doc = "Not a stable API."]
        #[doc(hidden)]
        pub const fn $name($($arg: $ty),*) -> Self {
            Self::with_origin($source, None)
        }

        #[doc = concat!("[`Self::", stringify!($name), "`] and where it came from. Not a stable API.")]
        #[doc(hidden)]
        pub const fn $from($($arg: $ty,)* origin: Option<&'static OriginOf>) -> Self {
            Self::with_origin($source, origin)
        }
    )*};
}

/// One shader: its stored bytes, its reflection, and how to decode it.
#[derive(Debug)]
pub struct Shader {
    source: Source,
    #[cfg(feature = "hot-reload")]
    reload: hot_reload::State,
}

impl Shader {
    #[inline]
    const fn with_origin(source: Source, origin: Option<&'static OriginOf>) -> Self {
        #[cfg(not(feature = "hot-reload"))]
        let _ = origin;
        Self {
            source,
            #[cfg(feature = "hot-reload")]
            reload: hot_reload::State::new(origin),
        }
    }

    constructors! {
        /// For `include_shader!`: one module embedded on its own.
        embedded, embedded_from(module: &'static EmbeddedModule) =>
            Source::Encoded(Encoded::Embedded { source: module, index: 0 });
        /// For the macros: a raw SPIR-V module, as words.
        raw, raw_from(name: &'static str, words: &'static [u32]) => Source::Raw { name, words };
        /// For the macros: a module of SPIR-V with relative ids ([`crate::relative_ids`]).
        relative_ids, relative_ids_from(module: &'static RelativeIdsModule) =>
            Source::Encoded(Encoded::Embedded { source: module, index: 0 });
        /// For `include_shaders!`: module `index` of an embedded set.
        in_set, in_set_from(set: &'static EmbeddedSet, index: usize) =>
            Source::Encoded(Encoded::Embedded { source: set, index });
        /// For `include_shaders!`: module `index` of a set shipped as WGSL.
        in_wgsl_set, in_wgsl_set_from(set: &'static WgslSet, index: usize) =>
            Source::Encoded(Encoded::Embedded { source: set, index });
        /// For `include_shader!`: one module shipped as WGSL.
        wgsl_module, wgsl_module_from(module: &'static WgslModule) =>
            Source::Encoded(Encoded::Embedded { source: module, index: 0 });
    }

    /// The shader's name: `lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert_eq!(shader.name(), "blur.comp");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn name(&self) -> &str {
        match &self.source {
            Source::Raw { name, .. } => name,
            Source::Encoded(encoded) => encoded.name(),
        }
    }

    /// The bytes this shader occupies as stored: its packed module (embedded, words in the
    /// target's byte order), or its container (loaded).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert!(!shader.stored_bytes().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn stored_bytes(&self) -> &[u8] {
        match &self.source {
            Source::Raw { words, .. } => bytemuck::cast_slice(words),
            Source::Encoded(encoded) => encoded.stored(),
        }
    }

    /// The [`Reflection`], parsed on each call from the container or the SPIR-V; names are empty
    /// where the build stripped them (`smolv_build::Config::keep_interface_names`).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert_eq!(shader.reflection()?.entry_point, "main");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn reflection(&self) -> Result<Reflection, ShaderError> {
        match self.recorded() {
            Some((reflection, _)) => Ok(Reflection::from_bytes(reflection)?),
            None => Ok(Reflection::from_spirv(self.decode_cached()?)?),
        }
    }

    /// A loaded container's stored reflection and content hash, unless newer words were published.
    #[inline]
    fn recorded(&self) -> Option<(&[u8], ContentHash)> {
        #[cfg(feature = "hot-reload")]
        if self.reload.latest().is_some() {
            return None;
        }
        match &self.source {
            Source::Raw { .. } => None,
            Source::Encoded(encoded) => encoded.parts().0.recorded(),
        }
    }

    /// The stage, from the reflection.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert_eq!(shader.stage()?, smolv_runtime::reflect::ShaderStage::Compute);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn stage(&self) -> Result<ShaderStage, ShaderError> {
        Ok(self.reflection()?.stage)
    }

    /// Bytes of SPIR-V this shader decodes to, from its metadata (0 if a table is damaged).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert_eq!(shader.spirv_len(), spirv.len() * 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn spirv_len(&self) -> usize {
        #[cfg(feature = "hot-reload")]
        if let Some(words) = self.reload.latest() {
            return words.len() * 4;
        }
        match &self.source {
            Source::Raw { words, .. } => size_of_val(*words),
            Source::Encoded(encoded) => encoded.spirv_len(),
        }
    }

    /// blake3 of the decoded SPIR-V: a stable pipeline-cache key (recorded, or computed).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert_eq!(shader.content_hash()?, smolv_runtime::container::ContentHash::of_spirv(&spirv));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn content_hash(&self) -> Result<ContentHash, ShaderError> {
        match self.recorded() {
            Some((_, hash)) => Ok(hash),
            None => Ok(ContentHash::of_spirv(self.decode_cached()?)),
        }
    }

    /// Decodes to SPIR-V words, checking the recorded hash.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// assert_eq!(shader.decode()?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn decode(&self) -> Result<Vec<u32>, ShaderError> {
        let mut out = Vec::new();
        self.decode_into(&mut out)?;
        Ok(out)
    }

    /// Decodes into `out`, reusing its allocation.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// let mut words = Vec::new();
    /// shader.decode_into(&mut words)?;
    /// assert_eq!(words, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn decode_into(&self, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        self.decode_with(&DecodeOptions::new(), out)
    }

    /// Decodes with explicit options (say, without the hash check); on error `out` is empty.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// let options = smolv_runtime::DecodeOptions::new();
    /// let mut words = Vec::new();
    /// shader.decode_with(&options, &mut words)?;
    /// assert_eq!(words, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn decode_with(&self, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        #[cfg(feature = "hot-reload")]
        if let Some(words) = self.reload.latest() {
            copy_words(words, out);
            return Ok(());
        }
        match &self.source {
            Source::Raw { words, .. } => {
                copy_words(words, out);
                Ok(())
            }
            Source::Encoded(encoded) => encoded.decode(options, out).inspect_err(|_| out.clear()),
        }
    }

    /// Decodes once, thread-safely, and keeps the words (raw SPIR-V is served from the binary).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// let words: &[u32] = shader.decode_cached()?;
    /// assert_eq!(words, &spirv[..]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn decode_cached(&self) -> Result<&[u32], ShaderError> {
        #[cfg(feature = "hot-reload")]
        if let Some(words) = self.reload.latest() {
            return Ok(words);
        }
        match &self.source {
            Source::Raw { words, .. } => Ok(words),
            Source::Encoded(encoded) => encoded.decode_cached(),
        }
    }

    /// The shader's minified WGSL, where a build for wgpu shipped it instead of SPIR-V (then
    /// [`decode`](Self::decode) fails with [`ShippedAsWgsl`](crate::ShaderErrorKind::ShippedAsWgsl)).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let shader = set.get("blur.comp")?;
    /// match shader.wgsl()? {
    ///     Some(wgsl) => println!("WGSL: {} bytes", wgsl.len()), // ShaderSource::Wgsl(wgsl)
    ///     None => println!("SPIR-V: {} words", shader.decode()?.len()), // ShaderSource::SpirV
    /// }
    /// # assert!(shader.wgsl()?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn wgsl(&self) -> Result<Option<Cow<'_, str>>, ShaderError> {
        #[cfg(feature = "hot-reload")]
        if self.reload.latest().is_some() {
            return Ok(None);
        }
        match &self.source {
            Source::Raw { .. } => Ok(None),
            Source::Encoded(encoded) => Ok(encoded.wgsl()?.map(Cow::Borrowed)),
        }
    }

    /// Where this embedded shader came from; `None` for loaded ones.
    ///
    /// ```text
    /// static ALL: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
    /// let post = ALL.get("post.frag")?;
    /// println!("{} from {}", post.name(), post.origin().map_or("?", |o| o.source()));
    /// ```
    #[cfg(feature = "hot-reload")]
    #[inline]
    pub fn origin(&self) -> Option<&'static hot_reload::Origin> {
        self.reload.origin
    }

    /// How many times new words were published for this shader (always 0 without `hot-reload`).
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// assert_eq!(set.get("blur.comp")?.version(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn version(&self) -> u64 {
        #[cfg(feature = "hot-reload")]
        return self.reload.version();
        #[cfg(not(feature = "hot-reload"))]
        0
    }

    /// Makes `words` this shader's SPIR-V, tells every [`subscriber`](hot_reload::subscribe),
    /// and returns the new version.
    ///
    /// ```
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let blur = set.get("blur.comp")?;
    /// assert_eq!(blur.publish(spirv.clone())?, 1);
    /// assert_eq!(blur.version(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Shaders that changed together: [`hot_reload::publish_together`].
    #[cfg(feature = "hot-reload")]
    pub fn publish(&self, words: Vec<u32>) -> Result<u64, hot_reload::PublishError> {
        let versions = hot_reload::publish_together([(self, words)])?;
        Ok(versions.first().copied().unwrap_or_else(|| self.version()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_shader_is_as_small_as_a_name_and_words() {
        assert_eq!(size_of::<Source>(), 2 * size_of::<&str>());
        // With `hot-reload`, a shader also carries its reload state.
        if !cfg!(feature = "hot-reload") {
            assert_eq!(size_of::<Shader>(), size_of::<Source>());
        }
    }
}
