//! Each module's WGSL, from the build cache or from naga (in a worker
//! when the build has them). A translation and a refusal are both cached:
//! naga gives the same answer for the same words. A worker that crashed
//! or ran out of time is never cached; its module ships as SPIR-V, with a
//! warning that says so.

use rayon::prelude::*;

use crate::cache::{Cache, KeyBuilder};
use crate::compile::translate;
use crate::compile::worker::{Compilers, Translation};

/// What became of each module's translation, in the order given: its
/// minified WGSL, why naga refused it, or why no answer came.
pub(crate) fn translate_all(spirv: &[&[u32]], compilers: &Compilers, cache: &Cache) -> Vec<Translation> {
    if !translate::AVAILABLE {
        return spirv.iter().map(|words| Translation::Answer(translate::to_wgsl(words))).collect();
    }
    let identity = translate::identity();
    spirv.par_iter().map(|words| translate_one(words, &identity, compilers, cache)).collect()
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
