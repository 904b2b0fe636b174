//! The code each stage gives the driver (spec constants folded ahead or left to it), and counts of each path.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use super::program::Stage;
use crate::vulkan::{VulkanError, lock};
use smolv_codec::specialize::{Analysis, SpecializeError, Specializer, Value};

/// The SPIR-V a stage gives the driver, and the values left for it.
pub(super) type StageCodeAndValues<'s> = (Cow<'s, [u32]>, &'s [(u32, Value)]);

/// Why a stage that [`specialize_ahead`](super::PipelineOptions#structfield.specialize_ahead) would have folded
/// went to the driver with its values instead.
///
/// ```
/// use smolv_runtime::vulkan::FallbackReason;
/// assert_eq!(FallbackReason::UnknownSpecId.to_string(), "a value names a spec constant the module does not declare");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum FallbackReason {
    /// [`Specializer::analyze`] refused the module (malformed, or too large).
    #[error("the specializer cannot analyze the module")]
    Unanalyzable,
    /// A value names a spec id the module does not declare ([`SpecializeError::UnknownSpecId`]).
    #[error("a value names a spec constant the module does not declare")]
    UnknownSpecId,
    /// [`Analysis::specialize`] refused the values for another reason.
    #[error("the specializer cannot fold these values into the module")]
    Unfoldable,
}

impl FallbackReason {
    fn of(error: &SpecializeError) -> Self {
        match error {
            SpecializeError::UnknownSpecId(_) => Self::UnknownSpecId,
            _ => Self::Unfoldable,
        }
    }
}

/// Which path the spec-constant values of the stages a manager prepared took
/// ([`PipelineManager::specialization_counts`](super::PipelineManager::specialization_counts)).
///
/// ```
/// use smolv_runtime::vulkan::{FallbackReason, SpecializationCounts};
/// let counts = SpecializationCounts { folded: 3, driver: 1, fallbacks: [(FallbackReason::UnknownSpecId, 1)].into() };
/// assert_eq!(counts.fallback_total(), 1);
/// assert_eq!(counts.fallbacks.get(&FallbackReason::Unanalyzable), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecializationCounts {
    /// Stages whose values smolv's specializer folded into the SPIR-V.
    pub folded: usize,
    /// Stages whose values went to the driver, fall-backs included.
    pub driver: usize,
    /// The fall-backs among [`driver`](Self::driver), by reason (empty without `specialize_ahead`).
    pub fallbacks: BTreeMap<FallbackReason, usize>,
}

impl SpecializationCounts {
    /// All the fall-backs, whatever their reason.
    pub fn fallback_total(&self) -> usize {
        self.fallbacks.values().sum()
    }
}

/// Turns stages into the code the driver gets, and counts what it did.
pub(super) struct StageCoder {
    specialize_ahead: bool,
    /// Specializer analyses by interned module (`None`: not analyzable).
    analyses: Mutex<HashMap<usize, Option<Arc<Analysis>>>>,
    counts: Mutex<SpecializationCounts>,
}

impl StageCoder {
    pub(super) fn new(specialize_ahead: bool) -> Self {
        Self { specialize_ahead, analyses: Mutex::default(), counts: Mutex::default() }
    }

    pub(super) fn counts(&self) -> SpecializationCounts {
        lock(&self.counts).clone()
    }

