//! One specialization: freeze, fold, resolve branches, prune and merge blocks, remove dead code, write.
//! Ids never change: a folded result id is redefined as a module-level constant.

use alloc::vec;
use alloc::vec::Vec;

use smolv_format::spirv::{Decoration, Op, StorageClass, literal_string, literal_string_words};

use super::analysis::{Analysis, Block, is_constant, is_spec_constant, is_spec_scalar, result_of};
use super::fold::{Known, Scalar, eval, scalar_type};
use super::{SpecializeError, Value, value};
use crate::smolv::opcodes::result_layout;

fn instruction(op: Op, operands: &[u32]) -> Vec<u32> {
    // A few words made here, or (some of) one input instruction's operands.
    debug_assert!(operands.len() < 0xFFFF);
    #[allow(clippy::cast_possible_truncation)] // below 0xFFFF, as above
    let count = (operands.len() + 1) as u32;
    let mut words = Vec::with_capacity(operands.len() + 1);
    words.push((count << 16) | op as u32);
    words.extend_from_slice(operands);
    words
}

/// Whether `opcode` is one of `first..=last`, in the grammar's numbering.
fn in_range(opcode: u32, first: Op, last: Op) -> bool {
    (first as u32..=last as u32).contains(&opcode)
}

/// Opcodes without side effects besides `OpUndef`, `OpPhi`, `OpLoad` and `OpExtInst`, as ranges:
/// removable when nothing uses their result.
const PURE: [(Op, Op); 9] = [
    (Op::AccessChain, Op::InBoundsPtrAccessChain),
    (Op::VectorExtractDynamic, Op::Transpose),
    (Op::SampledImage, Op::ImageRead),
    (Op::Image, Op::ImageQuerySamples),
    (Op::ConvertFToU, Op::Bitcast),
    (Op::SNegate, Op::BitCount),
    (Op::DPdx, Op::FwidthCoarse),
    (Op::ImageSparseSampleImplicitLod, Op::ImageSparseTexelsResident),
    (Op::GroupNonUniformElect, Op::GroupNonUniformQuadSwap),
];

/// One instruction of the output: kept as it was, or rewritten.
enum Out {
    Keep(usize),
    New(Vec<u32>),
}

struct Specialization<'a> {
    analysis: &'a Analysis,
    known: Vec<Option<Known>>,
    /// Ids whose definitions become constants.
    frozen: Vec<bool>,
    /// Ids folded inside functions, in the order they were found.
    folded_locals: Vec<u32>,
    glsl_std: Option<u32>,
}

impl Analysis {
    /// The module, specialized: constants in `values` take those values, the rest their defaults.
    ///
    /// ```
    /// use smolv_codec::specialize::{SpecializeError, Specializer, Value};
    /// # let ubershader = smolv_codec::specialize::doc_ubershader();
    /// let analysis = Specializer::analyze(&ubershader)?;
    /// let specialized = analysis.specialize(&[(0, false.into())])?;
    /// assert_eq!(Specializer::analyze(&specialized)?.spec_ids(), Vec::<u32>::new(), "folded away");
    /// assert_eq!(analysis.specialize(&[(7, Value::U32(1))]), Err(SpecializeError::UnknownSpecId(7)));
    /// # Ok::<(), smolv_codec::specialize::SpecializeError>(())
    /// ```
    pub fn specialize(&self, values: &[(u32, Value)]) -> Result<Vec<u32>, SpecializeError> {
        let bound = self.bound as usize;
        let mut s = Specialization {
            analysis: self,
            known: vec![None; bound],
            frozen: vec![false; bound],
            folded_locals: Vec::new(),
            glsl_std: None,
        };
        let overrides = s.overrides(values)?;
        s.fold_globals(&overrides);
        s.check_array_lengths()?;
        for function in &self.functions {
            s.fold_function(function.begin, function.end);
        }
        let out = s.rewrite();
        Ok(s.finish(out))
    }
}

