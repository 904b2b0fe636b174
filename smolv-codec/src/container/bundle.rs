//! Bundles: many containers, one shared dictionary, and a sorted name index.

use std::borrow::Cow;
use std::path::Path;

use super::error::{ContainerError, LookupError, NotFound, OpenError};
use super::format::{Container, FORMAT_VERSION, check_header};
use super::payload::Dictionary;

const BUNDLE_MAGIC: &str = "SMVB";
const HEADER_LEN: usize = 24;
/// Smallest index record: offset, length, name length, padding.
const MIN_RECORD: usize = 12;
const WHAT: &str = "shader bundle";

/// One entry of a bundle's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IndexEntry {
    name: (usize, usize),
    container: (usize, usize),
}

/// Named shader containers sharing one zstd dictionary; parsing reads only the header and the index.
///
/// ```
/// use smolv_codec::container::{Bundle, BundleBuilder, ContainerBuilder};
/// use smolv_format::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_codec::doc_example_module();
/// let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
/// let bytes = BundleBuilder::new().add("blur.comp", container).build()?;
/// let bundle = Bundle::parse(&bytes)?;
/// assert_eq!(bundle.decode("blur.comp")?, spirv);
/// assert!(bundle.get("blurr.comp").unwrap_err().to_string().contains("did you mean \"blur.comp\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Bundle<'a> {
    bytes: Cow<'a, [u8]>,
    dictionary: Option<Dictionary>,
    dictionary_span: Option<Span>,
    index: Vec<IndexEntry>,
}

/// A bundle entry: its name and its container.
///
/// ```
/// # use smolv_codec::container::Bundle;
/// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
/// let bundle = Bundle::parse(&bytes)?;
/// for entry in bundle.entries() {
///     let entry = entry?;
///     println!("{}: {} bytes, {:?}", entry.name, entry.bytes.len(), entry.container.codec());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BundleEntry<'b> {
    /// The shader's name, for example `lit.frag` or `sky.wgsl#fs_main`.
    pub name: &'b str,
    /// Its container.
    pub container: Container<'b>,
    /// The container's bytes.
    pub bytes: &'b [u8],
}

