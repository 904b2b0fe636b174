//! A set of raw SPIR-V, known at compile time: what `include_shaders!(static NAME);`
//! declares for a small set; it links only what a table of `include_bytes!` would.

use core::convert::Infallible;

use smolv_format::{Codec, Framing};

use super::kind::{Raw, SetKind};
use super::set::{SetPacking, ShaderSet};
use super::{OriginOf, Shader, Source};
use smolv_codec::container::NotFound;

impl SetKind for Raw {
    type Source = RawSource;
}

/// What a raw set holds. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct RawSource {
    shaders: &'static [RawShader],
    stored_len: usize,
}

/// A shader of a raw set: a name and SPIR-V words in the binary. It derefs to [`Shader`];
/// its own `name`, `decode` and `decode_cached` skip other kinds' branches and cannot fail.
///
/// ```text
/// smolv_runtime::include_shaders!(static ALL);
/// let words: Vec<u32> = ALL.get("lit.frag")?.decode()?; // never an error
/// ```
#[derive(Debug)]
#[repr(transparent)]
pub struct RawShader(Shader);

impl RawShader {
    /// For `include_shaders!`: module `name`, of `words`. Not a stable API.
    #[doc(hidden)]
    pub const fn new(name: &'static str, words: &'static [u32]) -> Self {
        Self(Shader::raw(name, words))
    }

    /// [`Self::new`] and where it came from. Not a stable API.
    #[doc(hidden)]
    pub const fn from_parts(name: &'static str, words: &'static [u32], origin: Option<&'static OriginOf>) -> Self {
        Self(Shader::raw_from(name, words, origin))
    }

    /// The name and words of the raw shader this always is (the other arm costs the
    /// same binary as `unreachable_unchecked`, so this stays safe).
    #[inline]
    fn parts(&self) -> (&'static str, &'static [u32]) {
        match &self.0.source {
            Source::Raw { name, words } => (name, words),
            Source::Encoded(_) => ("", &[]),
        }
    }

    /// The shader's name, such as `lit.frag`.
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// assert_eq!(ALL.get("blur.comp")?.name(), "blur.comp");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn name(&self) -> &str {
        self.parts().0
    }

    /// The SPIR-V words, from the binary (or the last ones published, feature `hot-reload`).
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// assert_eq!(ALL.get("blur.comp")?.words()[0], 0x0723_0203);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn words(&self) -> &[u32] {
        #[cfg(feature = "hot-reload")]
        if let Some(words) = self.0.reload.latest() {
            return words;
        }
        self.parts().1
    }

    /// A copy of the words; a `Result` like [`Shader::decode`]'s, never an error.
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// let Ok(words) = ALL.get("blur.comp")?.decode();
    /// assert_eq!(words[0], 0x0723_0203);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    // `always`: the caller's loop then compiles as one over an `include_bytes!` table
    // (with `#[inline]` the size test's set grew by 16 B).
    #[inline(always)]
    pub fn decode(&self) -> Result<Vec<u32>, Infallible> {
        // Through the bytes, as `ash::util::read_spv` copies: no overflow check.
        let bytes: &[u8] = bytemuck::cast_slice(self.words());
        Ok(bytes.chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    /// The words, without a copy; never an error (see [`Self::decode`]).
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// let Ok(words) = ALL.get("blur.comp")?.decode_cached();
    /// assert_eq!(words[0], 0x0723_0203);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn decode_cached(&self) -> Result<&[u32], Infallible> {
        Ok(self.words())
    }
}

impl core::ops::Deref for RawShader {
    type Target = Shader;

    #[inline]
    fn deref(&self) -> &Shader {
        &self.0
    }
}

impl ShaderSet<Raw> {
    /// For `include_shaders!(static NAME);`: a raw set's shaders, sorted by name. Not a stable API.
    #[doc(hidden)]
    pub const fn raw(shaders: &'static [RawShader], stored_len: usize) -> Self {
        Self { source: RawSource { shaders, stored_len } }
    }

    /// Every shader, sorted by name.
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// for shader in ALL.shaders() {
    ///     println!("{}: {} words", shader.name(), shader.words().len());
    /// }
    /// ```
    #[inline]
    pub fn shaders(&self) -> &[RawShader] {
        self.source.shaders
    }

    /// Iterates over every shader, sorted by name.
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// assert_eq!(ALL.iter().count(), 1);
    /// ```
    #[inline]
    pub fn iter(&self) -> core::slice::Iter<'_, RawShader> {
        self.shaders().iter()
    }

    /// The shader named `name`. A miss suggests the closest names.
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// assert_eq!(ALL.get("blur.comp")?.name(), "blur.comp");
    /// assert!(ALL.get("blur.com").unwrap_err().to_string().contains("blur.comp"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn get(&self, name: &str) -> Result<&RawShader, NotFound> {
        super::set::named(self.shaders(), name, RawShader::name)
    }

    /// Raw SPIR-V, one module at a time.
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// assert_eq!(ALL.packing().to_string(), "spirv (per module)");
    /// ```
    #[inline]
    pub fn packing(&self) -> SetPacking {
        SetPacking { codec: Some(Codec::Spirv), framing: Framing::PerModule }
    }

    /// How many bytes the set occupies in the binary ([`ShaderSet::stored_len`]).
    ///
    /// ```
    /// # static ALL: smolv_runtime::ShaderSet<smolv_runtime::shader::Raw> = smolv_runtime::shader::doc_example_raw_set();
    /// assert!(ALL.stored_len() > 0);
    /// ```
    #[inline]
    pub fn stored_len(&self) -> usize {
        self.source.stored_len
    }
}

/// A raw set of `blur.comp`, for doc examples. Not a stable API.
#[doc(hidden)]
pub const fn doc_example_raw_set() -> ShaderSet<Raw> {
    static SHADERS: [RawShader; 1] = [RawShader::new("blur.comp", &smolv_format::DOC_EXAMPLE_WORDS)];
    ShaderSet::raw(&SHADERS, 4 * smolv_format::DOC_EXAMPLE_WORDS.len() + 9 + 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    static ALL: ShaderSet<Raw> = doc_example_raw_set();

    #[test]
    fn a_raw_shader_is_a_shader_and_serves_its_words() {
        assert_eq!(size_of::<RawShader>(), size_of::<Shader>());
        let shader = ALL.get("blur.comp").unwrap();
        assert_eq!(shader.words(), &crate::DOC_EXAMPLE_WORDS[..]);
        let Ok(words) = shader.decode();
        assert_eq!(words, crate::DOC_EXAMPLE_WORDS);
        // What every shader offers, through `Deref`, agrees.
        assert_eq!(shader.spirv_len(), 4 * crate::DOC_EXAMPLE_WORDS.len());
        assert_eq!(Shader::name(shader), "blur.comp");
        assert!(ALL.get("blur").is_err());
    }
}