impl Specialization<'_> {
    /// `(result id, value)` for each given spec id, checked against its type.
    fn overrides(&self, values: &[(u32, Value)]) -> Result<Vec<(u32, Value)>, SpecializeError> {
        let a = self.analysis;
        values
            .iter()
            .map(|&(spec_id, value)| {
                let index = a
                    .spec
                    .binary_search_by_key(&spec_id, |&(s, _)| s)
                    .map_err(|_| SpecializeError::UnknownSpecId(spec_id))?;
                let id = a.spec[index].1;
                let ty = a.def_of(id).map(|d| a.words_of(d)[1]).and_then(|t| scalar_type(a, t));
                // The rule the Vulkan layer's driver path applies too.
                match ty {
                    Some(ty) => value::fit(ty, value)
                        .map(|bits| (id, Value::Bits(bits)))
                        .ok_or(SpecializeError::WrongType(spec_id, value::describe(ty))),
                    None => Err(SpecializeError::WrongType(spec_id, "of a type this specializer cannot set")),
                }
            })
            .collect()
    }

    fn scalar(&self, id: u32) -> Option<(Scalar, u64)> {
        match self.known.get(id as usize)? {
            Some(Known::Scalar(ty, bits)) => Some((*ty, *bits)),
            _ => None,
        }
    }

    fn literal(words: &[u32], ty: Scalar) -> u64 {
        let low = u64::from(words.first().copied().unwrap_or(0));
        if ty.literal_words() == 2 { low | u64::from(words.get(1).copied().unwrap_or(0)) << 32 } else { low }
    }

    fn fold_globals(&mut self, overrides: &[(u32, Value)]) {
        let a = self.analysis;
        for index in 0..a.first_function {
            let words = a.words_of(index);
            let op = Op::from_u32(a.insts[index].opcode);
            if op == Some(Op::ExtInstImport) && words.len() >= 3 && literal_string(&words[2..]) == "GLSL.std.450" {
                self.glsl_std = Some(words[1]);
            }
            let (Some(&ty), Some(&id)) = (words.get(1), words.get(2)) else { continue };
            let scalar = scalar_type(a, ty);
            let Some(op) = op else { continue };
            let value = match op {
                Op::ConstantTrue | Op::SpecConstantTrue => Some(Known::Scalar(Scalar::Bool, 1)),
                Op::ConstantFalse | Op::SpecConstantFalse => Some(Known::Scalar(Scalar::Bool, 0)),
                Op::Constant | Op::SpecConstant => scalar.map(|t| Known::Scalar(t, Self::literal(&words[3..], t))),
                Op::ConstantNull => scalar.map(|t| Known::Scalar(t, 0)),
                Op::ConstantComposite | Op::SpecConstantComposite => Some(Known::Composite(index)),
                Op::SpecConstantOp => self
                    .fold_operation(scalar, &words[3..])
                    .map(|bits| Known::Scalar(scalar.unwrap_or(Scalar::Bool), bits)),
                _ => None,
            };
            let value = match overrides.iter().find(|(o, _)| *o == id) {
                Some((_, v)) if is_spec_scalar(op) => scalar.map(|t| Known::Scalar(t, v.bits() & mask_for(t))),
                _ => value,
            };
            let freeze = match op {
                Op::SpecConstantComposite => words[3..].iter().all(|&c| self.frozen_or_constant(c)),
                Op::SpecConstantOp => value.is_some(),
                _ => is_spec_scalar(op),
            };
            // Only a constant's value: `words[2]` of other instructions is not a result (`OpTypeFloat %t 32`).
            if let (Some(slot), Some(value)) = (self.known.get_mut(id as usize), value) {
                *slot = Some(value);
            }
            if freeze {
                self.frozen[id as usize] = true;
            }
        }
    }

    /// An error for an array type whose length, as folded, is 0 or less.
    fn check_array_lengths(&self) -> Result<(), SpecializeError> {
        let a = self.analysis;
        for index in 0..a.first_function {
            let words = a.words_of(index);
            if a.insts[index].opcode != Op::TypeArray as u32 {
                continue;
            }
            let (Some(&array), Some(&length)) = (words.get(1), words.get(3)) else { continue };
            let Some((ty, bits)) = self.scalar(length) else { continue };
            // The length as its type reads it; an unsigned one is 0 or positive.
            let folded = match ty {
                Scalar::Int { width, signed: true } if (1..64).contains(&width) => {
                    let shift = 64 - width;
                    (bits << shift).cast_signed() >> shift
                }
                Scalar::Int { signed: true, .. } => bits.cast_signed(),
                Scalar::Int { signed: false, .. } if bits == 0 => 0,
                Scalar::Int { .. } | Scalar::Bool | Scalar::Float { .. } => continue,
            };
            if folded < 1 {
                return Err(SpecializeError::ArrayLength { array, length: folded });
            }
        }
        Ok(())
    }

    fn frozen_or_constant(&self, id: u32) -> bool {
        let a = self.analysis;
        self.is_frozen(id) || a.def_of(id).and_then(|d| Op::from_u32(a.insts[d].opcode)).is_some_and(is_constant)
    }

    /// Folds `opcode operands...`, as `OpSpecConstantOp` or a function instruction holds them.
    fn fold_operation(&self, result: Option<Scalar>, op_and_operands: &[u32]) -> Option<u64> {
        let result = result?;
        let (&opcode, operands) = op_and_operands.split_first()?;
        if opcode == Op::CompositeExtract as u32 {
            // From a known composite.
            let (&composite, indices) = operands.split_first()?;
            let mut id = composite;
            for &index in indices {
                match self.known.get(id as usize)? {
                    Some(Known::Composite(inst)) => id = *self.analysis.words_of(*inst).get(3 + index as usize)?,
                    _ => return None,
                }
            }
            return self.scalar(id).map(|(_, bits)| bits);
        }
        if operands.len() > 3 {
            return None;
        }
        let mut args = [(Scalar::Bool, 0u64); 3];
        for (slot, &id) in args.iter_mut().zip(operands) {
            *slot = self.scalar(id)?;
        }
        eval(opcode, result, &args[..operands.len()])
    }

    fn fold_function(&mut self, begin: usize, end: usize) {
        let a = self.analysis;
        for index in begin + 1..end {
            let words = a.words_of(index);
            let opcode = a.insts[index].opcode;
            // OpCompositeConstruct of constants is a constant composite.
            if opcode == Op::CompositeConstruct as u32
                && words.len() >= 4
                && self.constituents_match(words[1], words.len() - 3)
                && words[3..].iter().all(|&c| self.known_constant(c))
            {
                self.fold_local(words[2], Known::Composite(index));
                continue;
            }
            let foldable =
                in_range(opcode, Op::CompositeExtract, Op::CopyObject) || in_range(opcode, Op::UConvert, Op::Not);
            if words.len() < 4 || !foldable {
                continue;
            }
            let (ty, id) = (words[1], words[2]);
            let Some(scalar) = scalar_type(a, ty) else { continue };
            let op_and_operands: Vec<u32> = core::iter::once(opcode).chain(words[3..].iter().copied()).collect();
            if let Some(bits) = self.fold_operation(Some(scalar), &op_and_operands) {
                self.fold_local(id, Known::Scalar(scalar, bits));
            }
        }
    }

    /// Records `id`, defined in a function, as folded to the constant `value`.
    fn fold_local(&mut self, id: u32, value: Known) {
        self.known[id as usize] = Some(value);
        self.frozen[id as usize] = true;
        self.folded_locals.push(id);
    }

    /// Whether a constant composite of type `ty` may have `count` constituents (it cannot concatenate vectors).
    fn constituents_match(&self, ty: u32, count: usize) -> bool {
        let a = self.analysis;
        match a.def_of(ty).map(|d| a.words_of(d)) {
            Some(words) if words[0] & 0xFFFF == Op::TypeVector as u32 => {
                words.get(3).copied() == u32::try_from(count).ok()
            }
            Some(_) => true,
            None => false,
        }
    }

    /// Whether `id` is (now) a module-level constant with a known value.
    fn known_constant(&self, id: u32) -> bool {
        self.known.get(id as usize).is_some_and(Option::is_some) && self.frozen_or_constant(id)
    }

    /// The words of a constant defining `id` with its known value.
    fn constant_words(&self, ty: u32, id: u32, original: Option<&[u32]>) -> Option<Vec<u32>> {
        match self.known.get(id as usize)? {
            Some(Known::Scalar(Scalar::Bool, bits)) => {
                Some(instruction(if *bits != 0 { Op::ConstantTrue } else { Op::ConstantFalse }, &[ty, id]))
            }
            Some(Known::Scalar(t, bits)) if t.literal_words() == 2 => {
                Some(instruction(Op::Constant, &[ty, id, low_word(*bits), (*bits >> 32) as u32]))
            }
            Some(Known::Scalar(_, bits)) => Some(instruction(Op::Constant, &[ty, id, low_word(*bits)])),
            Some(Known::Composite(inst)) => {
                Some(instruction(Op::ConstantComposite, &self.analysis.words_of(*inst)[1..]))
            }
            None => original.map(|w| instruction(Op::Constant, &w[1..])),
        }
    }

    /// Builds the output instruction list.
    fn rewrite(&self) -> Vec<Out> {
        let a = self.analysis;
        let mut out = Vec::with_capacity(a.insts.len() + self.folded_locals.len());
        for index in 0..a.first_function {
            let words = a.words_of(index);
            let op = Op::from_u32(a.insts[index].opcode);
            if op == Some(Op::Decorate)
                && words.get(2) == Some(&(Decoration::SpecId as u32))
                && self.is_frozen(words[1])
            {
                continue; // SpecId on what is now a constant
            }
            let constant = match (op, words.get(2)) {
                (Some(op), Some(&id)) if is_spec_constant(op) && self.is_frozen(id) => {
                    self.constant_words(words[1], id, (op == Op::SpecConstant).then_some(words))
                }
                _ => None,
            };
            out.push(constant.map_or(Out::Keep(index), Out::New));
        }
        for &id in &self.folded_locals {
            if let Some(def) = a.def_of(id)
                && let Some(constant) = self.constant_words(a.words_of(def)[1], id, None)
            {
                out.push(Out::New(constant));
            }
        }
        // Block index of each label, per function: a table keeps large functions linear.
        let mut block_of = vec![u32::MAX; a.bound as usize];
        for function in &a.functions {
            for (i, block) in function.blocks.iter().enumerate() {
                // Fewer blocks than words (capped by Specializer::analyze): never saturates.
                block_of[block.label as usize] = u32::try_from(i).unwrap_or(u32::MAX);
            }
            self.rewrite_function(function.begin, &function.blocks, function.end, &block_of, &mut out);
            for block in &function.blocks {
                block_of[block.label as usize] = u32::MAX;
            }
        }
        out
    }

    fn is_frozen(&self, id: u32) -> bool {
        self.frozen.get(id as usize).copied().unwrap_or(false)
    }

    /// Where a block's (possibly folded) terminator goes.
    fn successors(&self, block: &Block) -> (Option<u32>, Vec<u32>) {
        let a = self.analysis;
        let words = a.words_of(block.terminator);
        let selection = block.merge.is_some_and(|m| a.insts[m].opcode == Op::SelectionMerge as u32);
        match Op::from_u32(a.insts[block.terminator].opcode) {
            Some(Op::Branch) => (None, vec![words[1]]),
            Some(Op::BranchConditional) if words.len() >= 4 => match self.scalar(words[1]) {
                Some((Scalar::Bool, bits)) if selection => {
                    let target = if bits != 0 { words[2] } else { words[3] };
                    (Some(target), vec![target])
                }
                _ => (None, vec![words[2], words[3]]),
            },
            Some(Op::Switch) if words.len() >= 3 => {
                let selector_type = a.def_of(words[1]).and_then(|d| a.words_of(d).get(1).copied());
                let width = selector_type.and_then(|t| scalar_type(a, t)).map_or(1, |t| t.literal_words());
                let case_type = Scalar::Int { width: if width == 2 { 64 } else { 32 }, signed: false };
                let cases: Vec<(u64, u32)> = words[3..]
                    .chunks_exact(width + 1)
                    .map(|c| (Self::literal(&c[..width], case_type), c[width]))
                    .collect();
                match self.scalar(words[1]) {
                    Some((_, bits)) if selection => {
                        let target = cases.iter().find(|(v, _)| *v == bits).map_or(words[2], |(_, l)| *l);
                        (Some(target), vec![target])
                    }
                    _ => (None, core::iter::once(words[2]).chain(cases.iter().map(|(_, l)| *l)).collect()),
                }
            }
            _ => (None, Vec::new()),
        }
    }

    fn rewrite_function(&self, begin: usize, blocks: &[Block], end: usize, block_of: &[u32], out: &mut Vec<Out>) {
        let a = self.analysis;
        let position = |label: u32| block_of.get(label as usize).filter(|&&b| b != u32::MAX).map(|&b| b as usize);
        let mut edges: Vec<(Option<u32>, Vec<u32>)> = blocks.iter().map(|b| self.successors(b)).collect();
        let reach = |edges: &[(Option<u32>, Vec<u32>)]| {
            let mut reachable = vec![false; blocks.len()];
            let mut stack = vec![0usize];
            while let Some(b) = stack.pop() {
                if blocks.is_empty() || reachable[b] {
                    continue;
                }
                reachable[b] = true;
                stack.extend(edges[b].1.iter().filter_map(|&l| position(l)));
            }
            reachable
        };
        let mut reachable = reach(&edges);
        // A folded header whose merge block is entered from several places keeps its merge, and its
        // branch the merge block as the never-taken target.
        let mut keeps_merge = vec![false; blocks.len()];
        for (b, block) in blocks.iter().enumerate() {
            let (Some(live), Some(merge)) = (edges[b].0, block.merge) else { continue };
            let merge_label = a.words_of(merge)[1];
            let entries = edges
                .iter()
                .enumerate()
                .filter(|&(p, (_, targets))| p != b && reachable[p] && targets.contains(&merge_label))
                .count();
            if entries > 1 && reachable[b] && merge_label != live {
                keeps_merge[b] = true;
                edges[b] = (None, vec![live, merge_label]);
            }
        }
        if keeps_merge.iter().any(|&k| k) {
            reachable = reach(&edges);
        }
        // Merge and continue targets of surviving merge instructions must exist.
        let mut structural = vec![false; blocks.len()];
        for (b, block) in blocks.iter().enumerate() {
            let Some(merge) = block.merge.filter(|_| reachable[b] && edges[b].0.is_none()) else { continue };
            let words = a.words_of(merge);
            let targets = if a.insts[merge].opcode == Op::LoopMerge as u32 { &words[1..3] } else { &words[1..2] };
            for &t in targets {
                if let Some(p) = position(t) {
                    structural[p] = true;
                }
            }
        }
        let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
        for (b, (_, targets)) in edges.iter().enumerate() {
            if reachable[b] {
                for &t in targets {
                    if let Some(p) = position(t)
                        && !predecessors[p].contains(&b)
                    {
                        predecessors[p].push(b);
                    }
                }
            }
        }
        // B joins A when A is B's only predecessor and B A's only successor, and no structure forbids it.
        let mut joins_into: Vec<Option<usize>> = vec![None; blocks.len()];
        for (b, preds) in predecessors.iter().enumerate() {
            let [p] = preds.as_slice() else { continue };
            let header = blocks[*p].merge.is_some() && edges[*p].0.is_none();
            if b != 0 && *p != b && !structural[b] && !header && edges[*p].1 == [blocks[b].label] && reachable[b] {
                joins_into[b] = Some(*p);
            }
        }
        // The block each block's instructions end up in.
        let head_of = |mut b: usize| {
            while let Some(p) = joins_into[b] {
                b = p;
            }
            b
        };

        out.push(Out::Keep(begin));
        let first_block = blocks.first().map_or(end, |b| b.first);
        out.extend((begin + 1..first_block).map(Out::Keep));
        for (b, block) in blocks.iter().enumerate() {
            if joins_into[b].is_some() {
                continue;
            }
            if !reachable[b] {
                if structural[b] {
                    out.push(Out::New(instruction(Op::Label, &[block.label])));
                    out.push(Out::New(instruction(Op::Unreachable, &[])));
                }
                continue;
            }
            out.push(Out::Keep(block.first));
            let mut current = b;
            loop {
                let this = &blocks[current];
                // A phi's parent survives if it still branches here, named by the block it ended up in.
                let parent = |label: u32| {
                    let from = position(label)?;
                    predecessors[current].contains(&from).then(|| blocks[head_of(from)].label)
                };
                self.emit_body(this, current != b, &parent, out);
                let next =
                    edges[current].1.first().and_then(|&l| position(l)).filter(|&n| joins_into[n] == Some(current));
                match next {
                    Some(n) => current = n,
                    None => {
                        self.emit_terminator(this, &edges[current], keeps_merge[current], out);
                        break;
                    }
                }
            }
        }
        out.push(Out::Keep(end));
    }

    /// A block's instructions between label and merge/terminator, folded ones dropped and phis pruned.
    fn emit_body(&self, block: &Block, joined: bool, parent: &dyn Fn(u32) -> Option<u32>, out: &mut Vec<Out>) {
        let a = self.analysis;
        let stop = block.merge.unwrap_or(block.terminator);
        for index in block.first + 1..stop {
            let words = a.words_of(index);
            let opcode = a.insts[index].opcode;
            if let Some(id) = result_of(words)
                && self.is_frozen(id)
            {
                continue;
            }
            if opcode != Op::Phi as u32 || words.len() < 3 {
                out.push(Out::Keep(index));
                continue;
            }
            let pairs: Vec<(u32, u32)> =
                words[3..].chunks_exact(2).filter_map(|pair| parent(pair[1]).map(|label| (pair[0], label))).collect();
            if joined {
                if let Some(&(value, _)) = pairs.first() {
                    out.push(Out::New(instruction(Op::CopyObject, &[words[1], words[2], value])));
                }
                continue;
            }
            let operands: Vec<u32> =
                [words[1], words[2]].into_iter().chain(pairs.iter().flat_map(|&(v, l)| [v, l])).collect();
            out.push(Out::New(instruction(Op::Phi, &operands)));
        }
    }

    fn emit_terminator(&self, block: &Block, edge: &(Option<u32>, Vec<u32>), keeps_merge: bool, out: &mut Vec<Out>) {
        if let Some(target) = edge.0 {
            out.push(Out::New(instruction(Op::Branch, &[target])));
            return;
        }
        out.extend(block.merge.map(Out::Keep));
        if !keeps_merge {
            out.push(Out::Keep(block.terminator));
            return;
        }
        // The live target, with the merge block as the other, never-taken way out.
        let words = self.analysis.words_of(block.terminator);
        let (live, merge) = (edge.1[0], edge.1[1]);
        let terminator = match Op::from_u32(words[0] & 0xFFFF) {
            Some(Op::BranchConditional) => {
                let (true_target, false_target) = if words[2] == live { (live, merge) } else { (merge, live) };
                instruction(Op::BranchConditional, &[words[1], true_target, false_target])
            }
            _ => instruction(Op::Switch, &[words[1], live]),
        };
        out.push(Out::New(terminator));
    }

    fn words<'o>(&'o self, out: &'o Out) -> &'o [u32] {
        match out {
            Out::Keep(index) => self.analysis.words_of(*index),
            Out::New(words) => words,
        }
    }

    fn is_pure(&self, words: &[u32]) -> bool {
        let opcode = words[0] & 0xFFFF;
        match Op::from_u32(opcode) {
            Some(Op::Load) => words.get(4).is_none_or(|access| access & 1 == 0), // not volatile
            Some(Op::ExtInst) => self.glsl_std.is_some_and(|set| words.get(3) == Some(&set)),
            Some(Op::Undef | Op::Phi) => true,
            _ => PURE.iter().any(|&(first, last)| in_range(opcode, first, last)),
        }
    }

    /// Removes instructions nothing uses, then writes the module.
    fn finish(&self, out: Vec<Out>) -> Vec<u32> {
        let a = self.analysis;
        let bound = a.bound as usize;
        let mut def_at = vec![u32::MAX; bound];
        let mut uses = vec![0u32; bound];
        let mut entry_functions = Vec::new();
        // Built-ins (a WorkgroupSize constant, say) matter without any use.
        let mut builtin = vec![false; bound];
        let mut function_ranges: Vec<(usize, usize)> = Vec::new();
        let mut function_start = None;
        let first_function_out =
            out.iter().position(|o| self.words(o)[0] & 0xFFFF == Op::Function as u32).unwrap_or(out.len());
        for (i, o) in out.iter().enumerate() {
            let words = self.words(o);
            if let Some(id) = result_of(words)
                && let Some(slot) = def_at.get_mut(id as usize)
            {
                // Fits (capped by Specializer::analyze); u32::MAX would only keep it.
                *slot = u32::try_from(i).unwrap_or(u32::MAX);
            }
            match Op::from_u32(words[0] & 0xFFFF) {
                Some(Op::Decorate) if words.len() > 2 && words[2] == Decoration::BuiltIn as u32 => {
                    if let Some(flag) = builtin.get_mut(words[1] as usize) {
                        *flag = true;
                    }
                }
                Some(Op::EntryPoint) if words.len() > 2 => entry_functions.push(words[2]),
                Some(Op::Function) => function_start = Some(i),
                Some(Op::FunctionEnd) => function_ranges.extend(function_start.take().map(|s| (s, i))),
                _ => {}
            }
            for_each_use(words, |id| {
                if let Some(count) = uses.get_mut(id as usize) {
                    *count += 1;
                }
            });
        }
        let removable = |i: usize, words: &[u32]| {
            let opcode = words[0] & 0xFFFF;
            if result_of(words).is_some_and(|id| builtin.get(id as usize).copied().unwrap_or(false)) {
                return false;
            }
            let op = Op::from_u32(opcode);
            if i < first_function_out {
                let private = [StorageClass::Workgroup as u32, StorageClass::Private as u32];
                in_range(opcode, Op::TypeVoid, Op::TypePipe)
                    || op.is_some_and(|op| is_constant(op) || is_spec_constant(op))
                    || op == Some(Op::Variable) && words.get(3).is_some_and(|class| private.contains(class))
            } else {
                op == Some(Op::Function) && !entry_functions.contains(&words[2]) || self.is_pure(words)
            }
        };
        let mut removed = vec![false; out.len()];
        let mut work: Vec<usize> = (0..out.len())
            .filter(|&i| {
                let words = self.words(&out[i]);
                result_of(words).is_some_and(|id| uses[id as usize] == 0) && removable(i, words)
            })
            .collect();
        while let Some(i) = work.pop() {
            if removed[i] {
                continue;
            }
            let range = function_ranges.iter().find(|&&(s, _)| s == i).map_or(i..i + 1, |&(s, e)| s..e + 1);
            for r in range {
                if removed[r] {
                    continue;
                }
                removed[r] = true;
                for_each_use(self.words(&out[r]), |id| {
                    let Some(count) = uses.get_mut(id as usize) else { return };
                    *count = count.saturating_sub(1);
                    if *count == 0 {
                        let def = def_at[id as usize];
                        if def != u32::MAX
                            && !removed[def as usize]
                            && removable(def as usize, self.words(&out[def as usize]))
                        {
                            work.push(def as usize);
                        }
                    }
                });
            }
        }
        let is_gone = |id: u32| {
            let def = def_at.get(id as usize).copied().unwrap_or(u32::MAX);
            def != u32::MAX && removed[def as usize]
        };
        let mut module = a.words[..5].to_vec();
        for (i, o) in out.iter().enumerate() {
            if removed[i] {
                continue;
            }
            let words = self.words(o);
            match Op::from_u32(words[0] & 0xFFFF) {
                Some(
                    Op::Name
                    | Op::MemberName
                    | Op::Decorate
                    | Op::MemberDecorate
                    | Op::DecorateId
                    | Op::DecorateString
                    | Op::MemberDecorateString
                    | Op::ExecutionMode,
                ) if words.len() > 1 && is_gone(words[1]) => {}
                Some(Op::EntryPoint) => {
                    let name_end = 3 + literal_string_words(&words[3..]);
                    let kept: Vec<u32> =
                        words[name_end.min(words.len())..].iter().copied().filter(|&id| !is_gone(id)).collect();
                    module.extend(instruction(
                        Op::EntryPoint,
                        &[&words[1..name_end.min(words.len())], &kept[..]].concat(),
                    ));
                }
                _ => module.extend_from_slice(words),
            }
        }
        module
    }
}