impl<'a> Bundle<'a> {
    /// Parses a bundle held in memory. The dictionary is copied out.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// assert_eq!(Bundle::parse(&bytes)?.len(), 2);
    /// assert!(Bundle::parse(b"SMVC").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ContainerError> {
        Self::with_dictionary(Cow::Borrowed(bytes), |all, (start, end)| Dictionary::new(all[start..end].to_vec()))
    }

    /// Parses `bytes`, making the dictionary at its span with `dictionary`.
    fn with_dictionary(
        bytes: Cow<'a, [u8]>,
        dictionary: impl FnOnce(&[u8], Span) -> Result<Dictionary, ContainerError>,
    ) -> Result<Self, ContainerError> {
        let (dictionary_span, index) = parse_header_and_index(&bytes)?;
        let dictionary = dictionary_span.map(|span| dictionary(&bytes, span)).transpose()?;
        Ok(Self { bytes, dictionary, dictionary_span, index })
    }

    /// The number of shaders.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// assert_eq!(Bundle::parse(&bytes)?.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the bundle holds no shaders.
    ///
    /// ```
    /// # use smolv_codec::container::{Bundle, BundleBuilder};
    /// assert!(Bundle::parse(&BundleBuilder::new().build()?)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The shared dictionary, if the shaders use one.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// assert!(Bundle::parse(&bytes)?.dictionary().is_none(), "built without one");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dictionary(&self) -> Option<&Dictionary> {
        self.dictionary.as_ref()
    }

    /// Shader names, sorted.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// let bundle = Bundle::parse(&bytes)?;
    /// assert_eq!(bundle.names().collect::<Vec<_>>(), ["blur.comp", "sky.comp"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.index.iter().map(|e| self.name_of(e))
    }

    /// Every entry, sorted by name.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// let bundle = Bundle::parse(&bytes)?;
    /// let total: usize = bundle.entries().map(|e| e.map(|e| e.container.decoded_len())).sum::<Result<_, _>>()?;
    /// assert_eq!(total, 2 * spirv.len() * 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = Result<BundleEntry<'_>, ContainerError>> + '_ {
        self.index.iter().map(|e| {
            let bytes = self.slice(e.container);
            Ok(BundleEntry { name: self.name_of(e), container: Container::parse(bytes)?, bytes })
        })
    }

    /// The container named `name`; a miss suggests the closest names.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// let bundle = Bundle::parse(&bytes)?;
    /// assert_eq!(bundle.get("sky.comp")?.decoded_len(), spirv.len() * 4);
    /// assert!(bundle.get("sky.frag").unwrap_err().to_string().contains("did you mean \"sky.comp\""));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, name: &str) -> Result<Container<'_>, LookupError> {
        match self.index.binary_search_by(|e| self.name_of(e).cmp(name)) {
            Ok(i) => Ok(Container::parse(self.slice(self.index[i].container))?),
            Err(_) => Err(NotFound::new(name, self.names()).into()),
        }
    }

    /// Decodes the shader named `name` with default options.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// assert_eq!(Bundle::parse(&bytes)?.decode("blur.comp")?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode(&self, name: &str) -> Result<Vec<u32>, LookupError> {
        let mut out = Vec::new();
        self.get(name)?.decode_with(self.dictionary(), &Default::default(), &mut out)?;
        Ok(out)
    }

    /// Byte ranges within the bundle: the dictionary's, and each entry's container with its name, by name.
    ///
    /// ```
    /// # use smolv_codec::container::{Bundle, BundleBuilder};
    /// # let (spirv, _, container) = smolv_codec::container::doc_example_container()?;
    /// let bytes = BundleBuilder::new().add("blur.comp", container.clone()).build()?;
    /// let bundle = Bundle::parse(&bytes)?;
    /// let (dictionary, mut entries) = bundle.layout();
    /// assert!(dictionary.is_none());
    /// let (name, (start, end)) = entries.next().unwrap();
    /// assert_eq!((name, &bytes[start..end]), ("blur.comp", &container[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> (Option<Span>, impl Iterator<Item = (&str, Span)> + '_) {
        (self.dictionary_span, self.index.iter().map(|e| (self.name_of(e), e.container)))
    }

    fn name_of(&self, entry: &IndexEntry) -> &str {
        // Checked to be UTF-8 when the index was parsed.
        std::str::from_utf8(self.slice(entry.name)).unwrap_or_default()
    }

    fn slice(&self, (start, end): (usize, usize)) -> &[u8] {
        self.bytes.get(start..end).unwrap_or_default()
    }
}

impl Bundle<'static> {
    /// Parses a bundle embedded in the binary, borrowing everything.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, built) = smolv_codec::container::doc_example_bundle()?;
    /// # let bytes: &'static [u8] = Box::leak(built.into_boxed_slice());
    /// // bytes: &'static [u8], for example include_bytes!("shaders.smvb")
    /// let bundle = Bundle::parse_static(bytes)?;
    /// assert_eq!(bundle.decode("blur.comp")?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_static(bytes: &'static [u8]) -> Result<Self, ContainerError> {
        Self::with_dictionary(Cow::Borrowed(bytes), |_, (start, end)| Dictionary::new(&bytes[start..end]))
    }

    /// Takes ownership of bundle bytes, for example read from an asset file.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// let owned: Bundle<'static> = Bundle::from_vec(bytes)?;
    /// assert_eq!(owned.decode("sky.comp")?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self, ContainerError> {
        Self::with_dictionary(Cow::Owned(bytes), |all, (start, end)| Dictionary::new(all[start..end].to_vec()))
    }

    /// Reads and parses a bundle file.
    ///
    /// ```no_run
    /// use smolv_codec::container::Bundle;
    /// let bundle = Bundle::open("assets/shaders.smvb")?;
    /// let post = bundle.decode("post.frag")?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, OpenError> {
        OpenError::read(path.as_ref(), Self::from_vec)
    }
}

/// A byte range within a bundle's bytes: start, end.
pub type Span = (usize, usize);

