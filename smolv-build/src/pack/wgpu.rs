//! What a build for wgpu ships: naga's WGSL as one stream (and a SPIR-V set of those it refused), or SPIR-V.

use crate::error::Error;
use crate::pack::packing::{PackedSet, WGPU_FRONT_ENDS};
use crate::pack::wgsl::{self, PackedWgsl, Translated, WgpuChoice, WgpuPath};
use crate::settings::Plan;

/// What a build for wgpu made: the WGSL stream (shipped or only weighed), each module's text, the choice.
pub(crate) struct WgpuArtifacts {
    pub(crate) packed: PackedWgsl,
    /// `(index, name, text)` of each module naga made WGSL of, by name.
    pub(crate) texts: Vec<(usize, String, String)>,
    pub(crate) choice: WgpuChoice,
    /// How many modules naga refused (they ship SPIR-V either way).
    pub(crate) refused: usize,
    /// How many modules got no answer from their worker.
    pub(crate) unanswered: usize,
}

/// What [`choose`] made of a build for wgpu.
pub(crate) struct WgpuOutcome {
    /// What it weighed; `None` when naga made no WGSL at all.
    pub(crate) artifacts: Option<WgpuArtifacts>,
    /// A warning per module that ships as SPIR-V, and the runtime's.
    pub(crate) warnings: Vec<String>,
    /// When WGSL ships, the SPIR-V set shipped instead of every module's, and the SPIR-V bytes it holds.
    pub(crate) shipped: Option<(PackedSet, usize)>,
    /// How many modules got no answer.
    pub(crate) unanswered: usize,
}

/// The refused modules' own SPIR-V set, and the SPIR-V bytes it holds.
pub(crate) struct RefusedSet {
    pub(crate) set: PackedSet,
    pub(crate) spirv_bytes: usize,
}

/// Packs `translated`'s WGSL and chooses between it (with `refused`, the refused modules' set) and `all`.
pub(crate) fn choose(
    translated: Translated,
    all: &PackedSet,
    refused: Option<RefusedSet>,
    modules: usize,
    plan: &Plan,
) -> Result<WgpuOutcome, Error> {
    let Translated { texts, refused: refused_modules, unanswered, mut warnings } = translated;
    // naga's refusals ship SPIR-V, which a runtime whose wgpu layer takes none refuses.
    let refused_names: Vec<&str> = refused_modules.iter().map(|(_, name)| name.as_str()).collect();
    let spirv_warning = plan.packing.runtime.wgpu_spirv_warning(&refused_names);
    let Some(refused) = refused.filter(|_| !texts.is_empty()) else {
        warnings.extend(spirv_warning);
        return Ok(WgpuOutcome { artifacts: None, warnings, shipped: None, unanswered });
    };
    let names: Vec<&str> = texts.iter().map(|(_, n, _)| n.as_str()).collect();
    let bodies: Vec<&str> = texts.iter().map(|(_, _, t)| t.as_str()).collect();
    let packed = wgsl::pack_texts(&names, &bodies, plan.zstd_level, &plan.packing.runtime, None)?;
    let refused_measured = (!refused_modules.is_empty()).then(|| refused.set.chosen());
    let spirv_readable = plan.packing.runtime.wgpu_takes_spirv();
    let choice =
        wgsl::choose(plan.packing.target, &packed, refused_measured, all.chosen(), WGPU_FRONT_ENDS, spirv_readable);
    if choice.path == WgpuPath::Wgsl {
        warnings.extend(spirv_warning);
    }
    let shipped = (choice.path == WgpuPath::Wgsl).then(|| {
        let mut forms = vec![Vec::new(); modules];
        for (&(index, _), form) in refused_modules.iter().zip(refused.set.modules.iter()) {
            forms[index] = form.clone();
        }
        (PackedSet { modules: forms, ..refused.set }, refused.spirv_bytes)
    });
    let artifacts = WgpuArtifacts { packed, texts, choice, refused: refused_modules.len() - unanswered, unanswered };
    Ok(WgpuOutcome { artifacts: Some(artifacts), warnings, shipped, unanswered })
}
