//! Shaders from asset files: containers (`.smvc`) and bundles (`.smvb`),
//! which keep the full blake3 check of everything they decode.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::bytes::Bytes;
use super::{Encoded, Shader, Source};
use crate::embed::source::{Cache, ShaderSource};
use crate::shader_error::ShaderError;
use smolv_codec::DecodeOptions;
use smolv_codec::container::{Container, ContainerError, ContentHash, Dictionary, OpenError};

/// A loaded container: what its header records, and the dictionary it
/// shares with the rest of its bundle.
#[derive(Debug)]
struct LoadedContainer {
    name: Box<str>,
    bytes: Bytes,
    reflection: Bytes,
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

/// A shader over container bytes, checked now: the header, the reflection
/// and the dictionary the container names.
pub(crate) fn shader_from_container(
    name: Box<str>,
    bytes: Bytes,
    dictionary: Option<Arc<Dictionary>>,
) -> Result<Shader, ContainerError> {
    let container = Container::parse(bytes.get())?;
    // Checked now, so that a loaded shader's reflection always parses.
    container.reflection()?;
    if container.dictionary_id() != 0 {
        let found = match &dictionary {
            Some(d) if d.id() == container.dictionary_id() => None,
            Some(_) => Some("a different dictionary was given"),
            None => Some("no dictionary was given"),
        };
        if let Some(found) = found {
            return Err(ContainerError::DictionaryMismatch { expected: container.dictionary_id(), found });
        }
    }
    let reflection_at = container.reflection_bytes().as_ptr() as usize - bytes.get().as_ptr() as usize;
    let reflection = bytes.slice(reflection_at, reflection_at + container.reflection_bytes().len());
    let (hash, spirv_len) = (container.content_hash(), container.decoded_len());
    let decoded = OnceLock::new();
    let container = LoadedContainer { name, bytes, reflection, dictionary, hash, spirv_len, decoded };
    let source = Source::Encoded(Encoded::Loaded(Box::new(container)));
    Ok(Shader::new(source))
}

impl Shader {
    /// A shader from container bytes (a `.smvc` file), checked now.
    /// `dictionary` is needed when the container was compressed with one.
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
        shader_from_container(name.into().into_boxed_str(), Bytes::shared(container.into()), dictionary)
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

/// The shaders of a bundle, sharing its bytes and one parsed dictionary.
pub(crate) fn bundle_shaders(bytes: &Bytes) -> Result<Vec<Shader>, ContainerError> {
    let bundle = smolv_codec::container::Bundle::parse(bytes.get())?;
    let (dictionary_span, entries) = bundle.layout();
    let dictionary = dictionary_span
        .map(|(start, end)| Dictionary::new(bytes.get()[start..end].to_vec()).map(Arc::new))
        .transpose()?;
    let mut shaders = Vec::with_capacity(bundle.len());
    for (name, (start, end)) in entries {
        shaders.push(shader_from_container(name.into(), bytes.slice(start, end), dictionary.clone())?);
    }
    Ok(shaders)
}

/// Used by [`ShaderSet`](super::ShaderSet) to build a loaded set.
pub(crate) fn loaded_set(bytes: Vec<u8>) -> Result<(Bytes, Vec<Shader>), ContainerError> {
    let bytes = Bytes::shared(bytes.into());
    let shaders = bundle_shaders(&bytes)?;
    Ok((bytes, shaders))
}