fn parse_header_and_index(bytes: &[u8]) -> Result<(Option<Span>, Vec<IndexEntry>), ContainerError> {
    check_header(bytes, WHAT, BUNDLE_MAGIC, HEADER_LEN)?;
    let corrupt = |reason| ContainerError::Corrupt { what: WHAT, reason };
    let u32_at = |at: usize| -> Result<usize, ContainerError> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or(corrupt("an index record runs past the end"))
    };
    let count = u32_at(8)?;
    let dictionary_len = u32_at(16)?;
    let index_len = u32_at(20)?;
    let dictionary_end = HEADER_LEN.checked_add(dictionary_len).ok_or(corrupt("dictionary length overflows"))?;
    // Checked: on 32-bit targets a forged length near u32::MAX overflows.
    let index_start = dictionary_end.checked_next_multiple_of(4).ok_or(corrupt("dictionary length overflows"))?;
    let index_end =
        index_start.checked_add(index_len).filter(|&e| e <= bytes.len()).ok_or(corrupt("index runs past the end"))?;
    if count.saturating_mul(MIN_RECORD) > index_len {
        return Err(corrupt("entry count does not fit the index"));
    }
    let dictionary = match (dictionary_len, u32_at(12)?) {
        (0, 0) => None,
        (0, _) | (_, 0) => return Err(corrupt("dictionary id and length disagree")),
        (_, _) => Some((HEADER_LEN, dictionary_end)),
    };
    let mut index = Vec::with_capacity(count);
    let mut at = index_start;
    for _ in 0..count {
        let offset = u32_at(at)?;
        let len = u32_at(at + 4)?;
        let name_len = bytes.get(at + 8..at + 10).map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])));
        let name_len = name_len.ok_or(corrupt("an index record runs past the end"))?;
        let name = (at + 10, at + 10 + name_len);
        if name.1 > index_end || std::str::from_utf8(&bytes[name.0..name.1]).is_err() {
            return Err(corrupt("an entry name is not valid UTF-8 inside the index"));
        }
        let container = (offset, offset.checked_add(len).ok_or(corrupt("entry length overflows"))?);
        if container.0 < index_end || container.1 > bytes.len() || !container.0.is_multiple_of(4) {
            return Err(corrupt("an entry lies outside the container area"));
        }
        if index.last().is_some_and(|prev: &IndexEntry| bytes[prev.name.0..prev.name.1] >= bytes[name.0..name.1]) {
            return Err(corrupt("index names are not sorted and unique"));
        }
        index.push(IndexEntry { name, container });
        at = name.1.next_multiple_of(4);
    }
    let end = index.iter().map(|e| e.container.1).max().unwrap_or(index_end).max(index_end).next_multiple_of(4);
    if end != bytes.len() {
        return Err(corrupt("the bundle's size does not match its index (truncated, or trailing bytes)"));
    }
    Ok((dictionary, index))
}

/// Writes a bundle.
///
/// ```
/// use smolv_codec::container::BundleBuilder;
/// let empty = BundleBuilder::new().build()?;
/// assert_eq!(smolv_codec::container::Bundle::parse(&empty)?.len(), 0);
/// # Ok::<(), smolv_codec::container::ContainerError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct BundleBuilder {
    dictionary: Option<Dictionary>,
    entries: Vec<(String, Vec<u8>)>,
}

impl BundleBuilder {
    /// An empty bundle.
    ///
    /// ```
    /// use smolv_codec::container::{Bundle, BundleBuilder};
    /// let empty = BundleBuilder::new().build()?;
    /// assert!(Bundle::parse(&empty)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The dictionary the containers were compressed with.
    ///
    /// ```
    /// use smolv_codec::container::{Bundle, BundleBuilder, ContainerBuilder, Dictionary};
    /// use smolv_format::reflect::{Reflection, ShaderStage};
    /// # let spirv = smolv_codec::doc_example_module();
    /// # let trained = zstd::dict::from_samples(&smolv_codec::container::doc_example_samples(), 1024)?;
    /// let dictionary = Dictionary::new(trained)?;
    /// let reflection = Reflection::new(ShaderStage::Compute, "main");
    /// let container = ContainerBuilder::new(&spirv, &reflection).dictionary(&dictionary).build()?;
    /// let bytes = BundleBuilder::new().dictionary(dictionary).add("blur.comp", container).build()?;
    /// assert_eq!(Bundle::parse(&bytes)?.decode("blur.comp")?, spirv); // the bundle carries its dictionary
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dictionary(mut self, dictionary: Dictionary) -> Self {
        self.dictionary = Some(dictionary);
        self
    }

