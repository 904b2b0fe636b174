//! WGSL or SPIR-V for a wgpu target: the smaller game, front ends included ([`WgpuFrontEnds`]).

use crate::options::Target;
use crate::pack::packing::{Measured, WgpuFrontEnds};

use super::PackedWgsl;

/// Which path ships.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WgpuPath {
    Wgsl,
    Spirv,
}

/// The choice, and the totals it weighed (installed bytes, against the SPIR-V path's front end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WgpuChoice {
    pub(crate) path: WgpuPath,
    /// WGSL stream + the refused modules' set + front ends over SPIR-V's.
    pub(crate) wgsl_total: i64,
    /// Every module's set.
    pub(crate) spirv_total: i64,
}

fn signed(bytes: usize) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

/// The path for `target`: forced, else the smaller total (tie: SPIR-V); `Target::Wgpu` without `spirv_readable`: WGSL.
pub(crate) fn choose(
    target: Target,
    wgsl: &PackedWgsl,
    refused: Option<Measured>,
    all: Measured,
    front_ends: WgpuFrontEnds,
    spirv_readable: bool,
) -> WgpuChoice {
    let front_end = if refused.is_some() { front_ends.both_over_spirv } else { front_ends.wgsl_over_spirv };
    let wgsl_total = signed(wgsl.installed_total()) + refused.map_or(0, |r| signed(r.installed_total())) + front_end;
    let spirv_total = signed(all.installed_total());
    let path = match target {
        Target::WgpuWgsl => WgpuPath::Wgsl,
        Target::Wgpu if wgsl_total < spirv_total || !spirv_readable => WgpuPath::Wgsl,
        _ => WgpuPath::Spirv,
    };
    WgpuChoice { path, wgsl_total, spirv_total }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Packing;
    use smolv_format::WgslCodec;

    fn wgsl(stored: usize) -> PackedWgsl {
        PackedWgsl {
            codec: WgslCodec::Wgsl,
            data: vec![0; stored],
            unpacked_len: stored,
            check: 0,
            spans: Vec::new(),
            tables_len: 0,
            candidates: Vec::new(),
        }
    }

    fn raw(stored: usize) -> Measured {
        Measured { scheme: Packing::Raw.scheme().unwrap(), stored, stored_xz: None, zstd_fast: false }
    }

    #[test]
    fn the_front_ends_count_and_refused_modules_need_both() {
        let costs = WgpuFrontEnds { wgsl_over_spirv: 50_000, both_over_spirv: 200_000 };
        let decoder = crate::pack::packing::wgsl_decoder(WgslCodec::Wgsl);
        // 100 KB of SPIR-V against 10 KB of WGSL: WGSL wins by far more
        // than its front end costs.
        let choice = choose(Target::Wgpu, &wgsl(10_000), None, raw(100_000), costs, true);
        assert_eq!(choice.path, WgpuPath::Wgsl);
        assert_eq!(choice.wgsl_total, signed(10_000 + decoder) + 50_000);
        // 50 KB of SPIR-V: the front end outweighs what WGSL saves.
        assert_eq!(choose(Target::Wgpu, &wgsl(10_000), None, raw(50_000), costs, true).path, WgpuPath::Spirv);
        // With a refused module the game needs both front ends.
        let mixed = choose(Target::Wgpu, &wgsl(10_000), Some(raw(1_000)), raw(100_000), costs, true);
        assert_eq!((mixed.path, mixed.wgsl_total), (WgpuPath::Spirv, signed(11_000 + decoder) + 200_000));
        // Forced paths ship what they force, with the totals reported.
        assert_eq!(choose(Target::WgpuWgsl, &wgsl(10_000), None, raw(50_000), costs, true).path, WgpuPath::Wgsl);
        assert_eq!(choose(Target::WgpuSpirv, &wgsl(10_000), None, raw(100_000), costs, true).path, WgpuPath::Spirv);
        // A game whose smolv-runtime hands wgpu no SPIR-V gets WGSL, even
        // where SPIR-V would be smaller; a forced path stays forced.
        assert_eq!(choose(Target::Wgpu, &wgsl(10_000), None, raw(50_000), costs, false).path, WgpuPath::Wgsl);
        assert_eq!(choose(Target::WgpuSpirv, &wgsl(10_000), None, raw(50_000), costs, false).path, WgpuPath::Spirv);
    }
}
