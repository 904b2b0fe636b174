//! The recording: which pipelines a game asked for, in a versioned, deterministic file (little-endian):
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `SMOLVPSO` |
//! | 4 | format version ([`Recording::VERSION`]) |
//! | 4 | entry count, at most [`Recording::MAX_ENTRIES`] |
//! | 32 | BLAKE3 of everything after it |
//! | … | per entry: a 4-byte length (at most 1 MiB), then the entry |
//!
//! A file with another magic or version, a wrong checksum or bad framing is refused whole; an entry that does
//! not read is skipped and counted in [`Recording::skipped`].

use std::collections::BTreeMap;

use ash::vk;

use super::codec::{Reader, Writer};
pub use super::error::RecordingError;
pub use super::stage::{RecordedStage, ShaderChange};
use super::state_codec::{self, Put, list};
use crate::vulkan::state::GraphicsState;

const MAGIC: &[u8; 8] = b"SMOLVPSO";
const MAX_ENTRY_BYTES: usize = 1 << 20;
const MAX_SCOPE: usize = 256;
const MAX_STAGES: usize = 5;

/// What kind of pipeline an entry is.
#[derive(Clone, Debug)]
pub enum RecordedKind {
    /// A graphics pipeline.
    Graphics {
        /// The stages, vertex first, fragment last.
        stages: Vec<RecordedStage>,
        /// The full state.
        state: GraphicsState,
    },
    /// A compute pipeline.
    Compute {
        /// Its one stage.
        stage: RecordedStage,
    },
}

/// One pipeline the game asked for.
#[derive(Clone, Debug)]
pub struct RecordedPipeline {
    /// Graphics or compute, with its shaders and state.
    pub kind: RecordedKind,
    /// Whether the manager built it with independent-sets layouts (libraries).
    pub independent_sets: bool,
    /// The scope the game set when it was first asked for, if any.
    pub scope: Option<String>,
    /// Its rank in first-use order (0: asked for first).
    pub order: u64,
    /// When it was first asked for, in milliseconds since the recording started.
    pub millis: u64,
    /// In how many recorded runs it was asked for (1 until merged).
    pub uses: u32,
}

impl RecordedPipeline {
    /// The stages, in pipeline order.
    pub fn stages(&self) -> &[RecordedStage] {
        match &self.kind {
            RecordedKind::Graphics { stages, .. } => stages,
            RecordedKind::Compute { stage } => std::slice::from_ref(stage),
        }
    }

    /// The bytes that make the entry what it is, without when, where and how often it was used.
    fn identity(&self) -> Writer {
        let mut w = Writer::default();
        w.u8(match self.kind {
            RecordedKind::Graphics { .. } => 0,
            RecordedKind::Compute { .. } => 1,
        });
        w.bool(self.independent_sets);
        self.stages().put(&mut w);
        if let RecordedKind::Graphics { state, .. } = &self.kind {
            state.put(&mut w);
        }
        w
    }
}

/// A recording: the pipelines a game asked for, in first-use order.
///
/// ```
/// use smolv_runtime::vulkan::warmup::{Recording, RecordingError};
/// let empty = Recording::default();
/// let bytes = empty.to_bytes();
/// assert_eq!(Recording::from_bytes(&bytes)?.entries.len(), 0);
/// assert_eq!(Recording::from_bytes(b"not one").unwrap_err(), RecordingError::NotARecording);
/// # Ok::<(), RecordingError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Recording {
    /// The entries, in first-use order.
    pub entries: Vec<RecordedPipeline>,
    /// Entries of the file read that were skipped because they did not read.
    pub skipped: usize,
}

/// Whether `bytes` start as a recording of this format version does (for
/// [`include_pipelines!`](crate::include_pipelines); not a stable API).
#[doc(hidden)]
pub const fn header_matches(bytes: &[u8]) -> bool {
    match bytes.split_first_chunk::<8>() {
        Some((magic, rest)) if u64::from_le_bytes(*magic) == u64::from_le_bytes(*MAGIC) => {
            matches!(rest.first_chunk(), Some(version) if u32::from_le_bytes(*version) == Recording::VERSION)
        }
        _ => false,
    }
}

