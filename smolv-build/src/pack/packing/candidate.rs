//! Building one candidate packing of a set: its directory, data and dictionary, as they would be embedded.

use std::collections::HashMap;

use rayon::prelude::*;

use super::Codec;
use super::codec::{Scheme, pack_block};
use super::dictionary::EmbeddedDictionary;
use super::directory::{self, Entry, Once};
use super::{Framing, PackInput};
use crate::error::Error;
use crate::pack::zstd_forms::ZstdForms;

/// Bytes of table the macros generate per module: six `u32`.
const TABLE_BYTES_PER_MODULE: usize = 24;

/// What the binary carries besides data and dictionary: names and tables.
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

    /// Directory (for names and tables), data and dictionary, for estimates.
    pub(crate) fn stored_bytes(&self) -> Vec<u8> {
        let dictionary = self.dictionary.as_deref().unwrap_or_default();
        [self.directory.as_slice(), &self.data, dictionary].concat()
    }
}

/// Each module packed alone with `codec` (layout 0, `include_shader!`), with the dictionary they need.
pub(crate) struct ModuleForms {
    pub(crate) codec: Codec,
    pub(crate) packed: Vec<Vec<u8>>,
    pub(crate) dictionary: Option<(Vec<u8>, Once)>,
}

impl ModuleForms {
    /// Packs every module with `codec`, zstd payloads from `zstd`, relative ids from `relative`.
    pub(crate) fn new(
        codec: Codec,
        inputs: &[PackInput],
        relative: Option<&[Vec<u8>]>,
        zstd: &ZstdForms,
        dictionary: Option<&EmbeddedDictionary>,
    ) -> Result<Self, Error> {
        let (packed, dictionary) = match codec {
            Codec::Spirv | Codec::SpirvRelativeIds | Codec::Smolv => {
                (unpacked_forms(codec, inputs, relative)?.into_iter().map(<[u8]>::to_vec).collect(), None)
            }
            Codec::SmolvLz4 | Codec::SpirvRelativeIdsLz4 => {
                let packed = unpacked_forms(codec, inputs, relative)?
                    .into_par_iter()
                    .map(|unpacked| pack_block(codec, unpacked, 0))
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

/// Bytes a module unpacks to under `codec`: its SPIR-V's or its SMOL-V's.
pub(crate) fn unpacked_len(codec: Codec, input: &PackInput) -> usize {
    if codec.unpacks_to_spirv() { input.spirv.len() } else { input.smolv.len() }
}

/// What each module is before `codec` compresses it: SPIR-V, with relative ids, or SMOL-V.
fn unpacked_forms<'a>(
    codec: Codec,
    inputs: &'a [PackInput],
    relative: Option<&'a [Vec<u8>]>,
) -> Result<Vec<&'a [u8]>, Error> {
    if !codec.relative_ids() {
        return Ok(inputs
            .iter()
            .map(|m| if codec.unpacks_to_spirv() { &m.spirv } else { &m.smolv }.as_slice())
            .collect());
    }
    let relative = relative.ok_or_else(|| Error::Internal(format!("packing {} without relative ids", codec.name())))?;
    Ok(relative.iter().map(Vec::as_slice).collect())
}

/// Every module's SPIR-V with relative ids ([`smolv_codec::relative_ids`]), as little-endian bytes.
pub(crate) fn relative_ids_of(inputs: &[PackInput]) -> Result<Vec<Vec<u8>>, Error> {
    inputs.par_iter().map(relative_ids).collect()
}

/// A module's SPIR-V with relative ids, as little-endian bytes, checked to convert back.
fn relative_ids(input: &PackInput) -> Result<Vec<u8>, Error> {
    let failed = |e| Error::Internal(format!("{}: converting to relative ids: {e}", input.name));
    let spirv: Vec<u32> = input.spirv.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let stored = smolv_codec::relative_ids::encode(&spirv).map_err(failed)?;
    if smolv_codec::relative_ids::decode(&stored).map_err(failed)? != spirv {
        return Err(Error::Internal(format!(
            "{}: SPIR-V with relative ids does not convert back to the module; please report this smolv bug",
            input.name
        )));
    }
    Ok(stored.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Layout 0: the packed modules one after the other, identical ones shared (as a linker merges them).
pub(crate) fn per_module(inputs: &[PackInput], forms: &ModuleForms) -> Result<Candidate, Error> {
    let codec = forms.codec;
    let mut data = Vec::with_capacity(forms.packed.iter().map(Vec::len).sum());
    let mut entries = Vec::with_capacity(inputs.len());
    let mut stored: HashMap<&[u8], usize> = HashMap::new();
    for (input, packed) in inputs.iter().zip(&forms.packed) {
        let offset = *stored.entry(packed).or_insert_with(|| {
            data.extend_from_slice(packed);
            data.len() - packed.len()
        });
        entries.push(Entry {
            name: &input.name,
            offset,
            packed_len: packed.len(),
            unpacked_len: unpacked_len(codec, input),
            spirv_len: input.spirv.len(),
            check: input.check,
        });
    }
    let (dictionary, once) = match &forms.dictionary {
        Some((packed, once)) => (Some(packed.clone()), *once),
        None => (None, Once::default()),
    };
    let directory = directory::write(codec, Framing::PerModule, once, &entries)?;
    Ok(Candidate {
        scheme: Scheme { codec, framing: Framing::PerModule },
        directory,
        data,
        dictionary,
        tables_len: tables_len(inputs),
    })
}

/// Layout 1: every module's unpacked form packed as one stream, smallest first (near similar ones), entries by name.
pub(crate) fn stream(
    inputs: &[PackInput],
    codec: Codec,
    relative: Option<&[Vec<u8>]>,
    zstd_level: i32,
) -> Result<Candidate, Error> {
    let unpacked = unpacked_forms(codec, inputs, relative)?;
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| (unpacked[i].len(), i));
    let mut stream = Vec::with_capacity(unpacked.iter().map(|m| m.len()).sum());
    let mut offsets = vec![0; inputs.len()];
    for &i in &order {
        offsets[i] = stream.len();
        stream.extend_from_slice(unpacked[i]);
    }
    let entries: Vec<Entry<'_>> = inputs
        .iter()
        .zip(&offsets)
        .zip(&unpacked)
        .map(|((input, &offset), unpacked)| Entry {
            name: &input.name,
            offset,
            packed_len: unpacked.len(),
            unpacked_len: unpacked.len(),
            spirv_len: input.spirv.len(),
            check: input.check,
        })
        .collect();
    let header = Once { len: stream.len(), check: xxhash_rust::xxh32::xxh32(&stream, 0) };
    let data = pack_block(codec, &stream, zstd_level)?;
    let directory = directory::write(codec, Framing::Stream, header, &entries)?;
    Ok(Candidate {
        scheme: Scheme { codec, framing: Framing::Stream },
        directory,
        data,
        dictionary: None,
        tables_len: tables_len(inputs),
    })
}
