//! Hot reload's hook (feature `hot-reload`): where newer SPIR-V for a shader
//! is published and how the program hears of it (`smolv-reload` watches and
//! compiles). A shader's methods answer for its latest words, except
//! [`stored_bytes`](crate::Shader::stored_bytes); every version stays in memory,
//! so earlier [`decode_cached`](crate::Shader::decode_cached) slices stay valid.
//!
//! ```
//! use smolv_runtime::hot_reload;
//!
//! # let (spirv, set) = smolv_runtime::shader::doc_example_set();
//! let changes = hot_reload::subscribe();
//! let blur = set.get("blur.comp")?;
//! assert_eq!(blur.version(), 0, "as built");
//!
//! let mut edited = blur.decode()?;
//! edited[2] = 7; // another generator: different words
//! let version = blur.publish(edited.clone())?;
//! assert_eq!(blur.version(), version);
//! assert_eq!(blur.decode()?, edited);
//! assert_eq!(blur.decode_cached()?, &edited[..]);
//!
//! let change = changes.try_recv()?;
//! assert_eq!((change.name.as_str(), change.version), ("blur.comp", version));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Mutex, PoisonError, RwLock};

use super::Shader;

/// Where an embedded shader came from (feature `hot-reload`): its source
/// file, its includes, and smolv-build's recipe to compile it again.
///
/// ```
/// fn describe(shader: &smolv_runtime::Shader) {
///     if let Some(origin) = shader.origin() {
///         println!("{} from {} and {} includes", shader.name(), origin.source(), origin.includes().len());
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Origin {
    source: &'static str,
    includes: &'static [&'static str],
    recipe: &'static str,
}

impl Origin {
    /// What the macros write. Not a stable API.
    #[doc(hidden)]
    pub const fn new(source: &'static str, includes: &'static [&'static str], recipe: &'static str) -> Self {
        Self { source, includes, recipe }
    }

    /// The source file, as the build found it.
    #[inline]
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// Every other file the build's compiler read for it.
    #[inline]
    pub fn includes(&self) -> &'static [&'static str] {
        self.includes
    }

    /// smolv-build's recipe for it, as JSON (`smolv_build::recipe::ShaderRecipe::from_json`):
    /// what smolv-reload recompiles it with. Not a stable API.
    #[doc(hidden)]
    #[inline]
    pub fn recipe(&self) -> &'static str {
        self.recipe
    }
}

/// One published change: the shader's name and its new version.
///
/// ```
/// fn log(change: &smolv_runtime::hot_reload::Reloaded) {
///     println!("{} is at version {}", change.name, change.version);
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reloaded {
    /// The shader's name (`post.frag`, `sky.wgsl#fs_main`).
    pub name: String,
    /// Its version after the change: 1 for the first, and so on.
    pub version: u64,
    /// The program-wide [`generation`] after the change: the same for
    /// every shader of one edit (one [`publish_together`]).
    pub generation: u64,
}

/// Why words could not be published.
///
/// ```
/// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
/// let error = set.get("blur.comp")?.publish(vec![1, 2, 3]).unwrap_err();
/// assert!(error.to_string().contains("SPIR-V"), "{error}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The words do not start with a SPIR-V header.
    #[error("the words published for {name} are not a SPIR-V module (no SPIR-V header); publish a compiled module")]
    NotSpirv {
        /// The shader's name.
        name: String,
    },
}

/// Every subscriber's sender; closed ones are dropped on publish.
static SUBSCRIBERS: Mutex<Vec<Sender<Reloaded>>> = Mutex::new(Vec::new());

/// How many edits were published, program-wide.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Written while an edit is published, read while a shader's state is, so an edit is seen whole.
static EDIT: RwLock<()> = RwLock::new(());

/// Publishes the words of one edit at once, as one [`generation`], and
/// returns each entry's new [`version`](Shader::version); a shader named
/// twice gets its last words.
///
/// # Errors
/// - [`PublishError::NotSpirv`]: some words are not SPIR-V; nothing is published.
///
/// ```
/// use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
/// use smolv_runtime::reflect::{Reflection, ShaderStage};
/// use smolv_runtime::{ShaderSet, hot_reload};
///
/// # let spirv = smolv_runtime::doc_example_module();
/// # let container = || ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build();
/// # let set = ShaderSet::from_vec(BundleBuilder::new().add("a.comp", container()?).add("b.comp", container()?).build()?)?;
/// let (a, b) = (set.get("a.comp")?, set.get("b.comp")?);
/// let before = hot_reload::generation();
/// let versions = hot_reload::publish_together([(a, spirv.clone()), (b, spirv.clone())])?;
/// assert_eq!(versions, [1, 1]);
/// assert_eq!(hot_reload::generation(), before + 1, "one edit");
///
/// let refused = hot_reload::publish_together([(a, spirv.clone()), (b, vec![1, 2, 3])]);
/// assert!(refused.is_err());
/// assert_eq!((a.version(), b.version()), (1, 1), "all or nothing");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn publish_together<'a>(edit: impl IntoIterator<Item = (&'a Shader, Vec<u32>)>) -> Result<Vec<u64>, PublishError> {
    let edit: Vec<(&Shader, Vec<u32>)> = edit.into_iter().collect();
    if let Some((shader, _)) = edit.iter().find(|(_, words)| words.len() < 5 || words[0] != 0x0723_0203) {
        return Err(PublishError::NotSpirv { name: shader.name().to_owned() });
    }
    if edit.is_empty() {
        return Ok(Vec::new());
    }
    let (unique, places) = last_words_of_each(edit);
    let (changes, generation) = {
        let _edit = EDIT.write().unwrap_or_else(PoisonError::into_inner);
        let changes: Vec<(&str, u64)> =
            unique.into_iter().map(|(shader, words)| (shader.name(), shader.reload.set(words))).collect();
        (changes, GENERATION.fetch_add(1, Ordering::AcqRel) + 1)
    };
    SUBSCRIBERS.lock().unwrap_or_else(PoisonError::into_inner).retain(|subscriber| {
        changes
            .iter()
            .all(|&(name, version)| subscriber.send(Reloaded { name: name.to_owned(), version, generation }).is_ok())
    });
    Ok(places.into_iter().map(|place| changes[place].1).collect())
}