impl Recording {
    /// The format version this build reads and writes.
    pub const VERSION: u32 = 1;
    /// Most entries a recording may hold.
    pub const MAX_ENTRIES: usize = 1 << 16;

    /// The file's bytes: the same recording gives the same bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Writer::default();
        for entry in self.entries.iter().take(Self::MAX_ENTRIES) {
            let mut w = entry.identity();
            w.option(entry.scope.as_ref(), |w, scope| w.str(scope, MAX_SCOPE));
            w.u64(entry.order);
            w.u64(entry.millis);
            w.u32(entry.uses);
            body.count(w.0.len());
            body.bytes(&w.0);
        }
        let mut out = Writer(MAGIC.to_vec());
        out.u32(Self::VERSION);
        out.count(self.entries.len().min(Self::MAX_ENTRIES));
        out.bytes(blake3::hash(&body.0).as_bytes());
        out.bytes(&body.0);
        out.0
    }

    /// Reads a recording, skipping entries that do not read.
    ///
    /// # Errors
    /// See [`RecordingError`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, RecordingError> {
        let mut r = Reader::new(bytes);
        if r.take(MAGIC.len()).ok() != Some(MAGIC.as_slice()) {
            return Err(RecordingError::NotARecording);
        }
        let version = r.u32()?;
        if version != Self::VERSION {
            return Err(RecordingError::Version { found: version, supported: Self::VERSION });
        }
        let count = r.count(Self::MAX_ENTRIES, "entries")?;
        let checksum: [u8; 32] = r.array()?;
        if blake3::hash(&bytes[r.offset()..]).as_bytes() != &checksum {
            return Err(RecordingError::Corrupt);
        }
        let mut recording = Self::default();
        for _ in 0..count {
            let len = r.count(MAX_ENTRY_BYTES, "bytes in an entry")?;
            let start = r.offset();
            let body = r.take(len)?;
            match read_entry(&mut Reader::new(body), start) {
                Ok(entry) => recording.entries.push(entry),
                Err(_) => recording.skipped += 1,
            }
        }
        if !r.is_empty() {
            return Err(RecordingError::Trailing { extra: bytes.len() - r.offset() });
        }
        Ok(recording)
    }

    /// Reads the recording in `path`.
    ///
    /// # Errors
    /// [`RecordingError::Io`] when it cannot be read, else as [`from_bytes`](Self::from_bytes).
    pub fn load(path: &std::path::Path) -> Result<Self, RecordingError> {
        let bytes = std::fs::read(path).map_err(|e| io_error(path, &e))?;
        Self::from_bytes(&bytes)
    }

    /// Writes the recording to `path`, through a temporary file beside it.
    ///
    /// # Errors
    /// [`RecordingError::Io`].
    pub fn save(&self, path: &std::path::Path) -> Result<(), RecordingError> {
        crate::pipeline_cache_file::write_atomically(path, &self.to_bytes()).map_err(|e| io_error(path, &e))
    }

    /// Several runs' recordings as one: each pipeline once, with the sum of its uses and its earliest rank, time and
    /// scope, in that order (whatever the order of `recordings`).
    ///
    /// ```
    /// use smolv_runtime::vulkan::warmup::Recording;
    /// let merged = Recording::merge(&[Recording::default(), Recording::default()]);
    /// assert!(merged.entries.is_empty());
    /// ```
    pub fn merge(recordings: &[Recording]) -> Recording {
        let mut by_identity: BTreeMap<Vec<u8>, RecordedPipeline> = BTreeMap::new();
        for entry in recordings.iter().flat_map(|r| &r.entries) {
            by_identity
                .entry(entry.identity().0)
                .and_modify(|kept| {
                    kept.uses = kept.uses.saturating_add(entry.uses);
                    if (entry.order, entry.millis, &entry.scope) < (kept.order, kept.millis, &kept.scope) {
                        kept.order = entry.order;
                        kept.millis = entry.millis;
                        kept.scope.clone_from(&entry.scope);
                    }
                })
                .or_insert_with(|| entry.clone());
        }
        let mut entries: Vec<RecordedPipeline> = by_identity.into_values().collect();
        // A stable sort: ties stay in identity order.
        entries.sort_by_key(|entry| (entry.order, entry.millis));
        for (rank, entry) in entries.iter_mut().enumerate() {
            entry.order = rank as u64;
        }
        Recording { entries, skipped: recordings.iter().map(|r| r.skipped).sum() }
    }
}

