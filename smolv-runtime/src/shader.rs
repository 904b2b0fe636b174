//! Shaders and shader sets: what `include_shader!` and `include_shaders!`
//! produce, and what asset files load into.
//!
//! ```
//! use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
//! use smolv_runtime::reflect::{Reflection, ShaderStage};
//! use smolv_runtime::ShaderSet;
//!
//! # let spirv = smolv_runtime::doc_example_module();
//! # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
//! # let asset = BundleBuilder::new().add("blur.comp", container).build();
//! // let asset = std::fs::read("assets/shaders.smvb")?;
//! let shaders = ShaderSet::from_vec(asset)?;
//! let blur = shaders.get("blur.comp")?;
//! assert_eq!(blur.reflection().stage, ShaderStage::Compute);
//! let words = blur.decode()?;
//! assert_eq!(words[0], 0x0723_0203);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::container::{Bundle, Container, ContainerError, ContentHash, DecodeSettings, Dictionary};
use crate::reflect::{Reflection, ShaderStage};

/// Bytes that are either embedded in the binary or shared with a loaded
/// asset file.
#[derive(Clone, Debug)]
enum Bytes {
    Static(&'static [u8]),
    Shared { data: Arc<[u8]>, start: usize, end: usize },
}

impl Bytes {
    fn get(&self) -> &[u8] {
        match self {
            Self::Static(bytes) => bytes,
            Self::Shared { data, start, end } => data.get(*start..*end).unwrap_or_default(),
        }
    }
}

/// One shader: a container (compressed SPIR-V plus reflection), with its
/// name and the dictionary it needs.
///
/// Decoding allocates only the output; [`Shader::decode_into`] reuses a
/// buffer, and [`Shader::decode_cached`] decodes once and keeps the result.
#[derive(Debug)]
pub struct Shader {
    name: &'static str,
    owned_name: Option<Box<str>>,
    container: Bytes,
    dictionary: Option<Bytes>,
    parsed_dictionary: OnceLock<Option<Dictionary>>,
    reflection: OnceLock<Reflection>,
    decoded: OnceLock<Vec<u32>>,
}

impl Shader {
    /// For `include_shader!`: a shader embedded in the binary. The macro
    /// checks at compile time that `container` is a valid container.
    #[doc(hidden)]
    pub const fn from_static(name: &'static str, container: &'static [u8], dictionary: Option<&'static [u8]>) -> Self {
        Self {
            name,
            owned_name: None,
            container: Bytes::Static(container),
            dictionary: match dictionary {
                Some(d) => Some(Bytes::Static(d)),
                None => None,
            },
            parsed_dictionary: OnceLock::new(),
            reflection: OnceLock::new(),
            decoded: OnceLock::new(),
        }
    }

    /// A shader from container bytes (a `.smvc` file), checked now.
    /// `dictionary` is needed when the container was compressed with one.
    pub fn from_container(
        name: impl Into<String>,
        container: Vec<u8>,
        dictionary: Option<Vec<u8>>,
    ) -> Result<Self, ContainerError> {
        let container: Arc<[u8]> = container.into();
        let len = container.len();
        let dictionary = dictionary.map(|d| {
            let len = d.len();
            Bytes::Shared { data: d.into(), start: 0, end: len }
        });
        let shader = Self {
            name: "",
            owned_name: Some(name.into().into_boxed_str()),
            container: Bytes::Shared { data: container, start: 0, end: len },
            dictionary,
            parsed_dictionary: OnceLock::new(),
            reflection: OnceLock::new(),
            decoded: OnceLock::new(),
        };
        shader.validate()?;
        Ok(shader)
    }

    /// Reads a container file.
    pub fn open(path: impl AsRef<Path>, dictionary: Option<Vec<u8>>) -> Result<Self, ContainerError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ContainerError::Io { path: path.to_owned(), source })?;
        Self::from_container(path.file_name().unwrap_or_default().to_string_lossy(), bytes, dictionary)
    }

    fn validate(&self) -> Result<(), ContainerError> {
        let container = self.container()?;
        let reflection = container.reflection()?;
        let _ = self.reflection.set(reflection);
        if container.dictionary_id() != 0 {
            match self.dictionary()? {
                Some(d) if d.id() == container.dictionary_id() => {}
                Some(_) => {
                    return Err(ContainerError::DictionaryMismatch {
                        expected: container.dictionary_id(),
                        found: "a different dictionary was given",
                    });
                }
                None => {
                    return Err(ContainerError::DictionaryMismatch {
                        expected: container.dictionary_id(),
                        found: "no dictionary was given",
                    });
                }
            }
        }
        Ok(())
    }

    /// The shader's name: `lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`.
    pub fn name(&self) -> &str {
        self.owned_name.as_deref().unwrap_or(self.name)
    }

    /// The parsed container header.
    pub fn container(&self) -> Result<Container<'_>, ContainerError> {
        Container::parse(self.container.get())
    }

    /// The raw container bytes, as embedded or loaded.
    pub fn container_bytes(&self) -> &[u8] {
        self.container.get()
    }

    fn dictionary(&self) -> Result<Option<&Dictionary>, ContainerError> {
        if let Some(parsed) = self.parsed_dictionary.get() {
            return Ok(parsed.as_ref());
        }
        let parsed = match &self.dictionary {
            None => None,
            Some(Bytes::Static(bytes)) => Some(Dictionary::new(*bytes)?),
            Some(other) => Some(Dictionary::new(other.get().to_vec())?),
        };
        Ok(self.parsed_dictionary.get_or_init(|| parsed).as_ref())
    }

    /// Stage, entry point, bindings, push constants, spec constants and
    /// interface, read from the container's metadata; nothing is decoded.
    pub fn reflection(&self) -> &Reflection {
        self.reflection.get_or_init(|| {
            // Containers are checked when loaded, and by the macros at
            // compile time, so this parse cannot fail in practice; an empty
            // reflection stands in rather than a panic.
            self.container().and_then(|c| c.reflection()).unwrap_or_else(|_| Reflection::new(ShaderStage::Vertex, ""))
        })
    }

    /// The stage, from the reflection.
    pub fn stage(&self) -> ShaderStage {
        self.reflection().stage
    }

    /// blake3 of the decoded SPIR-V: a stable pipeline-cache key.
    pub fn content_hash(&self) -> Result<ContentHash, ContainerError> {
        Ok(self.container()?.content_hash())
    }

    /// Decodes to SPIR-V words, verifying the content hash.
    pub fn decode(&self) -> Result<Vec<u32>, ContainerError> {
        let mut out = Vec::new();
        self.decode_into(&mut out)?;
        Ok(out)
    }

    /// Decodes into `out`, reusing its allocation: in steady state this
    /// allocates nothing.
    pub fn decode_into(&self, out: &mut Vec<u32>) -> Result<(), ContainerError> {
        self.decode_with(&DecodeSettings::default(), out)
    }

    /// Decodes with explicit settings (for example without the hash check).
    pub fn decode_with(&self, settings: &DecodeSettings, out: &mut Vec<u32>) -> Result<(), ContainerError> {
        self.container()?.decode_with(self.dictionary()?, settings, out)
    }

    /// Decodes once, thread-safely, and keeps the words for the life of the
    /// shader. Use it for shaders that are needed again and again.
    pub fn decode_cached(&self) -> Result<&[u32], ContainerError> {
        if let Some(words) = self.decoded.get() {
            return Ok(words);
        }
        let words = self.decode()?;
        Ok(self.decoded.get_or_init(|| words))
    }
}

