//! Packing the embedded set: every way that could win built, measured, and the smallest chosen.

mod candidate;
mod choose;
mod codec;
mod cost;
mod dictionary;
mod directory;
mod entry;
mod lz4;
mod xz;

use rayon::prelude::*;

use crate::compile::all;
use crate::error::Error;
use crate::options::{DictionaryMode, Packing, SizeGoal};
use crate::pack::encode::Encoded;
use crate::pack::zstd_forms::ZstdForms;
use crate::pack::zstd_memo::ZstdMemo;
use crate::settings::PackSettings;

pub(crate) use candidate::unpacked_len;
pub(crate) use choose::Measured;
pub(crate) use codec::{Scheme, pack_block};
use cost::DecoderCost;
pub(crate) use cost::{WGPU_FRONT_ENDS, WgpuFrontEnds, wgsl_decoder};
pub(crate) use entry::pack_cached;
pub(crate) use smolv_format::{Codec, Framing};

impl Packing {
    /// The one scheme a forced packing means; `None` for `Auto`.
    pub(crate) fn scheme(self) -> Option<Scheme> {
        let (codec, framing) = match self {
            Self::Auto => return None,
            Self::Raw => (Codec::Spirv, Framing::PerModule),
            Self::RelativeIds => (Codec::SpirvRelativeIds, Framing::PerModule),
            Self::RelativeIdsLz4 { framing } => (Codec::SpirvRelativeIdsLz4, framing),
            Self::Smolv => (Codec::Smolv, Framing::PerModule),
            Self::Lz4 { framing } => (Codec::SmolvLz4, framing),
            Self::Zstd { framing } => (Codec::SmolvZstd, framing),
            Self::ZstdDictionary => (Codec::SmolvZstdDictionary, Framing::PerModule),
        };
        Some(Scheme { codec, framing })
    }
}

#[derive(Clone)]
pub(crate) struct PackInput {
    pub(crate) name: String,
    pub(crate) smolv: Vec<u8>,
    /// The SPIR-V it decodes to, as little-endian bytes.
    pub(crate) spirv: Vec<u8>,
    /// xxHash32 (seed 0) of `spirv`.
    pub(crate) check: u32,
}

/// The packed set: what ships, and what the choice weighed.
pub(crate) struct PackedSet {
    /// The chosen candidate: scheme, directory, data and dictionary (one zstd frame).
    pub(crate) shipped: candidate::Candidate,
    pub(crate) goal: SizeGoal,
    /// Each module packed alone with the set's codec, for `include_shader!`.
    pub(crate) modules: Vec<Vec<u8>>,
    /// Every candidate, in [`Scheme::ALL`] order.
    pub(crate) candidates: Vec<Measured>,
}

impl PackedSet {
    /// The chosen candidate's sizes.
    pub(crate) fn chosen(&self) -> Measured {
        let scheme = self.shipped.scheme;
        let stored = self.shipped.stored_len();
        let measured = Measured { scheme, stored, stored_xz: None, zstd_fast: false };
        self.candidates.iter().find(|c| c.scheme == scheme).copied().unwrap_or(measured)
    }
}

