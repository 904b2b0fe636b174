//! Shaders from asset files: containers (`.smvc`) and bundles (`.smvb`), blake3-checked.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::{Encoded, Shader, Source};
use crate::embed::source::{Cache, ShaderSource};
use crate::shader_error::ShaderError;
use smolv_codec::DecodeOptions;
use smolv_codec::container::{Container, ContainerError, ContentHash, Dictionary, OpenError};

/// A range of a loaded file's bytes, shared.
#[derive(Clone, Debug)]
pub(crate) struct Shared {
    data: Arc<[u8]>,
    start: usize,
    end: usize,
}

impl Shared {
    fn new(data: Arc<[u8]>) -> Self {
        let end = data.len();
        Self { data, start: 0, end }
    }

    #[inline]
    pub(crate) fn get(&self) -> &[u8] {
        self.data.get(self.start..self.end).unwrap_or_default()
    }

    /// The part `start..end` of these bytes (empty if out of range).
    fn slice(&self, start: usize, end: usize) -> Self {
        let (start, end) = match (self.start.checked_add(start), self.start.checked_add(end)) {
            (Some(s), Some(e)) if s <= e && e <= self.end => (s, e),
            _ => (self.start, self.start),
        };
        Self { data: Arc::clone(&self.data), start, end }
    }
}

/// A loaded container: its header's records, and the dictionary it shares with its bundle.
#[derive(Debug)]
struct LoadedContainer {
    name: Box<str>,
    bytes: Shared,
    reflection: Shared,
    dictionary: Option<Arc<Dictionary>>,
    hash: ContentHash,
    spirv_len: usize,
    decoded: OnceLock<Vec<u32>>,
}

impl ShaderSource for LoadedContainer {
    fn name(&self, _: usize) -> &str {
        &self.name
    }

    fn stored(&self, _: usize) -> &[u8] {
        self.bytes.get()
    }

    fn spirv_len(&self, _: usize) -> usize {
        self.spirv_len
    }

    fn decode(&self, _: usize, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        Ok(Container::parse(self.bytes.get())?.decode_with(self.dictionary.as_deref(), options, out)?)
    }

    fn cache(&self, _: usize) -> Result<Cache<'_>, ShaderError> {
        Ok(Cache::One(&self.decoded))
    }

    fn recorded(&self) -> Option<(&[u8], ContentHash)> {
        Some((self.reflection.get(), self.hash))
    }
}

/// A shader over container bytes, checked now.
fn shader_from_container(
    name: Box<str>,
    bytes: Shared,
    dictionary: Option<Arc<Dictionary>>,
) -> Result<Shader, ContainerError> {
    let container = Container::parse(bytes.get())?;
    container.reflection()?;
    let matched = match &dictionary {
        _ if container.dictionary_id() == 0 => Ok(()),
        Some(d) if d.id() == container.dictionary_id() => Ok(()),
        Some(_) => Err("a different dictionary was given"),
        None => Err("no dictionary was given"),
    };
    matched.map_err(|found| ContainerError::DictionaryMismatch { expected: container.dictionary_id(), found })?;
    let reflection_at = container.reflection_bytes().as_ptr() as usize - bytes.get().as_ptr() as usize;
    let reflection = bytes.slice(reflection_at, reflection_at + container.reflection_bytes().len());
    let (hash, spirv_len) = (container.content_hash(), container.decoded_len());
    let decoded = OnceLock::new();
    let container = LoadedContainer { name, bytes, reflection, dictionary, hash, spirv_len, decoded };
    let source = Source::Encoded(Encoded::Loaded(Box::new(container)));
    Ok(Shader::with_origin(source, None))
}

impl Shader {
    /// A shader from container bytes (a `.smvc` file), checked now; `dictionary` if it uses one.
    ///
    /// ```
    /// use smolv_runtime::container::ContainerBuilder;
    /// use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// use smolv_runtime::Shader;
    /// # let spirv = smolv_runtime::doc_example_module();
    /// let bytes = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
    /// let shader = Shader::from_container("blur.comp", bytes, None)?;
    /// assert_eq!(shader.decode()?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_container(
        name: impl Into<String>,
        container: Vec<u8>,
        dictionary: Option<Vec<u8>>,
    ) -> Result<Self, ContainerError> {
        let dictionary = dictionary.map(|d| Dictionary::new(d).map(Arc::new)).transpose()?;
        shader_from_container(name.into().into_boxed_str(), Shared::new(container.into()), dictionary)
    }

    /// Reads a container file.
    ///
    /// ```no_run
    /// let blur = smolv_runtime::Shader::open("assets/blur.comp.smvc", None)?;
    /// let words = blur.decode()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>, dictionary: Option<Vec<u8>>) -> Result<Self, OpenError> {
        let path = path.as_ref();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        OpenError::read(path, |bytes| Self::from_container(name, bytes, dictionary))
    }
}

/// A bundle's bytes and its shaders, which share them and one parsed dictionary.
pub(crate) fn loaded_set(bytes: Vec<u8>) -> Result<(Shared, Vec<Shader>), ContainerError> {
    let bytes = Shared::new(bytes.into());
    let bundle = smolv_codec::container::Bundle::parse(bytes.get())?;
    let (dictionary_span, entries) = bundle.layout();
    let dictionary = dictionary_span
        .map(|(start, end)| Dictionary::new(bytes.get()[start..end].to_vec()).map(Arc::new))
        .transpose()?;
    let shaders = entries
        .map(|(name, (start, end))| shader_from_container(name.into(), bytes.slice(start, end), dictionary.clone()))
        .collect::<Result<_, _>>()?;
    Ok((bytes, shaders))
}