fn io_error(path: &std::path::Path, error: &std::io::Error) -> RecordingError {
    RecordingError::Io { path: path.display().to_string(), message: error.to_string() }
}

fn read_entry(r: &mut Reader<'_>, start: usize) -> Result<RecordedPipeline, RecordingError> {
    let invalid = |what| Err(RecordingError::Invalid { offset: start, what });
    let kind = r.u8()?;
    let independent_sets = r.bool()?;
    let stages: Vec<RecordedStage> = list(r, MAX_STAGES, "stages", "")?;
    let kind = match (kind, stages.len()) {
        (0, 2..) => {
            // Vertex … fragment, each stage once, in pipeline order (the stage bits rise).
            let rising = stages.windows(2).all(|pair| pair[0].stage.as_raw() < pair[1].stage.as_raw());
            let ends = (stages[0].stage, stages[stages.len() - 1].stage);
            if !rising || ends != (vk::ShaderStageFlags::VERTEX, vk::ShaderStageFlags::FRAGMENT) {
                return invalid("a graphics entry not vertex … fragment");
            }
            let state = state_codec::read(r)?;
            let tessellation_stages =
                vk::ShaderStageFlags::TESSELLATION_CONTROL | vk::ShaderStageFlags::TESSELLATION_EVALUATION;
            let tessellation = stages.iter().any(|s| s.stage.intersects(tessellation_stages));
            if (state.topology == vk::PrimitiveTopology::PATCH_LIST) != tessellation {
                return invalid("a patch-list topology without tessellation, or tessellation without one");
            }
            RecordedKind::Graphics { stages, state }
        }
        (1, 1) => match stages.into_iter().next().filter(|s| s.stage == vk::ShaderStageFlags::COMPUTE) {
            Some(stage) => RecordedKind::Compute { stage },
            None => return invalid("a compute entry without a compute stage"),
        },
        _ => return invalid("an unknown kind of entry"),
    };
    let scope = if r.bool()? { Some(r.str(MAX_SCOPE, "bytes in a scope")?) } else { None };
    let entry = RecordedPipeline { kind, independent_sets, scope, order: r.u64()?, millis: r.u64()?, uses: r.u32()? };
    if !r.is_empty() {
        return invalid("an entry with bytes left over");
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vulkan::state::{AttachmentBlend, VertexInput};
    use smolv_codec::specialize::Value;

    fn stage(stage: vk::ShaderStageFlags, name: &str, values: Vec<(u32, Value)>) -> RecordedStage {
        RecordedStage {
            stage,
            name: name.to_owned(),
            code_hash: [1; 32],
            interface_hash: [2; 32],
            specialization: values,
        }
    }

    fn graphics(order: u64, shape: u32, scope: Option<&str>) -> RecordedPipeline {
        let state = GraphicsState {
            vertex_input: VertexInput::Explicit {
                bindings: vec![vk::VertexInputBindingDescription {
                    binding: 0,
                    stride: 8,
                    input_rate: vk::VertexInputRate::INSTANCE,
                }],
                attributes: vec![vk::VertexInputAttributeDescription {
                    location: 0,
                    binding: 0,
                    format: vk::Format::R32G32_SFLOAT,
                    offset: 0,
                }],
            },
            color_formats: vec![vk::Format::R16G16B16A16_SFLOAT],
            blend: vec![AttachmentBlend::PREMULTIPLIED_ALPHA],
            ..GraphicsState::default()
        };
        RecordedPipeline {
            kind: RecordedKind::Graphics {
                stages: vec![
                    stage(vk::ShaderStageFlags::VERTEX, "sprite.vert", vec![]),
                    stage(
                        vk::ShaderStageFlags::FRAGMENT,
                        "sprite.frag",
                        vec![(0, Value::U32(shape)), (1, Value::F32(0.5))],
                    ),
                ],
                state,
            },
            independent_sets: true,
            scope: scope.map(str::to_owned),
            order,
            millis: order * 10,
            uses: 1,
        }
    }

    fn compute(order: u64) -> RecordedPipeline {
        RecordedPipeline {
            kind: RecordedKind::Compute { stage: stage(vk::ShaderStageFlags::COMPUTE, "particles.comp", vec![]) },
            independent_sets: false,
            scope: None,
            order,
            millis: 3,
            uses: 1,
        }
    }

    fn sample() -> Recording {
        Recording { entries: vec![compute(0), graphics(1, 0, Some("menu")), graphics(2, 1, None)], skipped: 0 }
    }

    #[test]
    fn an_embedded_recording_reads_as_the_one_written() {
        // `sample.smolvpso` is `sample().to_bytes()`; when the format
        // changes, write that to it again (and raise `VERSION`).
        let embedded = crate::include_pipelines!("sample.smolvpso").unwrap();
        assert_eq!(embedded.entries.len(), 3);
        assert_eq!(embedded.to_bytes(), sample().to_bytes());
    }

    #[test]
    fn the_compile_time_check_takes_only_this_version() {
        let bytes = sample().to_bytes();
        assert!(header_matches(&bytes));
        assert!(!header_matches(&bytes[..11]));
        let mut version = bytes.clone();
        version[8] = 2;
        assert!(!header_matches(&version));
        assert!(!header_matches(b"\x03\x02\x23\x07 SPIR-V, not a recording"));
    }

    #[test]
    fn a_recording_reads_back_as_written_and_writes_the_same_bytes() {
        let bytes = sample().to_bytes();
        let read = Recording::from_bytes(&bytes).unwrap();
        assert_eq!(read.skipped, 0);
        assert_eq!(read.entries.len(), 3);
        assert_eq!(read.entries[1].scope.as_deref(), Some("menu"));
        assert_eq!(read.entries[1].stages()[1].specialization, vec![(0, Value::U32(0)), (1, Value::F32(0.5))]);
        let RecordedKind::Graphics { state, .. } = &read.entries[2].kind else { panic!("graphics expected") };
        assert_eq!(state.color_formats, vec![vk::Format::R16G16B16A16_SFLOAT]);
        assert_eq!(state.blend, vec![AttachmentBlend::PREMULTIPLIED_ALPHA]);
        assert!(
            matches!(&state.vertex_input, VertexInput::Explicit { bindings, .. } if bindings[0].input_rate == vk::VertexInputRate::INSTANCE)
        );
        assert_eq!(read.to_bytes(), bytes, "deterministic");
    }

    #[test]
    fn foreign_other_version_corrupt_and_truncated_files_are_refused() {
        let bytes = sample().to_bytes();
        assert_eq!(Recording::from_bytes(b"").unwrap_err(), RecordingError::NotARecording);
        let mut version = bytes.clone();
        version[8] = 9;
        assert_eq!(Recording::from_bytes(&version).unwrap_err(), RecordingError::Version { found: 9, supported: 1 });
        let mut corrupt = bytes.clone();
        *corrupt.last_mut().unwrap() ^= 1;
        assert_eq!(Recording::from_bytes(&corrupt).unwrap_err(), RecordingError::Corrupt);
        for len in 0..bytes.len() {
            assert!(Recording::from_bytes(&bytes[..len]).is_err(), "a file cut at {len} bytes was read");
        }
    }

    #[test]
    fn an_entry_that_does_not_read_is_skipped_and_counted() {
        let mut bad = graphics(0, 0, None);
        if let RecordedKind::Graphics { state, .. } = &mut bad.kind {
            state.topology = vk::PrimitiveTopology::from_raw(0x7777);
        }
        let recording = Recording { entries: vec![bad, compute(1)], skipped: 0 };
        let read = Recording::from_bytes(&recording.to_bytes()).unwrap();
        assert_eq!(read.skipped, 1);
        assert_eq!(read.entries.len(), 1);
        assert!(matches!(read.entries[0].kind, RecordedKind::Compute { .. }));
    }

    #[test]
    fn states_vulkan_never_accepts_are_skipped() {
        type Break = fn(&mut Vec<RecordedStage>, &mut GraphicsState);
        let breaks: [(&str, Break); 5] = [
            ("two sample counts", |_, state| state.multisample.samples = vk::SampleCountFlags::from_raw(0x3)),
            ("no sample count", |_, state| state.multisample.samples = vk::SampleCountFlags::empty()),
            ("a patch list without tessellation", |_, state| state.topology = vk::PrimitiveTopology::PATCH_LIST),
            ("a dynamic state twice", |_, state| {
                state.dynamic_states = vec![vk::DynamicState::LINE_WIDTH, vk::DynamicState::LINE_WIDTH];
            }),
            ("a stage twice", |stages, _| stages.insert(1, stages[1].clone())),
        ];
        for (what, break_it) in breaks {
            let mut bad = graphics(0, 0, None);
            if let RecordedKind::Graphics { stages, state } = &mut bad.kind {
                break_it(stages, state);
            }
            let recording = Recording { entries: vec![bad, compute(1)], skipped: 0 };
            let read = Recording::from_bytes(&recording.to_bytes()).unwrap();
            assert_eq!((read.skipped, read.entries.len()), (1, 1), "{what} was read");
        }
    }

    #[test]
    fn a_count_past_its_bound_is_refused_before_allocating() {
        let mut bytes = Recording::default().to_bytes();
        bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Recording::from_bytes(&bytes).unwrap_err(), RecordingError::TooMany { what: "entries", .. }));
    }

    #[test]
    fn merging_counts_uses_and_keeps_the_earliest_first_use() {
        let first = Recording { entries: vec![graphics(0, 0, None), graphics(1, 1, None)], skipped: 0 };
        let second = Recording { entries: vec![graphics(0, 1, Some("level")), compute(1)], skipped: 0 };
        let merged = Recording::merge(&[first.clone(), second.clone()]);
        assert_eq!(merged.entries.len(), 3);
        let uses: Vec<u32> = merged.entries.iter().map(|e| e.uses).collect();
        assert_eq!(uses.iter().sum::<u32>(), 4);
        let shape_one = merged.entries.iter().find(|e| e.uses == 2).unwrap();
        assert_eq!(shape_one.scope.as_deref(), Some("level"), "its earliest first use was in `level`");
        assert_eq!(merged.entries.iter().map(|e| e.order).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(Recording::merge(&[second, first]).to_bytes(), merged.to_bytes(), "order-independent");
    }

    /// `body` under a correct header and checksum claiming `count` entries.
    fn sealed(count: u32, body: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&Recording::VERSION.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(blake3::hash(body).as_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn mutated_entries_past_the_checksum_never_panic_and_what_reads_writes_back() {
        let valid = sample().to_bytes();
        let header = MAGIC.len() + 8 + 32;
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let small = |value: u64| usize::from(value.to_le_bytes()[0]) << 8 | usize::from(value.to_le_bytes()[1]);
        for _ in 0..3000 {
            let mut body = valid[header..].to_vec();
            for _ in 0..=(next() % 8) {
                let at = small(next()) % body.len();
                body[at] = next().to_le_bytes()[0];
            }
            if next() % 4 == 0 {
                body.truncate(small(next()) % body.len());
            }
            let bytes = sealed(3, &body);
            if let Ok(read) = Recording::from_bytes(&bytes) {
                let again = Recording::from_bytes(&read.to_bytes()).unwrap();
                assert_eq!(again.to_bytes(), read.to_bytes());
            }
        }
    }
}