/// Builds and measures the candidate packings of `inputs` (by name), keeping the one `options` asks for; zstd's
/// (slow) only where their decoder alone costs less than the best other total.
pub(crate) fn choose(
    inputs: &[PackInput],
    zstd: &ZstdForms,
    memo: &ZstdMemo<'_>,
    options: &PackSettings,
    dictionary_mode: DictionaryMode,
) -> Result<PackedSet, Error> {
    let forced = options.packing.scheme();
    if let Some(scheme) = forced {
        options.runtime.require(scheme.codec, scheme.packing_name())?;
    }
    if memo.smolv().len() != inputs.len() {
        return Err(Error::Internal("the zstd work is on another set than the one packed".to_owned()));
    }
    let (zstd_schemes, simple_schemes): (Vec<Scheme>, Vec<Scheme>) =
        Scheme::ALL.into_iter().filter(|s| options.runtime.decodes(s.codec)).partition(|s| is_zstd(s.codec));
    let mut built = build(inputs, &simple_schemes, zstd, None, options)?;
    let zstd_may_win = forced.is_some() || {
        let decoder = DecoderCost::linked(Codec::SmolvZstd, options.runtime.zstd_fast);
        let least = match options.goal {
            SizeGoal::Installed => decoder.installed + candidate::tables_len(inputs),
            SizeGoal::Download => decoder.download,
        };
        built.measured.iter().map(|m| m.total(options.goal)).min().is_none_or(|best| least < best)
    };
    if zstd_may_win && !zstd_schemes.is_empty() {
        let dictionary_wanted = zstd_schemes.iter().any(|s| s.codec == Codec::SmolvZstdDictionary)
            && forced.is_none_or(|scheme| scheme.codec == Codec::SmolvZstdDictionary);
        let trained =
            if dictionary_wanted { dictionary::train(memo, options.zstd_level, dictionary_mode)? } else { None };
        let schemes: Vec<Scheme> =
            zstd_schemes.into_iter().filter(|s| s.codec != Codec::SmolvZstdDictionary || trained.is_some()).collect();
        let zstd_built = build(inputs, &schemes, zstd, trained.as_ref(), options)?;
        // The zstd schemes come last in `Scheme::ALL`: the order holds.
        built.forms.extend(zstd_built.forms);
        built.candidates.extend(zstd_built.candidates);
        built.measured.extend(zstd_built.measured);
    }
    let Built { forms, candidates, measured } = built;
    if let Some(scheme) = forced.filter(|s| !candidates.iter().any(|c| c.scheme == *s)) {
        return Err(Error::Config(format!(
            "packing {} needs a zstd dictionary, and none could be trained: that takes two or more modules, \
             about 4 KB of SMOL-V, and Config::dictionary other than DictionaryMode::Off",
            scheme.packing_name()
        )));
    }
    let index = match forced {
        Some(scheme) => measured.iter().position(|m| m.scheme == scheme),
        None => choose::choose(&measured, options.goal),
    }
    .ok_or_else(|| Error::Internal("no packing candidate was built".to_owned()))?;
    let chosen = candidates
        .into_iter()
        .nth(index)
        .ok_or_else(|| Error::Internal("the chosen packing candidate is missing".to_owned()))?;
    let modules = forms
        .into_iter()
        .find(|f| f.codec == chosen.scheme.codec)
        .map(|f| f.packed)
        .ok_or_else(|| Error::Internal("the chosen codec packed no modules".to_owned()))?;
    Ok(PackedSet { shipped: chosen, goal: options.goal, modules, candidates: measured })
}

/// Whether `codec` decodes with zstd (and links its decoder).
fn is_zstd(codec: Codec) -> bool {
    matches!(codec, Codec::SmolvZstd | Codec::SmolvZstdDictionary)
}

/// Candidates built and measured: each codec's per-module forms, each scheme's candidate and sizes.
struct Built {
    forms: Vec<candidate::ModuleForms>,
    candidates: Vec<candidate::Candidate>,
    measured: Vec<Measured>,
}

