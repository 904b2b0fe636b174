//! The pack stage, compiled SPIR-V → what ships ([`pack`]); it writes nothing to `OUT_DIR`.

pub(crate) mod artifacts;
pub(crate) mod bundle;
pub(crate) mod encode;
pub(crate) mod naming;
pub(crate) mod packing;
pub(crate) mod recipe;
pub(crate) mod reflect;
pub(crate) mod wgpu;
pub(crate) mod wgsl;
pub(crate) mod zstd_forms;
pub(crate) mod zstd_memo;

use crate::cache::Cache;
use crate::compile::all::{Built, Compiled};
use crate::compile::worker::Compilers;
use crate::error::Error;
use crate::pack::artifacts::{Artifacts, Made};
use crate::pack::bundle::BundleModule;
use crate::pack::wgpu::RefusedSet;
use crate::pack::zstd_memo::ZstdMemo;
use crate::settings::Plan;

/// Every module reflected, encoded, compressed and packed; `compilers` translate to WGSL (and end here).
pub(crate) fn pack(plan: &Plan, compiled: &Compiled<'_>, compilers: Compilers) -> Result<Artifacts, Error> {
    let Ok(threads) = &compiled.threads else {
        return Err(Error::Internal("the pack stage has no threads".to_owned()));
    };
    let artifacts = threads.leased(|| steps(&compiled.modules, plan, &compiled.cache, &compilers))?;
    drop(compilers);
    artifacts
}

fn steps(modules: &[Built<'_>], plan: &Plan, cache: &Cache, compilers: &Compilers) -> Result<Artifacts, Error> {
    let settings = &plan.settings;
    let reflected = reflect::reflect_all(modules, settings);
    let encoded = encode::encode_all(modules, &reflected, settings)?;
    let translated =
        plan.packing.target.may_ship_wgsl().then(|| wgsl::translate_modules(modules, &encoded, compilers, cache));
    // Where naga made WGSL, the modules it refused are a SPIR-V set of their own.
    let refused: Option<Vec<usize>> = translated
        .as_ref()
        .filter(|translated| !translated.texts.is_empty())
        .map(|translated| translated.refused.iter().map(|&(index, _)| index).collect());

    // The bundle's forms and the embedded set's share this work.
    let memo = ZstdMemo::new(encoded.iter().map(|e| e.smolv.as_slice()), Some(cache));
    let refused_memo = refused
        .as_ref()
        .map(|refused| ZstdMemo::new(refused.iter().map(|&i| encoded[i].smolv.as_slice()), Some(cache)));
    let zstd = zstd_forms::cached(&memo, plan, cache)?;
    let refused_zstd = refused_memo.as_ref().map(|memo| zstd_forms::cached(memo, plan, cache)).transpose()?;

    let inputs = packing::inputs(modules, &encoded);
    let embedded = packing::pack_cached(&inputs, &zstd, &memo, &plan.packing, plan.dictionary, cache)?;
    let refused_set = match (&refused, &refused_memo, &refused_zstd) {
        (Some(refused), Some(memo), Some(zstd)) => {
            let inputs: Vec<_> = refused.iter().map(|&i| inputs[i].clone()).collect();
            let set = packing::pack_cached(&inputs, zstd, memo, &plan.packing, plan.dictionary, cache)?;
            Some(RefusedSet { set, spirv_bytes: inputs.iter().map(|m| m.spirv.len()).sum() })
        }
        _ => None,
    };

    let wgpu = translated
        .map(|translated| wgpu::choose(translated, &embedded, refused_set, modules.len(), plan))
        .transpose()?;
    let bundle_modules: Vec<BundleModule<'_>> = modules
        .iter()
        .zip(&encoded)
        .zip(&reflected)
        .map(|((Built { module, .. }, encoded), reflected)| BundleModule {
            name: &module.name,
            encoded,
            reflection: &reflected.in_container,
        })
        .collect();
    let packed = zstd.preferred();
    let bundled = bundle::assemble_bundle(&bundle_modules, packed)?;
    let made = Made { reflected: &reflected, encoded: &encoded, inputs: &inputs, packed, bundled };
    Ok(artifacts::assemble(modules, made, embedded, wgpu, plan))
}