    /// The SPIR-V to give the driver and the values left for it: specialized ahead where configured and possible,
    /// else as it is. `code_id` is the module's interned number.
    ///
    /// # Errors
    /// [`VulkanError::Specialize`] when folding makes an array length below 1.
    pub(super) fn code<'s>(&self, code_id: usize, stage: &Stage<'s>) -> Result<StageCodeAndValues<'s>, VulkanError> {
        let as_is = (Cow::Borrowed(stage.spirv), stage.specialization);
        if stage.specialization.is_empty() {
            return Ok(as_is);
        }
        if !self.specialize_ahead {
            lock(&self.counts).driver += 1;
            return Ok(as_is);
        }
        let reason = match self.analysis(code_id, stage) {
            None => FallbackReason::Unanalyzable,
            Some(analysis) => match analysis.specialize(stage.specialization) {
                Ok(specialized) => {
                    lock(&self.counts).folded += 1;
                    return Ok((Cow::Owned(specialized), &[]));
                }
                Err(error @ SpecializeError::ArrayLength { .. }) => return Err(VulkanError::Specialize(error)),
                // What the specializer cannot do, the driver does.
                Err(error) => FallbackReason::of(&error),
            },
        };
        let mut counts = lock(&self.counts);
        counts.driver += 1;
        *counts.fallbacks.entry(reason).or_default() += 1;
        Ok(as_is)
    }

    fn analysis(&self, code_id: usize, stage: &Stage<'_>) -> Option<Arc<Analysis>> {
        if let Some(cached) = lock(&self.analyses).get(&code_id) {
            return cached.clone();
        }
        let analysis = Specializer::analyze(stage.spirv).ok().map(Arc::new);
        lock(&self.analyses).entry(code_id).or_insert(analysis).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{Reflection, ShaderStage};
    use smolv_codec::specialize::doc_ubershader;

    fn stage<'s>(spirv: &'s [u32], reflection: &'s Reflection, values: &'s [(u32, Value)]) -> Stage<'s> {
        Stage { spirv, reflection, specialization: values }
    }

    #[test]
    fn ahead_folds_what_the_specializer_can_and_counts_each_fall_back_by_reason() {
        let module = doc_ubershader();
        let reflection = Reflection::new(ShaderStage::Fragment, "main");
        let coder = StageCoder::new(true);
        // Folded: no values left for the driver.
        let values = [(0, Value::Bool(false))];
        let (code, left) = coder.code(0, &stage(&module, &reflection, &values)).unwrap();
        assert!(left.is_empty());
        assert_ne!(&*code, &module[..]);
        // Stages without values count nowhere.
        coder.code(0, &stage(&module, &reflection, &[])).unwrap();
        // An id the module lacks: to the driver as it is, with every value.
        let unknown = [(0, Value::Bool(true)), (7, Value::I32(1))];
        let (code, left) = coder.code(0, &stage(&module, &reflection, &unknown)).unwrap();
        assert_eq!((&*code, left), (&module[..], &unknown[..]));
        // A module the specializer cannot read (the driver is the judge of it).
        let damaged = [0x0723_0203, 0x0001_0000, 0];
        let (code, left) = coder.code(1, &stage(&damaged, &reflection, &values)).unwrap();
        assert_eq!((&*code, left), (&damaged[..], &values[..]));
        // Analyzed once: the second time comes from the cache, same reason.
        coder.code(1, &stage(&damaged, &reflection, &values)).unwrap();
        assert_eq!(
            coder.counts(),
            SpecializationCounts {
                folded: 1,
                driver: 3,
                fallbacks: [(FallbackReason::UnknownSpecId, 1), (FallbackReason::Unanalyzable, 2)].into()
            }
        );
        assert_eq!(coder.counts().fallback_total(), 3);
    }

    #[test]
    fn without_ahead_every_stage_with_values_goes_to_the_driver_and_none_is_a_fall_back() {
        let module = doc_ubershader();
        let reflection = Reflection::new(ShaderStage::Fragment, "main");
        let coder = StageCoder::new(false);
        let values = [(0, Value::Bool(false))];
        for _ in 0..2 {
            let (code, left) = coder.code(0, &stage(&module, &reflection, &values)).unwrap();
            assert_eq!((&*code, left), (&module[..], &values[..]));
        }
        assert_eq!(coder.counts(), SpecializationCounts { folded: 0, driver: 2, fallbacks: BTreeMap::new() });
    }

    #[test]
    fn fallback_reasons_say_what_happened() {
        assert_eq!(FallbackReason::of(&SpecializeError::UnknownSpecId(3)), FallbackReason::UnknownSpecId);
        assert_eq!(
            FallbackReason::of(&SpecializeError::Malformed { offset: 5, reason: "x" }),
            FallbackReason::Unfoldable
        );
        for reason in [FallbackReason::Unanalyzable, FallbackReason::UnknownSpecId, FallbackReason::Unfoldable] {
            assert!(reason.to_string().contains("specializ") || reason.to_string().contains("module"), "{reason}");
        }
    }
}