    /// Adds a container under `name`; a later entry of the same name replaces it.
    ///
    /// ```
    /// # use smolv_codec::container::{Bundle, BundleBuilder};
    /// # let (spirv, _, container) = smolv_codec::container::doc_example_container()?;
    /// let replaced = BundleBuilder::new().add("a.comp", container.clone()).add("a.comp", container).build()?;
    /// assert_eq!(Bundle::parse(&replaced)?.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add(mut self, name: impl Into<String>, container: Vec<u8>) -> Self {
        self.push(name, container);
        self
    }

    /// Adds a container under `name`, by reference.
    ///
    /// ```
    /// # use smolv_codec::container::{Bundle, BundleBuilder};
    /// # let (spirv, _, container) = smolv_codec::container::doc_example_container()?;
    /// let mut builder = BundleBuilder::new();
    /// for name in ["a.comp", "b.comp", "c.comp"] {
    ///     builder.push(name, container.clone());
    /// }
    /// assert_eq!(Bundle::parse(&builder.build()?)?.len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, name: impl Into<String>, container: Vec<u8>) {
        let name = name.into();
        self.entries.retain(|(n, _)| *n != name);
        self.entries.push((name, container));
    }

    /// Lays out the bundle.
    ///
    /// # Errors
    /// - [`ContainerError::TooLargeToWrite`]: a name over 65,535 bytes, or a size or offset past 4 GiB.
    ///
    /// ```
    /// # use smolv_codec::container::Bundle;
    /// # let (spirv, bytes) = smolv_codec::container::doc_example_bundle()?;
    /// let bundle = Bundle::parse(&bytes)?;
    /// assert_eq!(bundle.names().count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(mut self) -> Result<Vec<u8>, ContainerError> {
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        let dictionary = self.dictionary.as_ref().map(Dictionary::as_bytes).unwrap_or_default();
        let layout = Layout::new(dictionary.len(), self.entries.iter().map(|(n, c)| (n.len(), c.len())))?;
        let mut out = Vec::with_capacity(layout.total);
        out.extend_from_slice(BUNDLE_MAGIC.as_bytes());
        out.extend_from_slice(&[FORMAT_VERSION, 0, 0, 0]);
        out.extend_from_slice(&layout.count.to_le_bytes());
        out.extend_from_slice(&self.dictionary.as_ref().map_or(0, Dictionary::id).to_le_bytes());
        out.extend_from_slice(&layout.dictionary_len.to_le_bytes());
        out.extend_from_slice(&layout.index_len.to_le_bytes());
        out.extend_from_slice(dictionary);
        out.resize(layout.index_start, 0);
        for ((name, _), record) in self.entries.iter().zip(&layout.records) {
            out.extend_from_slice(&record.offset.to_le_bytes());
            out.extend_from_slice(&record.len.to_le_bytes());
            out.extend_from_slice(&record.name_len.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.resize(out.len().next_multiple_of(4), 0);
        }
        for (_, container) in &self.entries {
            out.extend_from_slice(container);
            out.resize(out.len().next_multiple_of(4), 0);
        }
        debug_assert_eq!(out.len(), layout.total);
        Ok(out)
    }
}

/// The header fields and index records of a bundle, each checked to fit its field.
#[derive(Debug)]
struct Layout {
    count: u32,
    dictionary_len: u32,
    index_start: usize,
    index_len: u32,
    records: Vec<Record>,
    total: usize,
}

/// One index record: where the container is, how long, and the name's length.
#[derive(Debug)]
struct Record {
    offset: u32,
    len: u32,
    name_len: u16,
}

