//! The reusable part: a module parsed once into instructions, definitions, functions and blocks.

use alloc::vec::Vec;

use smolv_format::spirv::{self, Decoration, Op};

use super::SpecializeError;
use crate::smolv::opcodes::result_layout;

pub(crate) const NO_DEF: u32 = u32::MAX;

/// The most words a module may have (4 GiB), so that every `u32` index fits with room.
pub(crate) const MAX_WORDS: usize = 1 << 30;

/// One instruction: where its words are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inst {
    pub(crate) start: u32,
    pub(crate) len: u32,
    pub(crate) opcode: u32,
}

/// A basic block: instruction indices of its label, merge instruction and terminator.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) label: u32,
    pub(crate) first: usize,
    pub(crate) merge: Option<usize>,
    pub(crate) terminator: usize,
}

/// A function: its `OpFunction`, parameters, blocks and `OpFunctionEnd`.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub(crate) begin: usize,
    pub(crate) blocks: Vec<Block>,
    pub(crate) end: usize,
}

/// Entry point to the specializer.
///
/// ```
/// use smolv_codec::specialize::{Specializer, Value};
/// # let ubershader = smolv_codec::specialize::doc_ubershader();
/// let analysis = Specializer::analyze(&ubershader)?;
/// let fast_path = analysis.specialize(&[(0, Value::Bool(false))])?;
/// assert!(fast_path.len() < ubershader.len());
/// # Ok::<(), smolv_codec::specialize::SpecializeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Specializer;

/// A module analyzed once, ready to be specialized many times.
///
/// ```
/// use smolv_codec::specialize::{Specializer, Value};
/// # let ubershader = smolv_codec::specialize::doc_ubershader();
/// let analysis = Specializer::analyze(&ubershader)?; // parsed once
/// for value in [true, false] {
///     let specialized = analysis.specialize(&[(0, Value::Bool(value))])?; // one pass each
///     assert!(specialized.len() < ubershader.len(), "the branch is resolved");
/// }
/// # Ok::<(), smolv_codec::specialize::SpecializeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Analysis {
    pub(crate) words: Vec<u32>,
    pub(crate) insts: Vec<Inst>,
    pub(crate) bound: u32,
    /// Instruction index defining each id, or [`NO_DEF`].
    pub(crate) def: Vec<u32>,
    pub(crate) functions: Vec<Function>,
    /// Index of the first instruction of the first function.
    pub(crate) first_function: usize,
    /// `(spec id, result id)` of every specialization constant.
    pub(crate) spec: Vec<(u32, u32)>,
}

/// The result id of the instruction `words`, if it has one.
pub(crate) fn result_of(words: &[u32]) -> Option<u32> {
    let (has_type, has_result) = result_layout(words[0] & 0xFFFF);
    has_result.then(|| words.get(1 + usize::from(has_type)).copied()).flatten()
}

/// Fewest words an instruction the specializer reads can have, checked once here.
fn minimum_words(opcode: u32) -> usize {
    match Op::from_u32(opcode) {
        Some(Op::Function) => 5,
        Some(Op::EntryPoint | Op::LoopMerge | Op::BranchConditional | Op::MemberDecorate) => 4,
        Some(Op::ExecutionMode | Op::Decorate | Op::SelectionMerge | Op::Switch | Op::Variable | Op::Phi) => 3,
        Some(op) if is_constant(op) || is_spec_constant(op) => 3,
        Some(Op::ExtInstImport | Op::Label | Op::Branch) => 2,
        _ => 1,
    }
}

fn is_terminator(opcode: u32) -> bool {
    matches!(
        Op::from_u32(opcode),
        Some(
            Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Kill
                | Op::Return
                | Op::ReturnValue
                | Op::Unreachable
                | Op::TerminateInvocation
                | Op::IgnoreIntersectionKHR
                | Op::TerminateRayKHR
                | Op::EmitMeshTasksEXT
        )
    )
}

/// `OpConstantTrue` to `OpConstantNull`: a constant with the value the module gives it.
pub(crate) fn is_constant(op: Op) -> bool {
    matches!(
        op,
        Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantSampler
            | Op::ConstantNull
    )
}

/// `OpSpecConstantTrue`, `OpSpecConstantFalse` and `OpSpecConstant`: a scalar a spec id may set.
pub(crate) fn is_spec_scalar(op: Op) -> bool {
    matches!(op, Op::SpecConstantTrue | Op::SpecConstantFalse | Op::SpecConstant)
}

/// A specialization constant: a spec scalar, `OpSpecConstantComposite` or `OpSpecConstantOp`.
pub(crate) fn is_spec_constant(op: Op) -> bool {
    is_spec_scalar(op) || matches!(op, Op::SpecConstantComposite | Op::SpecConstantOp)
}