/// Builds and measures the candidates of `schemes`; `trained` is the set's dictionary.
fn build(
    inputs: &[PackInput],
    schemes: &[Scheme],
    zstd: &ZstdForms,
    trained: Option<&dictionary::EmbeddedDictionary>,
    options: &PackSettings,
) -> Result<Built, Error> {
    let relative =
        if schemes.iter().any(|s| s.codec.relative_ids()) { Some(candidate::relative_ids_of(inputs)?) } else { None };
    let relative = relative.as_deref();
    let forms = Codec::ALL
        .into_par_iter()
        .filter(|codec| schemes.iter().any(|s| s.codec == *codec))
        .map(|codec| candidate::ModuleForms::new(codec, inputs, relative, zstd, trained))
        .collect::<Result<Vec<_>, Error>>()?;
    let forms_of = |codec| forms.iter().find(|f| f.codec == codec);
    let candidates = schemes
        .par_iter()
        .map(|&scheme| match (scheme.framing, forms_of(scheme.codec)) {
            (Framing::PerModule, Some(forms)) => candidate::per_module(inputs, forms),
            (Framing::Stream, _) => candidate::stream(inputs, scheme.codec, relative, options.zstd_level),
            (Framing::PerModule, None) => {
                Err(Error::Internal(format!("no modules packed with {}", scheme.codec.name())))
            }
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let measured = candidates
        .par_iter()
        .map(|c| {
            let stored_xz = match options.goal {
                SizeGoal::Download => Some(xz::compressed_len(&c.stored_bytes())?),
                SizeGoal::Installed => None,
            };
            Ok(Measured { scheme: c.scheme, stored: c.stored_len(), stored_xz, zstd_fast: options.runtime.zstd_fast })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(Built { forms, candidates, measured })
}

/// The embedded set's view of every module.
pub(crate) fn inputs(modules: &[all::Built<'_>], encoded: &[Encoded]) -> Vec<PackInput> {
    let input = |(all::Built { module, .. }, encoded): (&all::Built<'_>, &Encoded)| {
        let spirv: Vec<u8> = encoded.decoded.iter().flat_map(|w| w.to_le_bytes()).collect();
        let check = xxhash_rust::xxh32::xxh32(&spirv, 0);
        PackInput { name: module.name.clone(), smolv: encoded.smolv.clone(), spirv, check }
    };
    modules.iter().zip(encoded).map(input).collect()
}

/// `options` for a set of no modules: raw SPIR-V, no other codec tried.
pub(crate) fn for_empty_set(options: &PackSettings) -> PackSettings {
    let runtime = crate::options::RuntimeCodecs::from_env(|name| {
        (name == crate::options::RUNTIME_VARIABLES[0]).then(|| Codec::Spirv.name().to_owned())
    });
    PackSettings { packing: Packing::Raw, runtime, ..options.clone() }
}

#[cfg(test)]
mod empty_set_tests {
    use super::*;
    use crate::pack::zstd_forms::{Packed, ZstdForms};

    #[test]
    fn an_empty_set_packs_raw() {
        let forms = ZstdForms {
            plain: Packed { dictionary: None, payloads: Vec::new() },
            with_dictionary: None,
            prefer_dictionary: false,
        };
        let options = PackSettings {
            packing: Packing::Auto,
            goal: SizeGoal::Installed,
            zstd_level: 19,
            runtime: crate::options::RuntimeCodecs::from_env(|_| None),
            target: crate::options::Target::Wgpu,
        };
        let memo = ZstdMemo::new([], None);
        let set = choose(&[], &forms, &memo, &for_empty_set(&options), DictionaryMode::default()).unwrap();
        assert_eq!(set.shipped.scheme.codec, Codec::Spirv);
        assert!(set.modules.is_empty() && set.shipped.data.is_empty());
    }
}

#[cfg(test)]
mod pruning_tests {
    use super::*;
    use crate::pack::zstd_forms::compress_forms;

    /// `count` modules of `len` bytes of SPIR-V and of SMOL-V each, that
    /// neither LZ4 nor zstd can shrink.
    fn inputs(count: usize, len: usize) -> Vec<PackInput> {
        let mut state = 7u32;
        let mut noise = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    state.to_le_bytes()[0]
                })
                .collect()
        };
        (0..count)
            .map(|i| {
                let spirv = noise(len);
                let check = xxhash_rust::xxh32::xxh32(&spirv, 0);
                PackInput { name: format!("m{i}"), smolv: noise(len * 3 / 4), spirv, check }
            })
            .collect()
    }

    fn options(packing: Packing) -> PackSettings {
        PackSettings {
            packing,
            goal: SizeGoal::Installed,
            zstd_level: 3,
            runtime: crate::options::RuntimeCodecs::from_env(|name| {
                (name == crate::options::RUNTIME_VARIABLES[0]).then(|| "spirv,smolv,smolv-zstd".to_owned())
            }),
            target: crate::options::Target::Vulkan,
        }
    }

    fn pack(inputs: &[PackInput], packing: Packing) -> PackedSet {
        let memo = ZstdMemo::new(inputs.iter().map(|m| m.smolv.as_slice()), None);
        let forms = compress_forms(&memo, 3, DictionaryMode::Off).unwrap();
        choose(inputs, &forms, &memo, &options(packing), DictionaryMode::Off).unwrap()
    }

    fn codecs(set: &PackedSet) -> Vec<Codec> {
        set.candidates.iter().map(|c| c.scheme.codec).collect()
    }

    #[test]
    fn zstd_is_weighed_only_where_its_decoder_leaves_it_a_chance() {
        // 800 B of SPIR-V: zstd's decoder alone costs more than raw's total.
        let tiny = pack(&inputs(8, 100), Packing::Auto);
        assert_eq!(codecs(&tiny), [Codec::Spirv, Codec::Smolv]);
        assert_eq!(tiny.shipped.scheme.codec, Codec::Spirv);
        // 64 KB of SPIR-V, 48 KB of SMOL-V: zstd could win, so it is built.
        let large = pack(&inputs(8, 8 << 10), Packing::Auto);
        assert_eq!(codecs(&large), [Codec::Spirv, Codec::Smolv, Codec::SmolvZstd, Codec::SmolvZstd]);
        // A forced packing weighs every candidate, and ships what it asks for.
        let forced = pack(&inputs(8, 100), Packing::Zstd { framing: Framing::PerModule });
        assert_eq!(codecs(&forced), [Codec::Spirv, Codec::Smolv, Codec::SmolvZstd, Codec::SmolvZstd]);
        assert_eq!(forced.shipped.scheme.codec, Codec::SmolvZstd);
    }
}
