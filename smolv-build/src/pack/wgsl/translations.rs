//! Each module's WGSL, from the cache or naga; a worker's crash is never cached (the module ships as SPIR-V).

use rayon::prelude::*;

use crate::cache::{Cache, KeyBuilder};
use crate::compile::all::Built;
use crate::compile::translate;
use crate::compile::worker::{Compilers, Translation};
use crate::pack::encode::Encoded;

/// Every module's translation, sorted: the WGSL naga made, and the modules that ship as SPIR-V.
pub(crate) struct Translated {
    /// `(index, name, text)` of each module naga made WGSL of, in manifest order.
    pub(crate) texts: Vec<(usize, String, String)>,
    /// `(index, name)` of the modules that ship as SPIR-V, refused or unanswered.
    pub(crate) refused: Vec<(usize, String)>,
    /// How many of `refused` got no answer (a worker crashed).
    pub(crate) unanswered: usize,
    /// One per module in `refused`, saying why.
    pub(crate) warnings: Vec<String>,
}

/// Translates every module's SPIR-V as it ships to WGSL, and sorts what came of each.
pub(crate) fn translate_modules(
    modules: &[Built<'_>],
    encoded: &[Encoded],
    compilers: &Compilers,
    cache: &Cache,
) -> Translated {
    let translated: Vec<Translation> = if translate::AVAILABLE {
        let identity = translate::identity();
        encoded.par_iter().map(|e| translate_one(&e.decoded, &identity, compilers, cache)).collect()
    } else {
        encoded.iter().map(|e| Translation::Answer(translate::to_wgsl(&e.decoded))).collect()
    };
    let mut sorted = Translated { texts: Vec::new(), refused: Vec::new(), unanswered: 0, warnings: Vec::new() };
    for (index, (built, translation)) in modules.iter().zip(translated).enumerate() {
        let why = match translation {
            Translation::Answer(Ok(text)) => {
                sorted.texts.push((index, built.module.name.clone(), text));
                continue;
            }
            Translation::Answer(Err(why)) => why,
            Translation::NoAnswer(why) => {
                sorted.unanswered += 1;
                why
            }
        };
        sorted.warnings.push(format!(
            "{} ({}) ships as SPIR-V for wgpu, not WGSL: {why}",
            built.module.name,
            built.job.path.display()
        ));
        sorted.refused.push((index, built.module.name.clone()));
    }
    sorted
}

fn translate_one(words: &[u32], identity: &str, compilers: &Compilers, cache: &Cache) -> Translation {
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    let mut key = KeyBuilder::new("smolv-build wgsl translation");
    key.text(identity).field(&bytes);
    let key = key.finish();
    if let Some(answer) = cache.get_valid(&key, translate::read_answer) {
        return Translation::Answer(answer);
    }
    let translation = compilers.translate(words);
    if let Translation::Answer(answer) = &translation
        && let Some(body) = translate::write_answer(answer)
    {
        cache.put(&key, &body);
    }
    translation
}
