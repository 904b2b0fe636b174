//! The packing step's cache entry (LZ4 HC, zstd -19 and xz are slow), keyed by every input's value.

use super::candidate::{Candidate, tables_len};
use super::codec::Scheme;
use super::{Measured, PackInput, PackedSet, choose, cost, for_empty_set};
use crate::cache::{BodyReader, BodyWriter, Cache, Key, KeyBuilder};
use crate::error::Error;
use crate::options::DictionaryMode;
use crate::pack::zstd_forms::ZstdForms;
use crate::pack::zstd_memo::ZstdMemo;
use crate::settings::PackSettings;

/// [`choose`], or its result from the cache; a set of no modules (the refused ones of a wgpu build) raw.
pub(crate) fn pack_cached(
    inputs: &[PackInput],
    zstd: &ZstdForms,
    memo: &ZstdMemo<'_>,
    options: &PackSettings,
    dictionary_mode: DictionaryMode,
    cache: &Cache,
) -> Result<PackedSet, Error> {
    let options = &if inputs.is_empty() { for_empty_set(options) } else { options.clone() };
    let key = key(inputs, options, dictionary_mode);
    if let Some(set) = cache.get(&key).and_then(|body| read(&body, inputs, options)) {
        return Ok(set);
    }
    let set = choose(inputs, zstd, memo, options, dictionary_mode)?;
    if let Some(body) = write(&set) {
        cache.put(&key, &body);
    }
    Ok(set)
}

fn key(inputs: &[PackInput], options: &PackSettings, dictionary_mode: DictionaryMode) -> Key {
    let mut key = KeyBuilder::new("smolv-build embedded set v4");
    key.text(env!("CARGO_PKG_VERSION"))
        .text(options.packing.name())
        .text(options.goal.name())
        .text(&format!("zstd {} {dictionary_mode:?}", options.zstd_level))
        .text(&cost::table_identity())
        .text(&options.runtime.identity());
    key.text(zstd::zstd_safe::version_string());
    for input in inputs {
        key.text(&input.name).field(&input.smolv).field(&input.spirv);
    }
    key.finish()
}

/// The entry body; `None` if something does not fit its fields (not cached).
fn write(set: &PackedSet) -> Option<Vec<u8>> {
    let mut w = BodyWriter::default();
    let shipped = &set.shipped;
    w.bytes(shipped.scheme.packing_name().as_bytes());
    w.bytes(&shipped.directory).bytes(&shipped.data).bytes(shipped.dictionary.as_deref().unwrap_or_default());
    w.u32(u32::from(shipped.dictionary.is_some()));
    set.modules.iter().for_each(|m| {
        w.bytes(m);
    });
    w.list(&set.candidates, |w, candidate| {
        // 0 for "not estimated", else the estimate plus one.
        let stored_xz = candidate.stored_xz.map_or(0, |xz| xz + 1);
        w.bytes(candidate.scheme.packing_name().as_bytes()).count(candidate.stored).count(stored_xz)
    });
    w.finish()
}

/// The scheme `SMOLV_PACKING` names `name`.
fn named(name: &[u8]) -> Option<Scheme> {
    Scheme::ALL.into_iter().find(|s| s.packing_name().as_bytes() == name)
}

fn read(body: &[u8], inputs: &[PackInput], options: &PackSettings) -> Option<PackedSet> {
    let (goal, tables_len) = (options.goal, tables_len(inputs));
    let mut r = BodyReader::new(body);
    let scheme = named(r.bytes()?)?;
    let directory = r.bytes()?.to_vec();
    let data = r.bytes()?.to_vec();
    let dictionary_bytes = r.bytes()?.to_vec();
    let dictionary = (r.u32()? == 1).then_some(dictionary_bytes);
    let modules = inputs.iter().map(|_| r.bytes().map(<[u8]>::to_vec)).collect::<Option<Vec<_>>>()?;
    let candidates = r.list(|r| {
        let scheme = named(r.bytes()?)?;
        let stored = usize::try_from(r.u32()?).ok()?;
        let stored_xz = match r.u32()? {
            0 => None,
            xz => Some(usize::try_from(xz - 1).ok()?),
        };
        Some(Measured { scheme, stored, stored_xz, zstd_fast: options.runtime.zstd_fast })
    })?;
    let shipped = Candidate { scheme, directory, data, dictionary, tables_len };
    r.is_empty().then_some(PackedSet { shipped, goal, modules, candidates })
}