impl Specializer {
    /// Parses `spirv` (native-order words) and records what specializing needs.
    ///
    /// ```
    /// use smolv_codec::specialize::{SpecializeError, Specializer};
    /// # let ubershader = smolv_codec::specialize::doc_ubershader();
    /// assert!(Specializer::analyze(&ubershader).is_ok());
    /// assert!(matches!(Specializer::analyze(&[1, 2, 3]), Err(SpecializeError::NotSpirv(_))));
    /// ```
    pub fn analyze(spirv: &[u32]) -> Result<Analysis, SpecializeError> {
        let words: Vec<u32> = match spirv.first() {
            Some(&spirv::MAGIC) => spirv.to_vec(),
            Some(&magic) if magic.swap_bytes() == spirv::MAGIC => spirv.iter().map(|w| w.swap_bytes()).collect(),
            _ => return Err(SpecializeError::NotSpirv("the magic number is missing")),
        };
        if words.len() < 5 {
            return Err(SpecializeError::NotSpirv("it is shorter than the header"));
        }
        if words.len() > MAX_WORDS {
            return Err(SpecializeError::TooLarge { words: words.len(), max: MAX_WORDS });
        }
        let bound = words[3];
        // Remapped modules use sparse ids; the bound is still capped before allocating.
        if bound as usize > words.len() * 4 + (1 << 20) {
            return Err(SpecializeError::Malformed {
                offset: 3,
                reason: "the id bound is larger than the module can use",
            });
        }
        let mut analysis = Analysis {
            words,
            insts: Vec::new(),
            bound,
            def: alloc::vec![NO_DEF; bound as usize],
            functions: Vec::new(),
            first_function: usize::MAX,
            spec: Vec::new(),
        };
        analysis.parse()?;
        Ok(analysis)
    }
}

impl Analysis {
    pub(crate) fn words_of(&self, index: usize) -> &[u32] {
        let inst = self.insts[index];
        &self.words[inst.start as usize..(inst.start + inst.len) as usize]
    }

    pub(crate) fn def_of(&self, id: u32) -> Option<usize> {
        self.def.get(id as usize).copied().filter(|&d| d != NO_DEF).map(|d| d as usize)
    }

    fn parse(&mut self) -> Result<(), SpecializeError> {
        let mut at = 5;
        let mut function: Option<Function> = None;
        let mut block: Option<(u32, usize, Option<usize>)> = None;
        let mut spec_ids: Vec<(u32, u32)> = Vec::new();
        while at < self.words.len() {
            let first = self.words[at];
            let (len, opcode) = spirv::split_first_word(first);
            let malformed = |reason| SpecializeError::Malformed { offset: at, reason };
            spirv::instruction_end(self.words.len(), at, first)
                .map_err(|_| malformed("an instruction's length is 0 or runs past the end"))?;
            if len < minimum_words(opcode) {
                return Err(malformed("an instruction is shorter than its opcode needs"));
            }
            let index = self.insts.len();
            // In range: the module has at most MAX_WORDS words (checked in analyze).
            let too_large = |_| SpecializeError::TooLarge { words: self.words.len(), max: MAX_WORDS };
            self.insts.push(Inst { start: u32::try_from(at).map_err(too_large)?, len: first >> 16, opcode });
            let (has_type, has_result) = result_layout(opcode);
            if has_result {
                let id = *self
                    .words
                    .get(at + 1 + usize::from(has_type))
                    .ok_or(malformed("an instruction is missing its result id"))?;
                let slot = self.def.get_mut(id as usize).ok_or(malformed("a result id is not below the id bound"))?;
                if *slot != NO_DEF {
                    // SPIR-V is SSA: a second definition would have its value written twice.
                    return Err(malformed("a result id is defined twice"));
                }
                *slot = u32::try_from(index).map_err(too_large)?;
            }
            match Op::from_u32(opcode) {
                Some(Op::Decorate) if len >= 4 && self.words[at + 2] == Decoration::SpecId as u32 => {
                    spec_ids.push((self.words[at + 3], self.words[at + 1]));
                }
                Some(Op::Function) => {
                    if function.is_some() {
                        return Err(malformed("OpFunction inside a function"));
                    }
                    self.first_function = self.first_function.min(index);
                    function = Some(Function { begin: index, blocks: Vec::new(), end: index });
                }
                Some(Op::Label) => {
                    if function.is_none() || block.is_some() {
                        return Err(malformed("OpLabel outside a function or block end"));
                    }
                    block = Some((self.words[at + 1], index, None));
                }
                Some(Op::LoopMerge | Op::SelectionMerge) => match &mut block {
                    Some((_, _, merge)) => *merge = Some(index),
                    None => return Err(malformed("a merge instruction outside a block")),
                },
                Some(Op::FunctionEnd) => {
                    let mut done = function.take().ok_or(malformed("OpFunctionEnd without OpFunction"))?;
                    if block.is_some() {
                        return Err(malformed("a block has no terminator"));
                    }
                    done.end = index;
                    self.functions.push(done);
                }
                _ if is_terminator(opcode) => {
                    let (label, first, merge) = block.take().ok_or(malformed("a terminator outside a block"))?;
                    if let Some(f) = &mut function {
                        f.blocks.push(Block { label, first, merge, terminator: index });
                    }
                }
                _ => {}
            }
            at += len;
        }
        if function.is_some() {
            return Err(SpecializeError::Malformed { offset: at, reason: "the last function has no OpFunctionEnd" });
        }
        if self.first_function == usize::MAX {
            self.first_function = self.insts.len();
        }
        for (spec_id, id) in spec_ids {
            if self.def_of(id).and_then(|d| Op::from_u32(self.insts[d].opcode)).is_some_and(is_spec_scalar) {
                self.spec.push((spec_id, id));
            }
        }
        self.spec.sort_unstable();
        Ok(())
    }

    /// The spec ids of the module's scalar specialization constants, sorted.
    ///
    /// ```
    /// use smolv_codec::specialize::Specializer;
    /// # let ubershader = smolv_codec::specialize::doc_ubershader();
    /// assert_eq!(Specializer::analyze(&ubershader)?.spec_ids(), [0]);
    /// # Ok::<(), smolv_codec::specialize::SpecializeError>(())
    /// ```
    pub fn spec_ids(&self) -> Vec<u32> {
        self.spec.iter().map(|&(spec_id, _)| spec_id).collect()
    }
}