impl Layout {
    /// `entries` gives each entry's name and container length, in index order.
    fn new(
        dictionary_len: usize,
        entries: impl ExactSizeIterator<Item = (usize, usize)> + Clone,
    ) -> Result<Self, ContainerError> {
        let too_large = |part, len, max| ContainerError::TooLargeToWrite { what: WHAT, part, len, max };
        let u32_field = |part, len: usize| u32::try_from(len).map_err(|_| too_large(part, len, u64::from(u32::MAX)));
        let beyond_memory = |part| too_large(part, usize::MAX, u64::try_from(usize::MAX).unwrap_or(u64::MAX));
        let name_lens: Vec<u16> = entries
            .clone()
            .map(|(len, _)| u16::try_from(len).map_err(|_| too_large("entry name (bytes)", len, u64::from(u16::MAX))))
            .collect::<Result<_, _>>()?;
        // A record: offset, length, name length, the name, padded to 4 bytes.
        let index_len = name_lens
            .iter()
            .try_fold(0usize, |sum, &len| sum.checked_add((10 + usize::from(len)).next_multiple_of(4)))
            .ok_or(beyond_memory("index (bytes)"))?;
        let count = u32_field("entry count", entries.len())?;
        let dictionary_field = u32_field("dictionary (bytes)", dictionary_len)?;
        let index_field = u32_field("index (bytes)", index_len)?;
        let index_start = HEADER_LEN
            .checked_add(dictionary_len)
            .and_then(|end| end.checked_next_multiple_of(4))
            .ok_or(beyond_memory("dictionary (bytes)"))?;
        let mut offset = index_start.checked_add(index_len).ok_or(beyond_memory("bundle (bytes)"))?;
        let mut records = Vec::with_capacity(entries.len());
        for (name_len, (_, len)) in name_lens.into_iter().zip(entries) {
            records.push(Record {
                offset: u32_field("container offset (bytes into the bundle)", offset)?,
                len: u32_field("container (bytes)", len)?,
                name_len,
            });
            offset = len
                .checked_next_multiple_of(4)
                .and_then(|padded| offset.checked_add(padded))
                .ok_or(beyond_memory("bundle (bytes)"))?;
        }
        Ok(Self {
            count,
            dictionary_len: dictionary_field,
            index_start,
            index_len: index_field,
            records,
            total: offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container() -> Vec<u8> {
        let spirv = crate::doc_example_module();
        let reflection = smolv_format::reflect::Reflection::new(smolv_format::reflect::ShaderStage::Compute, "main");
        super::super::ContainerBuilder::new(&spirv, &reflection).build().unwrap()
    }

    #[test]
    fn a_name_longer_than_65535_bytes_is_an_error_not_a_corrupt_bundle() {
        let long = "n".repeat(70_000);
        let err = BundleBuilder::new().add("a.comp", container()).add(long, container()).build().unwrap_err();
        assert!(
            matches!(err, ContainerError::TooLargeToWrite { part: "entry name (bytes)", len: 70_000, max: 65_535, .. }),
            "{err}"
        );
    }

    #[test]
    fn a_name_of_exactly_65535_bytes_round_trips() {
        // Multi-byte characters up to the limit: the limit is in bytes.
        let name = format!("{}x", "é".repeat(32_767));
        assert_eq!(name.len(), 65_535);
        let bytes = BundleBuilder::new().add(name.clone(), container()).add("b", container()).build().unwrap();
        let bundle = Bundle::parse(&bytes).unwrap();
        assert_eq!(bundle.names().collect::<Vec<_>>(), ["b", name.as_str()]);
        assert_eq!(bundle.decode(&name).unwrap(), crate::doc_example_module());
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn offsets_and_sizes_past_4_gib_are_errors() {
        // Lengths only: nothing of this size is allocated.
        let layout = Layout::new(0, [(1, 100), (1, 200)].into_iter()).unwrap();
        let offsets: Vec<u32> = layout.records.iter().map(|r| r.offset).collect();
        assert_eq!(offsets, [48, 148], "24-byte header, two 12-byte records, 4-aligned containers");
        assert_eq!(layout.total, 348);

        let gib4 = usize::try_from(u64::from(u32::MAX) + 1).unwrap();
        let err = Layout::new(0, [(1, gib4)].into_iter()).unwrap_err();
        assert!(matches!(err, ContainerError::TooLargeToWrite { part: "container (bytes)", .. }), "{err}");
        // Each container fits, but the second one starts past 4 GiB.
        let err = Layout::new(0, [(1, gib4 - 32), (1, 100)].into_iter()).unwrap_err();
        assert!(
            matches!(err, ContainerError::TooLargeToWrite { part, .. } if part.starts_with("container offset")),
            "{err}"
        );
        let err = Layout::new(gib4, [].into_iter()).unwrap_err();
        assert!(matches!(err, ContainerError::TooLargeToWrite { part: "dictionary (bytes)", .. }), "{err}");
        // The last container may end past 4 GiB: only its offset is a 32-bit field.
        assert!(Layout::new(0, [(1, gib4 - 32)].into_iter()).is_ok());
    }

    #[test]
    fn built_bundles_match_their_computed_size() {
        let bytes = BundleBuilder::new().add("a", container()).add("bb", vec![0; 5]).build().unwrap();
        let layout = Layout::new(0, [(1, container().len()), (2, 5)].into_iter()).unwrap();
        assert_eq!(bytes.len(), layout.total);
    }
}
