//! Choosing what ships: the smallest total for the goal, decoder included; a tie goes to the simpler.

use super::SizeGoal;
use super::codec::Scheme;
use super::cost::DecoderCost;

/// One candidate's sizes: what it stores, and (for the download goal) that after `xz -9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Measured {
    pub(crate) scheme: Scheme,
    pub(crate) stored: usize,
    pub(crate) stored_xz: Option<usize>,
    /// Whether the runtime links zstd's full-speed build.
    pub(crate) zstd_fast: bool,
}

impl Measured {
    /// The decoder code this candidate links.
    pub(crate) fn decoder(&self) -> DecoderCost {
        DecoderCost::linked(self.scheme.codec, self.zstd_fast)
    }

    /// Stored bytes plus decoder code, installed.
    pub(crate) fn installed_total(&self) -> usize {
        self.stored + self.decoder().installed
    }

    /// Estimated bytes after `xz -9`, decoder included, if measured.
    pub(crate) fn download_total(&self) -> Option<usize> {
        self.stored_xz.map(|xz| xz + self.decoder().download)
    }

    /// The total the goal weighs (without an estimate, the installed size).
    pub(crate) fn total(&self, goal: SizeGoal) -> usize {
        match goal {
            SizeGoal::Installed => self.installed_total(),
            SizeGoal::Download => self.download_total().unwrap_or_else(|| self.installed_total()),
        }
    }
}

/// The candidate with the smallest total for `goal`; among equals the simplest ([`Scheme::ALL`] order).
pub(crate) fn choose(candidates: &[Measured], goal: SizeGoal) -> Option<usize> {
    (0..candidates.len()).min_by_key(|&i| (candidates[i].total(goal), candidates[i].scheme.rank()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Framing, Packing};

    fn measured(packing: Packing, stored: usize, stored_xz: usize) -> Measured {
        let scheme = packing.scheme().unwrap();
        Measured { scheme, stored, stored_xz: Some(stored_xz), zstd_fast: false }
    }

    #[test]
    fn the_decoder_counts_so_small_sets_ship_raw() {
        // 3 KB raw beats 1 KB of SMOL-V or 1.2 KB of relative ids + LZ4,
        // which need decoders of several KB.
        let candidates = [
            measured(Packing::Raw, 3_000, 900),
            measured(Packing::RelativeIdsLz4 { framing: Framing::Stream }, 1_200, 1_100),
            measured(Packing::Smolv, 1_000, 700),
            measured(Packing::Lz4 { framing: Framing::PerModule }, 600, 500),
        ];
        assert_eq!(choose(&candidates, SizeGoal::Installed), Some(0));
        assert_eq!(choose(&candidates, SizeGoal::Download), Some(0));
    }

    #[test]
    fn large_sets_ship_compressed_and_ties_go_to_the_simpler_packing() {
        let raw = measured(Packing::Raw, 500_000, 70_000);
        let relative = measured(Packing::RelativeIds, 500_000, 52_000);
        let smolv = measured(Packing::Smolv, 180_000, 55_000);
        let lz4 = measured(Packing::Lz4 { framing: Framing::PerModule }, 80_000, 67_000);
        assert_eq!(choose(&[raw, relative, smolv, lz4], SizeGoal::Installed), Some(3));
        // The download goal weighs xz sizes: relative ids and SMOL-V
        // compress again, LZ4 does not, and relative ids need less code.
        assert_eq!(choose(&[raw, relative, smolv, lz4], SizeGoal::Download), Some(1));
        let lz4_stream = Measured { scheme: Packing::Lz4 { framing: Framing::Stream }.scheme().unwrap(), ..lz4 };
        assert_eq!(choose(&[lz4_stream, lz4], SizeGoal::Installed), Some(1));
        assert_eq!(choose(&[], SizeGoal::Installed), None);
    }
}