/// Each shader of `edit` once (by address) with its last words, and each entry's index there.
fn last_words_of_each(edit: Vec<(&Shader, Vec<u32>)>) -> (Vec<(&Shader, Vec<u32>)>, Vec<usize>) {
    let mut unique: Vec<(&Shader, Vec<u32>)> = Vec::with_capacity(edit.len());
    let mut places = Vec::with_capacity(edit.len());
    for (shader, words) in edit {
        let place = unique.iter().position(|(seen, _)| std::ptr::eq(*seen, shader)).unwrap_or(unique.len());
        if place == unique.len() {
            unique.push((shader, words));
        } else {
            unique[place].1 = words;
        }
        places.push(place);
    }
    (unique, places)
}

/// A receiver of every change published from now on, in order.
///
/// ```
/// let changes = smolv_runtime::hot_reload::subscribe();
/// assert!(changes.try_recv().is_err(), "nothing published yet");
/// ```
pub fn subscribe() -> Receiver<Reloaded> {
    let (sender, receiver) = channel();
    SUBSCRIBERS.lock().unwrap_or_else(PoisonError::into_inner).push(sender);
    receiver
}

/// How many edits were published so far ([`publish_together`],
/// [`publish`](Shader::publish)): a cheap check for "did anything change?".
///
/// ```
/// let before = smolv_runtime::hot_reload::generation();
/// assert!(smolv_runtime::hot_reload::generation() >= before);
/// ```
#[inline]
pub fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// One shader's hot-reload state: its origin, and its latest words.
#[derive(Debug)]
pub(crate) struct State {
    pub(super) origin: Option<&'static Origin>,
    version: AtomicU64,
    latest: Mutex<Option<&'static [u32]>>,
}

impl State {
    pub(crate) const fn new(origin: Option<&'static Origin>) -> Self {
        Self { origin, version: AtomicU64::new(0), latest: Mutex::new(None) }
    }

    #[inline]
    pub(crate) fn version(&self) -> u64 {
        let _edit = EDIT.read().unwrap_or_else(PoisonError::into_inner);
        self.version.load(Ordering::Acquire)
    }

    /// The latest published words, if any.
    #[inline]
    pub(crate) fn latest(&self) -> Option<&'static [u32]> {
        let _edit = EDIT.read().unwrap_or_else(PoisonError::into_inner);
        if self.version.load(Ordering::Acquire) == 0 {
            return None;
        }
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `words` the latest and returns the new version ([`EDIT`] held).
    fn set(&self, words: Vec<u32>) -> u64 {
        let words: &'static [u32] = Vec::leak(words);
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(words);
        self.version.fetch_add(1, Ordering::AcqRel) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ShaderSet;
    use crate::reflect::{Reflection, ShaderStage};
    use smolv_codec::container::{BundleBuilder, ContainerBuilder};

    #[test]
    fn a_shader_named_twice_in_one_edit_is_published_once_with_its_last_words() {
        let spirv = crate::doc_example_module();
        let container =
            || ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build().unwrap();
        let bundle =
            BundleBuilder::new().add("twice_a.comp", container()).add("twice_b.comp", container()).build().unwrap();
        let set = ShaderSet::from_vec(bundle).unwrap();
        let (a, b) = (set.get("twice_a.comp").unwrap(), set.get("twice_b.comp").unwrap());
        let (mut first, mut last) = (spirv.clone(), spirv.clone());
        first[2] = 1;
        last[2] = 2;

        let changes = subscribe();
        let versions = publish_together([(a, first), (b, spirv.clone()), (a, last.clone())]).unwrap();
        assert_eq!(versions, [1, 1, 1], "one version more for each shader, wherever it is named");
        assert_eq!((a.version(), b.version()), (1, 1));
        assert_eq!(a.decode().unwrap(), last, "the last words given win");
        // Other tests publish too: only this test's shaders count.
        let heard: Vec<(String, u64)> = changes
            .try_iter()
            .filter(|change| change.name.starts_with("twice_"))
            .map(|change| (change.name, change.version))
            .collect();
        assert_eq!(heard, [("twice_a.comp".to_owned(), 1), ("twice_b.comp".to_owned(), 1)], "one event each");
    }
}