/// The low 32 bits of a literal: its first word.
fn low_word(bits: u64) -> u32 {
    (bits & 0xFFFF_FFFF) as u32
}

fn mask_for(t: Scalar) -> u64 {
    match t {
        Scalar::Bool => 1,
        Scalar::Int { width, .. } | Scalar::Float { width } if width >= 64 => u64::MAX,
        Scalar::Int { width, .. } | Scalar::Float { width } => (1u64 << width) - 1,
    }
}

/// Calls `f` for every word that may be an id the instruction uses (annotations use none, entry points
/// only their function; a literal taken for an id only keeps too much alive).
fn for_each_use(words: &[u32], mut f: impl FnMut(u32)) {
    let opcode = words[0] & 0xFFFF;
    match Op::from_u32(opcode) {
        Some(
            Op::Name
            | Op::MemberName
            | Op::Decorate
            | Op::MemberDecorate
            | Op::DecorateString
            | Op::MemberDecorateString
            | Op::ExecutionMode
            | Op::String
            | Op::Line
            | Op::Source
            | Op::SourceContinued
            | Op::SourceExtension
            | Op::ModuleProcessed,
        ) => {}
        Some(Op::EntryPoint) => words.get(2).copied().into_iter().for_each(f),
        Some(Op::DecorateId) => words.iter().skip(3).copied().for_each(f),
        _ => {
            let (has_type, has_result) = result_layout(opcode);
            let result_at = if has_result { 1 + usize::from(has_type) } else { usize::MAX };
            words.iter().enumerate().skip(1).filter(|&(i, _)| i != result_at).for_each(|(_, &w)| f(w));
        }
    }
}
