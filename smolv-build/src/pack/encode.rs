//! SMOL-V encoding and zstd compression, with an optional dictionary
//! trained over the crate's own shaders.

use rayon::prelude::*;
use smolv_runtime::container::Dictionary;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::{DecodeOptions, EncodeOptions};

use crate::options::DictionaryMode;
use crate::pack::reflect::names_read;
use crate::pack::zstd_memo::ZstdMemo;
use crate::settings::Settings;

/// One module's SMOL-V, and the SPIR-V that it decodes to (without debug
/// info when stripped).
pub(crate) struct Encoded {
    pub(crate) smolv: Vec<u8>,
    pub(crate) decoded: Vec<u32>,
}

/// What encoding strips from a module.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Strip<'a> {
    /// Nothing: the module ships as compiled.
    Nothing,
    /// Every debug instruction, names included, as `glslc -Os` does.
    All,
    /// Every debug instruction but the `OpName`s of the names this
    /// reflection holds, the build's, taken before stripping
    /// (`Config::keep_interface_names`).
    KeepingInterfaceNames(&'a Reflection),
}

impl<'a> Strip<'a> {
    /// What the build's settings strip from a module whose reflection, made
    /// before stripping, is `reflection`.
    pub(crate) fn of(settings: &Settings, reflection: &'a Reflection) -> Self {
        match (settings.strip_debug, settings.keep_interface_names) {
            (false, _) => Self::Nothing,
            (true, false) => Self::All,
            (true, true) => Self::KeepingInterfaceNames(reflection),
        }
    }

    /// Whether the shipped module keeps the reflection's names.
    pub(crate) fn keeps_names(self) -> bool {
        !matches!(self, Self::All)
    }
}

/// Encodes one module, stripping what `strip` says.
pub(crate) fn encode_module(spirv: &[u32], strip: Strip<'_>) -> Result<Encoded, String> {
    let options = match strip {
        Strip::Nothing => EncodeOptions::new(),
        Strip::All => EncodeOptions::new().strip_debug(true),
        Strip::KeepingInterfaceNames(reflection) => {
            let keep = names_read(reflection);
            EncodeOptions::new().strip_debug(true).keep_names(move |name| keep.contains(name))
        }
    };
    let smolv = smolv_runtime::encode(spirv, &options).map_err(|e| format!("SMOL-V encoding failed: {e}"))?;
    let decoded =
        smolv_runtime::decode(&smolv, &DecodeOptions::new()).map_err(|e| format!("SMOL-V round trip failed: {e}"))?;
    Ok(Encoded { smolv, decoded })
}

/// The compressed set: per-module payloads and the dictionary they share.
#[derive(Clone)]
pub(crate) struct Packed {
    pub(crate) dictionary: Option<Dictionary>,
    pub(crate) payloads: Vec<Vec<u8>>,
}

impl Packed {
    pub(crate) fn total(&self) -> usize {
        self.payloads.iter().map(Vec::len).sum::<usize>() + self.dictionary.as_ref().map_or(0, |d| d.as_bytes().len())
    }
}

/// Dictionary sizes tried in automatic mode. Small ones win on small sets:
/// a dictionary only pays while it is much smaller than what it saves.
const CANDIDATE_SIZES: [usize; 8] = [1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 110 << 10];

/// Both zstd forms of a set: every module alone, and with the dictionary
/// that `mode` asks for, if one could be trained. Bundles take the
/// [`preferred`](ZstdForms::preferred) one; embedded sets weigh both.
pub(crate) struct ZstdForms {
    pub(crate) plain: Packed,
    pub(crate) with_dictionary: Option<Packed>,
    /// Whether `mode` prefers the dictionary form: always for a fixed size,
    /// in automatic mode when it lowers the total.
    pub(crate) prefer_dictionary: bool,
}

impl ZstdForms {
    /// What a bundle ships: the dictionary form if preferred, else the plain one.
    pub(crate) fn preferred(&self) -> &Packed {
        match &self.with_dictionary {
            Some(packed) if self.prefer_dictionary => packed,
            _ => &self.plain,
        }
    }
}

/// Compresses every module, choosing a dictionary as `mode` says.
pub(crate) fn compress(smolv: &[Vec<u8>], level: i32, mode: DictionaryMode) -> Result<Packed, String> {
    let memo = ZstdMemo::new(smolv.iter().map(Vec::as_slice), None);
    let mut forms = compress_forms(&memo, level, mode)?;
    Ok(match forms.with_dictionary.take() {
        Some(packed) if forms.prefer_dictionary => packed,
        _ => forms.plain,
    })
}

/// Compresses every module of `memo`'s set alone and, unless `mode` is
/// off, with a shared dictionary of the size `mode` gives or the best of
/// several.
pub(crate) fn compress_forms(memo: &ZstdMemo<'_>, level: i32, mode: DictionaryMode) -> Result<ZstdForms, String> {
    let smolv = memo.smolv();
    let plain = Packed { dictionary: None, payloads: memo.payloads(None, level)?.to_vec() };
    let no_dictionary = |plain| Ok(ZstdForms { plain, with_dictionary: None, prefer_dictionary: false });
    if smolv.len() < 2 {
        return no_dictionary(plain);
    }
    let total_input: usize = smolv.iter().map(|m| m.len()).sum();
    // A dictionary zstd made but that is not one counts as none, as zstd's
    // refusals do.
    let trained = |size| memo.trained(size).ok().flatten();
    let size = match mode {
        DictionaryMode::Off => return no_dictionary(plain),
        DictionaryMode::Size(size) => size,
        DictionaryMode::Auto => {
            // Rank sizes cheaply at a low level, then check the winner at the real one.
            let probe_level = level.min(9);
            let ranked: Vec<(usize, usize)> = CANDIDATE_SIZES
                .par_iter()
                .filter(|&&size| size * 4 <= total_input)
                .filter_map(|&size| {
                    let dictionary = trained(size)?;
                    let payloads = memo.payloads(Some(size), probe_level).ok()?;
                    let total = payloads.iter().map(Vec::len).sum::<usize>() + dictionary.as_bytes().len();
                    Some((total, size))
                })
                .collect();
            match ranked.into_iter().min() {
                Some((_, size)) => size,
                None => return no_dictionary(plain),
            }
        }
    };
    let Some(dictionary) = trained(size) else {
        return no_dictionary(plain);
    };
    let payloads = memo.payloads(Some(size), level)?.to_vec();
    let with_dictionary = Packed { dictionary: Some(dictionary), payloads };
    let prefer_dictionary = matches!(mode, DictionaryMode::Size(_)) || with_dictionary.total() < plain.total();
    Ok(ZstdForms { plain, with_dictionary: Some(with_dictionary), prefer_dictionary })
}
