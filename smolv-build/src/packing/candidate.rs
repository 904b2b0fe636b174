//! Building one candidate packing of a set: its directory, its data and
//! its dictionary, exactly as they would be embedded.

use rayon::prelude::*;

use super::codec::{Codec, Scheme, pack_block};
use super::dictionary::EmbeddedDictionary;
use super::directory::{self, Entry, Once};
use super::{Layout, PackInput};
use crate::encode::ZstdForms;
use crate::error::Error;

/// Bytes of table the macros generate per module: six `u32` (offset,
/// packed, unpacked and SPIR-V lengths, check, name end).
const TABLE_BYTES_PER_MODULE: usize = 24;

/// What the binary carries besides data and dictionary: the macros turn
/// the directory into the names (one string) and a table per module.
pub(crate) fn tables_len(inputs: &[PackInput]) -> usize {
    inputs.iter().map(|m| m.name.len() + TABLE_BYTES_PER_MODULE).sum()
}

/// A packing of the whole set, ready to embed.
pub(crate) struct Candidate {
    pub(crate) scheme: Scheme,
    pub(crate) directory: Vec<u8>,
    pub(crate) data: Vec<u8>,
    /// The dictionary as it ships (packed), for codec 4.
    pub(crate) dictionary: Option<Vec<u8>>,
    /// [`tables_len`] of the set.
    pub(crate) tables_len: usize,
}

impl Candidate {
    /// What the set adds to the binary: data, dictionary, names and tables.
    pub(crate) fn stored_len(&self) -> usize {
        self.data.len() + self.dictionary.as_ref().map_or(0, Vec::len) + self.tables_len
    }

    /// Directory (standing in for the names and tables), data and
    /// dictionary as one buffer, for size estimates.
    pub(crate) fn stored_bytes(&self) -> Vec<u8> {
        let dictionary = self.dictionary.as_deref().unwrap_or_default();
        [self.directory.as_slice(), &self.data, dictionary].concat()
    }
}

/// Each module packed alone with `codec` (what layout 0 stores, and what
/// `include_shader!` embeds), with the dictionary they need, if any: as it
/// ships (packed), and its unpacked length and check.
pub(crate) struct ModuleForms {
    pub(crate) codec: Codec,
    pub(crate) packed: Vec<Vec<u8>>,
    pub(crate) dictionary: Option<(Vec<u8>, Once)>,
}

impl ModuleForms {
    /// Packs every module with `codec`; plain zstd payloads come from
    /// `zstd`, which the bundle shares, and dictionary ones from the set's
    /// own `dictionary`.
    pub(crate) fn new(
        codec: Codec,
        inputs: &[PackInput],
        zstd: &ZstdForms,
        dictionary: Option<&EmbeddedDictionary>,
    ) -> Result<Self, Error> {
        let (packed, dictionary) = match codec {
            Codec::Spirv => (inputs.iter().map(|m| m.spirv.clone()).collect(), None),
            Codec::Smolv => (inputs.iter().map(|m| m.smolv.clone()).collect(), None),
            Codec::SmolvLz4 => {
                let packed = inputs
                    .par_iter()
                    .map(|m| pack_block(codec, &m.smolv, 0, None))
                    .collect::<Result<Vec<_>, Error>>()?;
                (packed, None)
            }
            Codec::SmolvZstd => (zstd.plain.payloads.clone(), None),
            Codec::SmolvZstdDictionary => {
                let trained = dictionary.ok_or_else(|| {
                    Error::Internal("packing with a zstd dictionary, but none could be trained".to_owned())
                })?;
                let once = Once { len: trained.len, check: trained.check };
                (trained.payloads.clone(), Some((trained.packed.clone(), once)))
            }
        };
        Ok(Self { codec, packed, dictionary })
    }
}

/// Bytes a module unpacks to under `codec`: its SPIR-V for raw sets, its
/// SMOL-V otherwise.
pub(crate) fn unpacked_len(codec: Codec, input: &PackInput) -> usize {
    if codec == Codec::Spirv { input.spirv.len() } else { input.smolv.len() }
}

/// Layout 0: the packed modules one after the other. Raw modules are whole
/// words, so each starts 4-byte aligned.
pub(crate) fn per_module(inputs: &[PackInput], forms: &ModuleForms) -> Result<Candidate, Error> {
    let codec = forms.codec;
    let mut data = Vec::with_capacity(forms.packed.iter().map(Vec::len).sum());
    let mut entries = Vec::with_capacity(inputs.len());
    for (input, packed) in inputs.iter().zip(&forms.packed) {
        entries.push(Entry {
            name: &input.name,
            offset: data.len(),
            packed_len: packed.len(),
            unpacked_len: unpacked_len(codec, input),
            spirv_len: input.spirv.len(),
            check: input.check,
        });
        data.extend_from_slice(packed);
    }
    let (dictionary, once) = match &forms.dictionary {
        Some((packed, once)) => (Some(packed.clone()), *once),
        None => (None, Once::default()),
    };
    let directory = directory::write(codec, Layout::PerModule, once, &entries)?;
    Ok(Candidate {
        scheme: Scheme { codec, layout: Layout::PerModule },
        directory,
        data,
        dictionary,
        tables_len: tables_len(inputs),
    })
}

/// Layout 1: every module's SMOL-V packed as one stream. The stream holds
/// them smallest first (similar modules end up near each other: 2% smaller
/// than name order on a 344-module GLSL tree); entries stay in name order
/// and locate their module by offset.
pub(crate) fn stream(inputs: &[PackInput], codec: Codec, zstd_level: i32) -> Result<Candidate, Error> {
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| (inputs[i].smolv.len(), i));
    let mut stream = Vec::with_capacity(inputs.iter().map(|m| m.smolv.len()).sum());
    let mut offsets = vec![0; inputs.len()];
    for &i in &order {
        offsets[i] = stream.len();
        stream.extend_from_slice(&inputs[i].smolv);
    }
    let entries: Vec<Entry<'_>> = inputs
        .iter()
        .zip(&offsets)
        .map(|(input, &offset)| Entry {
            name: &input.name,
            offset,
            packed_len: input.smolv.len(),
            unpacked_len: input.smolv.len(),
            spirv_len: input.spirv.len(),
            check: input.check,
        })
        .collect();
    let header = Once { len: stream.len(), check: xxhash_rust::xxh32::xxh32(&stream, 0) };
    let data = pack_block(codec, &stream, zstd_level, None)?;
    let directory = directory::write(codec, Layout::Stream, header, &entries)?;
    Ok(Candidate {
        scheme: Scheme { codec, layout: Layout::Stream },
        directory,
        data,
        dictionary: None,
        tables_len: tables_len(inputs),
    })
}