/// Many shaders sharing one dictionary: what `include_shaders!` embeds and
/// what `cargo smolv pack` writes as an asset file. Looking one up parses
/// only the index; decoding one never decompresses the others.
#[derive(Debug)]
pub struct ShaderSet {
    bytes: Bytes,
    shaders: OnceLock<Result<Vec<Shader>, String>>,
}

impl ShaderSet {
    /// For `include_shaders!`: a bundle embedded in the binary, checked by
    /// the macro at compile time.
    #[doc(hidden)]
    pub const fn from_static(bundle: &'static [u8]) -> Self {
        Self { bytes: Bytes::Static(bundle), shaders: OnceLock::new() }
    }

    /// A set from bundle bytes (an `.smvb` asset), checked now.
    pub fn from_vec(bundle: Vec<u8>) -> Result<Self, ContainerError> {
        let len = bundle.len();
        let set = Self { bytes: Bytes::Shared { data: bundle.into(), start: 0, end: len }, shaders: OnceLock::new() };
        let shaders = set.index()?;
        let _ = set.shaders.set(Ok(shaders));
        Ok(set)
    }

    /// Reads a bundle file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ContainerError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ContainerError::Io { path: path.to_owned(), source })?;
        Self::from_vec(bytes)
    }

    /// Parses the index into shaders that share this set's bytes.
    fn index(&self) -> Result<Vec<Shader>, ContainerError> {
        let bundle = Bundle::parse(self.bytes.get())?;
        let (dictionary_span, entries) = bundle.layout();
        let sub = |(start, end): (usize, usize)| match &self.bytes {
            Bytes::Static(all) => {
                let all: &'static [u8] = all;
                Bytes::Static(all.get(start..end).unwrap_or_default())
            }
            Bytes::Shared { data, start: base, .. } => {
                Bytes::Shared { data: Arc::clone(data), start: base + start, end: base + end }
            }
        };
        let mut shaders = Vec::with_capacity(bundle.len());
        for (name, container) in entries {
            let container = sub(container);
            // Checked once here, so `reflection()` never has to fall back.
            let reflection = Container::parse(container.get())?.reflection()?;
            shaders.push(Shader {
                name: "",
                owned_name: Some(name.into()),
                container,
                dictionary: dictionary_span.map(sub),
                parsed_dictionary: OnceLock::new(),
                reflection: OnceLock::from(reflection),
                decoded: OnceLock::new(),
            });
        }
        Ok(shaders)
    }

    fn shaders(&self) -> Result<&[Shader], ContainerError> {
        let shaders = self.shaders.get_or_init(|| self.index().map_err(|e| e.to_string()));
        shaders.as_deref().map_err(|reason| ContainerError::Build(format!("the shader bundle is corrupt: {reason}")))
    }

    /// The shader named `name`. A miss suggests the closest names.
    pub fn get(&self, name: &str) -> Result<&Shader, ContainerError> {
        let shaders = self.shaders()?;
        match shaders.binary_search_by(|s| s.name().cmp(name)) {
            Ok(i) => Ok(&shaders[i]),
            Err(_) => Err(ContainerError::NotFound {
                name: name.to_owned(),
                suggestion: crate::container::suggest(name, shaders.iter().map(Shader::name)),
            }),
        }
    }

    /// Every shader, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Shader> + '_ {
        self.shaders().unwrap_or_default().iter()
    }

    /// The number of shaders (0 if the bundle is corrupt).
    pub fn len(&self) -> usize {
        self.shaders().map_or(0, <[Shader]>::len)
    }

    /// Whether the set holds no shaders.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw bundle bytes.
    pub fn bundle_bytes(&self) -> &[u8] {
        self.bytes.get()
    }
}
