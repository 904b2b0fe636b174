//! Per-opcode facts of the SMOL-V wire format: whether a type and a result id follow the opcode word,
//! how many ids are stored as deltas, and whether the rest are varints.

use smolv_format::spirv::Op;

/// SPIR-V opcodes the codec treats specially.
pub(crate) mod op {
    pub(crate) const NAME: u32 = super::Op::Name as u32;
    pub(crate) const VECTOR_SHUFFLE_COMPACT: u32 = 13;
    pub(crate) const DECORATE: u32 = super::Op::Decorate as u32;
    pub(crate) const MEMBER_DECORATE: u32 = super::Op::MemberDecorate as u32;
    pub(crate) const VECTOR_SHUFFLE: u32 = super::Op::VectorShuffle as u32;
    pub(crate) const LOAD: u32 = super::Op::Load as u32;
    pub(crate) const ACCESS_CHAIN: u32 = super::Op::AccessChain as u32;
}

/// Opcodes known to encoding version 0 (up to and including `OpModuleProcessed`).
pub(crate) const OPS_KNOWN_V0: usize = 331;
/// Opcodes known to encoding version 1 (up to and including `OpGroupNonUniformQuadSwap`).
pub(crate) const OPS_KNOWN_V1: usize = 367;

/// The `Offset` member decoration, whose operand is delta-coded within a run.
pub(crate) const DECORATION_OFFSET: u32 = 35;

/// Operand layout of one opcode, in one byte: bits 0–2 the flags, 3–6 the id deltas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpLayout(u8);

const NONE: u8 = 0;
const RESULT: u8 = 1;
const TYPE: u8 = 2;
const VARINT_REST: u8 = 4;

/// Layout of opcodes the encoding version does not know: every operand raw.
const UNKNOWN: OpLayout = OpLayout::new(NONE, 0);

impl OpLayout {
    const fn new(flags: u8, id_deltas: u8) -> Self {
        Self(flags | id_deltas << 3)
    }

    /// Looks up `opcode` in the table of a version that knows `known_ops` opcodes.
    #[inline]
    pub(crate) const fn of(opcode: u32, known_ops: usize) -> Self {
        let index = opcode as usize;
        if index < known_ops { OP_LAYOUTS[index] } else { UNKNOWN }
    }

    /// A result id follows (after the type id), as a zigzag delta from the previous.
    #[inline]
    pub(crate) const fn has_result(self) -> bool {
        self.0 & RESULT != 0
    }

    /// A result type id follows the opcode word, stored as a plain varint.
    #[inline]
    pub(crate) const fn has_type(self) -> bool {
        self.0 & TYPE != 0
    }

    /// Remaining operands are varints rather than raw little-endian words.
    #[inline]
    pub(crate) const fn varint_rest(self) -> bool {
        self.0 & VARINT_REST != 0
    }

    /// How many operands after type and result are ids stored as deltas.
    #[inline]
    pub(crate) const fn id_deltas(self) -> usize {
        (self.0 >> 3) as usize
    }
}

/// Swaps frequent opcodes below 16, for one-byte length-and-opcode varints; its own inverse.
#[inline]
pub(crate) const fn swap_frequent(opcode: u32) -> u32 {
    match opcode {
        71 => 0, // Decorate <-> Nop
        0 => 71,
        61 => 1, // Load <-> Undef
        1 => 61,
        62 => 2, // Store <-> SourceContinued
        2 => 62,
        65 => 3, // AccessChain <-> Source
        3 => 65,
        79 => 4, // VectorShuffle <-> SourceExtension
        4 => 79,
        72 => 7, // MemberDecorate <-> String
        7 => 72,
        248 => 8, // Label <-> Line
        8 => 248,
        59 => 9, // Variable <-> (unassigned 9)
        9 => 59,
        133 => 10, // FMul <-> Extension
        10 => 133,
        129 => 11, // FAdd <-> ExtInstImport
        11 => 129,
        32 => 14, // TypePointer <-> MemoryModel
        14 => 32,
        127 => 15, // FNegate <-> EntryPoint
        15 => 127,
        other => other,
    }
}

/// The length every instruction of `opcode` has, which SMOL-V does not store.
#[inline]
pub(crate) const fn minimum_length(opcode: u32) -> u32 {
    match opcode {
        op::VECTOR_SHUFFLE | op::VECTOR_SHUFFLE_COMPACT => 5,
        op::DECORATE => 3,
        op::LOAD | op::ACCESS_CHAIN => 4,
        _ => 1,
    }
}

/// Opcode values below this are looked up in precomputed tables, the rest computed.
const TABLE_SIZE: usize = 512;

/// How one opcode is written, in one word (one table load): bits 0–15 [`OpCoding::mapped`],
/// 16–19 the minimum length, 20–26 the [`OpLayout`], 27 the compact shuffle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpCoding(u32);

const COMPACT_SHUFFLE: u32 = 1 << 27;

impl OpCoding {
    const fn from_fields(mapped: u32, min_len: u32, layout: OpLayout, compact: bool) -> Self {
        let compact = if compact { COMPACT_SHUFFLE } else { 0 };
        Self((mapped & 0xFFFF) | min_len << 16 | (layout.0 as u32) << 20 | compact)
    }

    /// How the encoder writes `opcode` (or the compact shuffle) in the current version.
    #[inline]
    pub(crate) fn for_encoding(opcode: u32) -> Self {
        ENCODING.get(opcode as usize).copied().unwrap_or_else(|| Self::encoding(opcode))
    }

    /// What the decoder makes of stored opcode value `stored`, given its version's table.
    #[inline]
    pub(crate) fn for_decoding(stored: u32, table: &DecodingTable) -> Self {
        table.codings.get(stored as usize).copied().unwrap_or_else(|| Self::decoding(stored, table.known_ops))
    }

    const fn encoding(opcode: u32) -> Self {
        Self::from_fields(swap_frequent(opcode), minimum_length(opcode), OpLayout::of(opcode, OPS_KNOWN_V1), false)
    }

    #[inline]
    pub(crate) const fn decoding(stored: u32, known_ops: usize) -> Self {
        let coded = swap_frequent(stored);
        let compact = coded == op::VECTOR_SHUFFLE_COMPACT;
        let opcode = if compact { op::VECTOR_SHUFFLE } else { coded };
        Self::from_fields(opcode, minimum_length(coded), OpLayout::of(opcode, known_ops), compact)
    }

    /// Encoding: the value stored in the stream; decoding: the SPIR-V opcode.
    #[inline]
    pub(crate) const fn mapped(self) -> u32 {
        self.0 & 0xFFFF
    }

    /// Word count that is always present and so not stored.
    #[inline]
    pub(crate) const fn min_len(self) -> u32 {
        self.0 >> 16 & 0xF
    }

    /// Operand layout.
    #[inline]
    pub(crate) const fn layout(self) -> OpLayout {
        OpLayout((self.0 >> 20 & 0x7F) as u8)
    }

    /// Whether the stream holds the compact vector shuffle pseudo-opcode.
    #[inline]
    pub(crate) const fn is_compact_shuffle(self) -> bool {
        self.0 & COMPACT_SHUFFLE != 0
    }
}

/// What a stored opcode value means: from a precomputed table (fast), or computed (smaller code).
pub(crate) trait Codings: Copy {
    /// Whether the decoder is built for size rather than speed (varints out of line).
    const COMPACT: bool = false;

    /// What the decoder makes of stored opcode value `stored`.
    fn coding(self, stored: u32) -> OpCoding;
}

impl Codings for &'static DecodingTable {
    #[inline]
    fn coding(self, stored: u32) -> OpCoding {
        OpCoding::for_decoding(stored, self)
    }
}

/// The codings of encoding version 1, computed rather than looked up.
#[cfg(feature = "std")]
#[derive(Clone, Copy)]
pub(crate) struct ComputedV1;

#[cfg(feature = "std")]
impl Codings for ComputedV1 {
    const COMPACT: bool = true;

    #[inline]
    fn coding(self, stored: u32) -> OpCoding {
        OpCoding::decoding(stored, OPS_KNOWN_V1)
    }
}

/// Decoding codings of one encoding version, indexed by stored opcode value.
pub(crate) struct DecodingTable {
    codings: [OpCoding; TABLE_SIZE],
    known_ops: usize,
}

impl DecodingTable {
    /// The table for encoding version `version` (0 or 1).
    pub(crate) fn for_version(version: u8) -> &'static Self {
        if version == 0 { &DECODING_V0 } else { &DECODING_V1 }
    }
}

static ENCODING: [OpCoding; TABLE_SIZE] = codings(None);
static DECODING_V0: DecodingTable = DecodingTable { codings: codings(Some(OPS_KNOWN_V0)), known_ops: OPS_KNOWN_V0 };
static DECODING_V1: DecodingTable = DecodingTable { codings: codings(Some(OPS_KNOWN_V1)), known_ops: OPS_KNOWN_V1 };

/// The codings of opcodes below [`TABLE_SIZE`]: decoding a version knowing `known_ops` opcodes, or encoding.
const fn codings(known_ops: Option<usize>) -> [OpCoding; TABLE_SIZE] {
    let mut table = [OpCoding(0); TABLE_SIZE];
    // Counting in u32, the opcode's type: indexes widen, nothing narrows.
    let mut op: u32 = 0;
    while (op as usize) < TABLE_SIZE {
        table[op as usize] = match known_ops {
            Some(known_ops) => OpCoding::decoding(op, known_ops),
            None => OpCoding::encoding(op),
        };
        op += 1;
    }
    table
}

/// Debug-only instructions dropped by [`EncodeOptions::strip_debug`](crate::EncodeOptions::strip_debug).
#[inline]
pub(crate) fn is_debug_info(opcode: u32) -> bool {
    // SourceContinued, Source, SourceExtension, Name, MemberName, String,
    // Line, NoLine, ModuleProcessed
    matches!(opcode, 2..=8 | 317 | 330)
}

/// Operand count after a member decoration's decoration; `None`: stored explicitly.
#[inline]
pub(crate) fn member_decoration_extra_operands(decoration: u32) -> Option<u32> {
    match decoration {
        // RelaxedPrecision, Block, BufferBlock, RowMajor, ColMajor
        0 | 2..=5 => Some(0),
        // Stream, Location, Component, Index, Binding, DescriptorSet, Offset,
        // XfbBuffer, XfbStride
        29..=37 => Some(1),
        _ => None,
    }
}

/// Ops whose id deltas were zigzag-coded already in the 2016-08-31 dialect.
#[inline]
pub(crate) fn zigzag_in_2016_dialect(opcode: u32) -> bool {
    // ControlBarrier, MemoryBarrier, LoopMerge, SelectionMerge, Branch,
    // BranchConditional, MemoryNamedBarrier
    matches!(opcode, 224 | 225 | 246 | 247 | 249 | 250 | 329)
}

/// How SMOL-V lays out each opcode's operands; rows past [`OPS_KNOWN_V0`] are version 1's.
const OP_LAYOUTS: [OpLayout; OPS_KNOWN_V1] = {
    use Op::*;
    // Runs of opcodes `(first, last, flags, id_deltas)` laid out alike; others have a type and a result.
    let runs = [
        (Nop, Nop, NONE, 0),
        (SourceContinued, SourceContinued, NONE, 0),
        (Source, Source, VARINT_REST, 0),
        (SourceExtension, String, NONE, 0),
        (Line, Line, VARINT_REST, 0),
        (Extension, Extension, NONE, 0),
        (ExtInstImport, ExtInstImport, RESULT, 0),
        (ExtInst, ExtInst, RESULT | TYPE | VARINT_REST, 0),
        (MemoryModel, Capability, VARINT_REST, 0),
        (TypeVoid, TypePipe, RESULT | VARINT_REST, 0),
        (TypeForwardPointer, TypeForwardPointer, VARINT_REST, 0),
        (ConstantComposite, ConstantComposite, RESULT | TYPE, 9),
        (ConstantSampler, ConstantSampler, RESULT | TYPE | VARINT_REST, 0),
        (SpecConstantComposite, SpecConstantComposite, RESULT | TYPE, 9),
        (Function, Function, RESULT | TYPE | VARINT_REST, 0),
        (FunctionEnd, FunctionEnd, NONE, 0),
        (FunctionCall, FunctionCall, RESULT | TYPE, 9),
        (Variable, Variable, RESULT | TYPE | VARINT_REST, 0),
        (Load, Load, RESULT | TYPE | VARINT_REST, 1),
        (Store, Store, VARINT_REST, 2),
        (CopyMemory, CopyMemorySized, NONE, 0),
        (AccessChain, AccessChain, RESULT | TYPE | VARINT_REST, 0),
        (Decorate, MemberDecorate, VARINT_REST, 0),
        (DecorationGroup, DecorationGroup, RESULT, 0),
        (GroupDecorate, GroupMemberDecorate, NONE, 0),
        (VectorExtractDynamic, VectorExtractDynamic, RESULT | TYPE | VARINT_REST, 1),
        (VectorInsertDynamic, VectorShuffle, RESULT | TYPE | VARINT_REST, 2),
        (CompositeConstruct, CompositeConstruct, RESULT | TYPE, 9),
        (CompositeExtract, CompositeExtract, RESULT | TYPE | VARINT_REST, 1),
        (CompositeInsert, CompositeInsert, RESULT | TYPE | VARINT_REST, 2),
        (CopyObject, CopyObject, RESULT | TYPE, 1),
        (ImageSampleImplicitLod, ImageSampleExplicitLod, RESULT | TYPE | VARINT_REST, 2),
        (ImageSampleDrefImplicitLod, ImageSampleDrefExplicitLod, RESULT | TYPE | VARINT_REST, 3),
        (ImageSampleProjImplicitLod, ImageSampleProjExplicitLod, RESULT | TYPE | VARINT_REST, 2),
        (ImageSampleProjDrefImplicitLod, ImageSampleProjDrefExplicitLod, RESULT | TYPE | VARINT_REST, 3),
        (ImageFetch, ImageFetch, RESULT | TYPE | VARINT_REST, 2),
        (ImageGather, ImageDrefGather, RESULT | TYPE | VARINT_REST, 3),
        (ImageRead, ImageRead, RESULT | TYPE | VARINT_REST, 2),
        (ImageWrite, ImageWrite, VARINT_REST, 3),
        (Image, ImageQueryOrder, RESULT | TYPE, 1),
        (ImageQuerySizeLod, ImageQuerySizeLod, RESULT | TYPE, 2),
        (ImageQuerySize, ImageQuerySize, RESULT | TYPE, 1),
        (ImageQueryLod, ImageQueryLod, RESULT | TYPE, 2),
        (ImageQueryLevels, ImageQuerySamples, RESULT | TYPE, 1),
        (ConvertFToU, GenericCastToPtr, RESULT | TYPE, 1),
        (GenericCastToPtrExplicit, GenericCastToPtrExplicit, RESULT | TYPE | VARINT_REST, 1),
        (Bitcast, Bitcast, RESULT | TYPE, 1),
        (SNegate, FNegate, RESULT | TYPE, 1),
        (IAdd, SMulExtended, RESULT | TYPE, 2),
        (Any, SignBitSet, RESULT | TYPE, 1),
        (LessOrGreater, LogicalAnd, RESULT | TYPE, 2),
        (LogicalNot, LogicalNot, RESULT | TYPE, 1),
        (Select, Select, RESULT | TYPE, 3),
        (IEqual, FUnordGreaterThanEqual, RESULT | TYPE, 2),
        (ShiftRightLogical, BitwiseAnd, RESULT | TYPE, 2),
        (Not, Not, RESULT | TYPE, 1),
        (BitFieldInsert, BitFieldInsert, RESULT | TYPE, 4),
        (BitFieldSExtract, BitFieldUExtract, RESULT | TYPE, 3),
        (BitReverse, BitCount, RESULT | TYPE, 1),
        (EmitVertex, EndStreamPrimitive, NONE, 0),
        (ControlBarrier, ControlBarrier, NONE, 3),
        (MemoryBarrier, MemoryBarrier, NONE, 2),
        (AtomicStore, AtomicStore, NONE, 0),
        (LoopMerge, LoopMerge, VARINT_REST, 2),
        (SelectionMerge, SelectionMerge, VARINT_REST, 1),
        (Label, Label, RESULT, 0),
        (Branch, Branch, NONE, 1),
        (BranchConditional, BranchConditional, VARINT_REST, 3),
        (Switch, LifetimeStop, NONE, 0),
        (GroupWaitEvents, GroupWaitEvents, NONE, 0),
        (CommitReadPipe, CommitWritePipe, NONE, 0),
        (GroupCommitReadPipe, GroupCommitWritePipe, NONE, 0),
        (RetainEvent, ReleaseEvent, NONE, 0),
        (SetUserEventStatus, CaptureEventProfilingInfo, NONE, 0),
        (ImageSparseSampleImplicitLod, ImageSparseSampleExplicitLod, RESULT | TYPE | VARINT_REST, 2),
        (ImageSparseSampleDrefImplicitLod, ImageSparseSampleDrefExplicitLod, RESULT | TYPE | VARINT_REST, 3),
        (ImageSparseSampleProjImplicitLod, ImageSparseSampleProjExplicitLod, RESULT | TYPE | VARINT_REST, 2),
        (ImageSparseSampleProjDrefImplicitLod, ImageSparseSampleProjDrefExplicitLod, RESULT | TYPE | VARINT_REST, 3),
        (ImageSparseFetch, ImageSparseFetch, RESULT | TYPE | VARINT_REST, 2),
        (ImageSparseGather, ImageSparseDrefGather, RESULT | TYPE | VARINT_REST, 3),
        (ImageSparseTexelsResident, ImageSparseTexelsResident, RESULT | TYPE, 1),
        (NoLine, NoLine, NONE, 0),
        (AtomicFlagClear, AtomicFlagClear, NONE, 0),
        (NamedBarrierInitialize, NamedBarrierInitialize, RESULT | TYPE | VARINT_REST, 0),
        (MemoryNamedBarrier, MemoryNamedBarrier, VARINT_REST, 2),
        (ExecutionModeId, DecorateId, VARINT_REST, 0),
        (GroupNonUniformElect, GroupNonUniformQuadSwap, RESULT | TYPE | VARINT_REST, 1),
    ];
    let mut table = [OpLayout::new(RESULT | TYPE, 0); OPS_KNOWN_V1];
    table[op::VECTOR_SHUFFLE_COMPACT as usize] = OpLayout::new(RESULT | TYPE | VARINT_REST, 2);
    let mut run = 0;
    while run < runs.len() {
        let (first, last, flags, id_deltas) = runs[run];
        let mut index = first as usize;
        while index <= last as usize {
            table[index] = OpLayout::new(flags, id_deltas);
            index += 1;
        }
        run += 1;
    }
    table
};

/// Whether `opcode` has a result type and a result id (as SPIR-V says, but for two debug opcodes).
pub(crate) fn result_layout(opcode: u32) -> (bool, bool) {
    match opcode {
        7 => (false, true),            // OpString
        330 => (false, false),         // OpModuleProcessed
        13 | 9 | 18 => (false, false), // not SPIR-V instructions
        _ => {
            let layout = OpLayout::of(opcode, OPS_KNOWN_V1);
            (layout.has_type(), layout.has_result())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as it was written out one opcode a row, before the runs.
    const OLD_LAYOUTS: [OpLayout; OPS_KNOWN_V1] = [
        OpLayout::new(NONE, 0),                        //   0 Nop
        OpLayout::new(RESULT | TYPE, 0),               //   1 Undef
        OpLayout::new(NONE, 0),                        //   2 SourceContinued
        OpLayout::new(VARINT_REST, 0),                 //   3 Source
        OpLayout::new(NONE, 0),                        //   4 SourceExtension
        OpLayout::new(NONE, 0),                        //   5 Name
        OpLayout::new(NONE, 0),                        //   6 MemberName
        OpLayout::new(NONE, 0),                        //   7 String
        OpLayout::new(VARINT_REST, 0),                 //   8 Line
        OpLayout::new(RESULT | TYPE, 0),               //   9 (unassigned 9)
        OpLayout::new(NONE, 0),                        //  10 Extension
        OpLayout::new(RESULT, 0),                      //  11 ExtInstImport
        OpLayout::new(RESULT | TYPE | VARINT_REST, 0), //  12 ExtInst
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  13 VectorShuffleCompact
        OpLayout::new(VARINT_REST, 0),                 //  14 MemoryModel
        OpLayout::new(VARINT_REST, 0),                 //  15 EntryPoint
        OpLayout::new(VARINT_REST, 0),                 //  16 ExecutionMode
        OpLayout::new(VARINT_REST, 0),                 //  17 Capability
        OpLayout::new(RESULT | TYPE, 0),               //  18 (unassigned 18)
        OpLayout::new(RESULT | VARINT_REST, 0),        //  19 TypeVoid
        OpLayout::new(RESULT | VARINT_REST, 0),        //  20 TypeBool
        OpLayout::new(RESULT | VARINT_REST, 0),        //  21 TypeInt
        OpLayout::new(RESULT | VARINT_REST, 0),        //  22 TypeFloat
        OpLayout::new(RESULT | VARINT_REST, 0),        //  23 TypeVector
        OpLayout::new(RESULT | VARINT_REST, 0),        //  24 TypeMatrix
        OpLayout::new(RESULT | VARINT_REST, 0),        //  25 TypeImage
        OpLayout::new(RESULT | VARINT_REST, 0),        //  26 TypeSampler
        OpLayout::new(RESULT | VARINT_REST, 0),        //  27 TypeSampledImage
        OpLayout::new(RESULT | VARINT_REST, 0),        //  28 TypeArray
        OpLayout::new(RESULT | VARINT_REST, 0),        //  29 TypeRuntimeArray
        OpLayout::new(RESULT | VARINT_REST, 0),        //  30 TypeStruct
        OpLayout::new(RESULT | VARINT_REST, 0),        //  31 TypeOpaque
        OpLayout::new(RESULT | VARINT_REST, 0),        //  32 TypePointer
        OpLayout::new(RESULT | VARINT_REST, 0),        //  33 TypeFunction
        OpLayout::new(RESULT | VARINT_REST, 0),        //  34 TypeEvent
        OpLayout::new(RESULT | VARINT_REST, 0),        //  35 TypeDeviceEvent
        OpLayout::new(RESULT | VARINT_REST, 0),        //  36 TypeReserveId
        OpLayout::new(RESULT | VARINT_REST, 0),        //  37 TypeQueue
        OpLayout::new(RESULT | VARINT_REST, 0),        //  38 TypePipe
        OpLayout::new(VARINT_REST, 0),                 //  39 TypeForwardPointer
        OpLayout::new(RESULT | TYPE, 0),               //  40 (unassigned 40)
        OpLayout::new(RESULT | TYPE, 0),               //  41 ConstantTrue
        OpLayout::new(RESULT | TYPE, 0),               //  42 ConstantFalse
        OpLayout::new(RESULT | TYPE, 0),               //  43 Constant
        OpLayout::new(RESULT | TYPE, 9),               //  44 ConstantComposite
        OpLayout::new(RESULT | TYPE | VARINT_REST, 0), //  45 ConstantSampler
        OpLayout::new(RESULT | TYPE, 0),               //  46 ConstantNull
        OpLayout::new(RESULT | TYPE, 0),               //  47 (unassigned 47)
        OpLayout::new(RESULT | TYPE, 0),               //  48 SpecConstantTrue
        OpLayout::new(RESULT | TYPE, 0),               //  49 SpecConstantFalse
        OpLayout::new(RESULT | TYPE, 0),               //  50 SpecConstant
        OpLayout::new(RESULT | TYPE, 9),               //  51 SpecConstantComposite
        OpLayout::new(RESULT | TYPE, 0),               //  52 SpecConstantOp
        OpLayout::new(RESULT | TYPE, 0),               //  53 (unassigned 53)
        OpLayout::new(RESULT | TYPE | VARINT_REST, 0), //  54 Function
        OpLayout::new(RESULT | TYPE, 0),               //  55 FunctionParameter
        OpLayout::new(NONE, 0),                        //  56 FunctionEnd
        OpLayout::new(RESULT | TYPE, 9),               //  57 FunctionCall
        OpLayout::new(RESULT | TYPE, 0),               //  58 (unassigned 58)
        OpLayout::new(RESULT | TYPE | VARINT_REST, 0), //  59 Variable
        OpLayout::new(RESULT | TYPE, 0),               //  60 ImageTexelPointer
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), //  61 Load
        OpLayout::new(VARINT_REST, 2),                 //  62 Store
        OpLayout::new(NONE, 0),                        //  63 CopyMemory
        OpLayout::new(NONE, 0),                        //  64 CopyMemorySized
        OpLayout::new(RESULT | TYPE | VARINT_REST, 0), //  65 AccessChain
        OpLayout::new(RESULT | TYPE, 0),               //  66 InBoundsAccessChain
        OpLayout::new(RESULT | TYPE, 0),               //  67 PtrAccessChain
        OpLayout::new(RESULT | TYPE, 0),               //  68 ArrayLength
        OpLayout::new(RESULT | TYPE, 0),               //  69 GenericPtrMemSemantics
        OpLayout::new(RESULT | TYPE, 0),               //  70 InBoundsPtrAccessChain
        OpLayout::new(VARINT_REST, 0),                 //  71 Decorate
        OpLayout::new(VARINT_REST, 0),                 //  72 MemberDecorate
        OpLayout::new(RESULT, 0),                      //  73 DecorationGroup
        OpLayout::new(NONE, 0),                        //  74 GroupDecorate
        OpLayout::new(NONE, 0),                        //  75 GroupMemberDecorate
        OpLayout::new(RESULT | TYPE, 0),               //  76 (unassigned 76)
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), //  77 VectorExtractDynamic
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  78 VectorInsertDynamic
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  79 VectorShuffle
        OpLayout::new(RESULT | TYPE, 9),               //  80 CompositeConstruct
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), //  81 CompositeExtract
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  82 CompositeInsert
        OpLayout::new(RESULT | TYPE, 1),               //  83 CopyObject
        OpLayout::new(RESULT | TYPE, 0),               //  84 Transpose
        OpLayout::new(RESULT | TYPE, 0),               //  85 (unassigned 85)
        OpLayout::new(RESULT | TYPE, 0),               //  86 SampledImage
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  87 ImageSampleImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  88 ImageSampleExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), //  89 ImageSampleDrefImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), //  90 ImageSampleDrefExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  91 ImageSampleProjImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  92 ImageSampleProjExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), //  93 ImageSampleProjDrefImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), //  94 ImageSampleProjDrefExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  95 ImageFetch
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), //  96 ImageGather
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), //  97 ImageDrefGather
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), //  98 ImageRead
        OpLayout::new(VARINT_REST, 3),                 //  99 ImageWrite
        OpLayout::new(RESULT | TYPE, 1),               // 100 Image
        OpLayout::new(RESULT | TYPE, 1),               // 101 ImageQueryFormat
        OpLayout::new(RESULT | TYPE, 1),               // 102 ImageQueryOrder
        OpLayout::new(RESULT | TYPE, 2),               // 103 ImageQuerySizeLod
        OpLayout::new(RESULT | TYPE, 1),               // 104 ImageQuerySize
        OpLayout::new(RESULT | TYPE, 2),               // 105 ImageQueryLod
        OpLayout::new(RESULT | TYPE, 1),               // 106 ImageQueryLevels
        OpLayout::new(RESULT | TYPE, 1),               // 107 ImageQuerySamples
        OpLayout::new(RESULT | TYPE, 0),               // 108 (unassigned 108)
        OpLayout::new(RESULT | TYPE, 1),               // 109 ConvertFToU
        OpLayout::new(RESULT | TYPE, 1),               // 110 ConvertFToS
        OpLayout::new(RESULT | TYPE, 1),               // 111 ConvertSToF
        OpLayout::new(RESULT | TYPE, 1),               // 112 ConvertUToF
        OpLayout::new(RESULT | TYPE, 1),               // 113 UConvert
        OpLayout::new(RESULT | TYPE, 1),               // 114 SConvert
        OpLayout::new(RESULT | TYPE, 1),               // 115 FConvert
        OpLayout::new(RESULT | TYPE, 1),               // 116 QuantizeToF16
        OpLayout::new(RESULT | TYPE, 1),               // 117 ConvertPtrToU
        OpLayout::new(RESULT | TYPE, 1),               // 118 SatConvertSToU
        OpLayout::new(RESULT | TYPE, 1),               // 119 SatConvertUToS
        OpLayout::new(RESULT | TYPE, 1),               // 120 ConvertUToPtr
        OpLayout::new(RESULT | TYPE, 1),               // 121 PtrCastToGeneric
        OpLayout::new(RESULT | TYPE, 1),               // 122 GenericCastToPtr
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 123 GenericCastToPtrExplicit
        OpLayout::new(RESULT | TYPE, 1),               // 124 Bitcast
        OpLayout::new(RESULT | TYPE, 0),               // 125 (unassigned 125)
        OpLayout::new(RESULT | TYPE, 1),               // 126 SNegate
        OpLayout::new(RESULT | TYPE, 1),               // 127 FNegate
        OpLayout::new(RESULT | TYPE, 2),               // 128 IAdd
        OpLayout::new(RESULT | TYPE, 2),               // 129 FAdd
        OpLayout::new(RESULT | TYPE, 2),               // 130 ISub
        OpLayout::new(RESULT | TYPE, 2),               // 131 FSub
        OpLayout::new(RESULT | TYPE, 2),               // 132 IMul
        OpLayout::new(RESULT | TYPE, 2),               // 133 FMul
        OpLayout::new(RESULT | TYPE, 2),               // 134 UDiv
        OpLayout::new(RESULT | TYPE, 2),               // 135 SDiv
        OpLayout::new(RESULT | TYPE, 2),               // 136 FDiv
        OpLayout::new(RESULT | TYPE, 2),               // 137 UMod
        OpLayout::new(RESULT | TYPE, 2),               // 138 SRem
        OpLayout::new(RESULT | TYPE, 2),               // 139 SMod
        OpLayout::new(RESULT | TYPE, 2),               // 140 FRem
        OpLayout::new(RESULT | TYPE, 2),               // 141 FMod
        OpLayout::new(RESULT | TYPE, 2),               // 142 VectorTimesScalar
        OpLayout::new(RESULT | TYPE, 2),               // 143 MatrixTimesScalar
        OpLayout::new(RESULT | TYPE, 2),               // 144 VectorTimesMatrix
        OpLayout::new(RESULT | TYPE, 2),               // 145 MatrixTimesVector
        OpLayout::new(RESULT | TYPE, 2),               // 146 MatrixTimesMatrix
        OpLayout::new(RESULT | TYPE, 2),               // 147 OuterProduct
        OpLayout::new(RESULT | TYPE, 2),               // 148 Dot
        OpLayout::new(RESULT | TYPE, 2),               // 149 IAddCarry
        OpLayout::new(RESULT | TYPE, 2),               // 150 ISubBorrow
        OpLayout::new(RESULT | TYPE, 2),               // 151 UMulExtended
        OpLayout::new(RESULT | TYPE, 2),               // 152 SMulExtended
        OpLayout::new(RESULT | TYPE, 0),               // 153 (unassigned 153)
        OpLayout::new(RESULT | TYPE, 1),               // 154 Any
        OpLayout::new(RESULT | TYPE, 1),               // 155 All
        OpLayout::new(RESULT | TYPE, 1),               // 156 IsNan
        OpLayout::new(RESULT | TYPE, 1),               // 157 IsInf
        OpLayout::new(RESULT | TYPE, 1),               // 158 IsFinite
        OpLayout::new(RESULT | TYPE, 1),               // 159 IsNormal
        OpLayout::new(RESULT | TYPE, 1),               // 160 SignBitSet
        OpLayout::new(RESULT | TYPE, 2),               // 161 LessOrGreater
        OpLayout::new(RESULT | TYPE, 2),               // 162 Ordered
        OpLayout::new(RESULT | TYPE, 2),               // 163 Unordered
        OpLayout::new(RESULT | TYPE, 2),               // 164 LogicalEqual
        OpLayout::new(RESULT | TYPE, 2),               // 165 LogicalNotEqual
        OpLayout::new(RESULT | TYPE, 2),               // 166 LogicalOr
        OpLayout::new(RESULT | TYPE, 2),               // 167 LogicalAnd
        OpLayout::new(RESULT | TYPE, 1),               // 168 LogicalNot
        OpLayout::new(RESULT | TYPE, 3),               // 169 Select
        OpLayout::new(RESULT | TYPE, 2),               // 170 IEqual
        OpLayout::new(RESULT | TYPE, 2),               // 171 INotEqual
        OpLayout::new(RESULT | TYPE, 2),               // 172 UGreaterThan
        OpLayout::new(RESULT | TYPE, 2),               // 173 SGreaterThan
        OpLayout::new(RESULT | TYPE, 2),               // 174 UGreaterThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 175 SGreaterThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 176 ULessThan
        OpLayout::new(RESULT | TYPE, 2),               // 177 SLessThan
        OpLayout::new(RESULT | TYPE, 2),               // 178 ULessThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 179 SLessThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 180 FOrdEqual
        OpLayout::new(RESULT | TYPE, 2),               // 181 FUnordEqual
        OpLayout::new(RESULT | TYPE, 2),               // 182 FOrdNotEqual
        OpLayout::new(RESULT | TYPE, 2),               // 183 FUnordNotEqual
        OpLayout::new(RESULT | TYPE, 2),               // 184 FOrdLessThan
        OpLayout::new(RESULT | TYPE, 2),               // 185 FUnordLessThan
        OpLayout::new(RESULT | TYPE, 2),               // 186 FOrdGreaterThan
        OpLayout::new(RESULT | TYPE, 2),               // 187 FUnordGreaterThan
        OpLayout::new(RESULT | TYPE, 2),               // 188 FOrdLessThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 189 FUnordLessThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 190 FOrdGreaterThanEqual
        OpLayout::new(RESULT | TYPE, 2),               // 191 FUnordGreaterThanEqual
        OpLayout::new(RESULT | TYPE, 0),               // 192 (unassigned 192)
        OpLayout::new(RESULT | TYPE, 0),               // 193 (unassigned 193)
        OpLayout::new(RESULT | TYPE, 2),               // 194 ShiftRightLogical
        OpLayout::new(RESULT | TYPE, 2),               // 195 ShiftRightArithmetic
        OpLayout::new(RESULT | TYPE, 2),               // 196 ShiftLeftLogical
        OpLayout::new(RESULT | TYPE, 2),               // 197 BitwiseOr
        OpLayout::new(RESULT | TYPE, 2),               // 198 BitwiseXor
        OpLayout::new(RESULT | TYPE, 2),               // 199 BitwiseAnd
        OpLayout::new(RESULT | TYPE, 1),               // 200 Not
        OpLayout::new(RESULT | TYPE, 4),               // 201 BitFieldInsert
        OpLayout::new(RESULT | TYPE, 3),               // 202 BitFieldSExtract
        OpLayout::new(RESULT | TYPE, 3),               // 203 BitFieldUExtract
        OpLayout::new(RESULT | TYPE, 1),               // 204 BitReverse
        OpLayout::new(RESULT | TYPE, 1),               // 205 BitCount
        OpLayout::new(RESULT | TYPE, 0),               // 206 (unassigned 206)
        OpLayout::new(RESULT | TYPE, 0),               // 207 DPdx
        OpLayout::new(RESULT | TYPE, 0),               // 208 DPdy
        OpLayout::new(RESULT | TYPE, 0),               // 209 Fwidth
        OpLayout::new(RESULT | TYPE, 0),               // 210 DPdxFine
        OpLayout::new(RESULT | TYPE, 0),               // 211 DPdyFine
        OpLayout::new(RESULT | TYPE, 0),               // 212 FwidthFine
        OpLayout::new(RESULT | TYPE, 0),               // 213 DPdxCoarse
        OpLayout::new(RESULT | TYPE, 0),               // 214 DPdyCoarse
        OpLayout::new(RESULT | TYPE, 0),               // 215 FwidthCoarse
        OpLayout::new(RESULT | TYPE, 0),               // 216 (unassigned 216)
        OpLayout::new(RESULT | TYPE, 0),               // 217 (unassigned 217)
        OpLayout::new(NONE, 0),                        // 218 EmitVertex
        OpLayout::new(NONE, 0),                        // 219 EndPrimitive
        OpLayout::new(NONE, 0),                        // 220 EmitStreamVertex
        OpLayout::new(NONE, 0),                        // 221 EndStreamPrimitive
        OpLayout::new(RESULT | TYPE, 0),               // 222 (unassigned 222)
        OpLayout::new(RESULT | TYPE, 0),               // 223 (unassigned 223)
        OpLayout::new(NONE, 3),                        // 224 ControlBarrier
        OpLayout::new(NONE, 2),                        // 225 MemoryBarrier
        OpLayout::new(RESULT | TYPE, 0),               // 226 (unassigned 226)
        OpLayout::new(RESULT | TYPE, 0),               // 227 AtomicLoad
        OpLayout::new(NONE, 0),                        // 228 AtomicStore
        OpLayout::new(RESULT | TYPE, 0),               // 229 AtomicExchange
        OpLayout::new(RESULT | TYPE, 0),               // 230 AtomicCompareExchange
        OpLayout::new(RESULT | TYPE, 0),               // 231 AtomicCompareExchangeWeak
        OpLayout::new(RESULT | TYPE, 0),               // 232 AtomicIIncrement
        OpLayout::new(RESULT | TYPE, 0),               // 233 AtomicIDecrement
        OpLayout::new(RESULT | TYPE, 0),               // 234 AtomicIAdd
        OpLayout::new(RESULT | TYPE, 0),               // 235 AtomicISub
        OpLayout::new(RESULT | TYPE, 0),               // 236 AtomicSMin
        OpLayout::new(RESULT | TYPE, 0),               // 237 AtomicUMin
        OpLayout::new(RESULT | TYPE, 0),               // 238 AtomicSMax
        OpLayout::new(RESULT | TYPE, 0),               // 239 AtomicUMax
        OpLayout::new(RESULT | TYPE, 0),               // 240 AtomicAnd
        OpLayout::new(RESULT | TYPE, 0),               // 241 AtomicOr
        OpLayout::new(RESULT | TYPE, 0),               // 242 AtomicXor
        OpLayout::new(RESULT | TYPE, 0),               // 243 (unassigned 243)
        OpLayout::new(RESULT | TYPE, 0),               // 244 (unassigned 244)
        OpLayout::new(RESULT | TYPE, 0),               // 245 Phi
        OpLayout::new(VARINT_REST, 2),                 // 246 LoopMerge
        OpLayout::new(VARINT_REST, 1),                 // 247 SelectionMerge
        OpLayout::new(RESULT, 0),                      // 248 Label
        OpLayout::new(NONE, 1),                        // 249 Branch
        OpLayout::new(VARINT_REST, 3),                 // 250 BranchConditional
        OpLayout::new(NONE, 0),                        // 251 Switch
        OpLayout::new(NONE, 0),                        // 252 Kill
        OpLayout::new(NONE, 0),                        // 253 Return
        OpLayout::new(NONE, 0),                        // 254 ReturnValue
        OpLayout::new(NONE, 0),                        // 255 Unreachable
        OpLayout::new(NONE, 0),                        // 256 LifetimeStart
        OpLayout::new(NONE, 0),                        // 257 LifetimeStop
        OpLayout::new(RESULT | TYPE, 0),               // 258 (unassigned 258)
        OpLayout::new(RESULT | TYPE, 0),               // 259 GroupAsyncCopy
        OpLayout::new(NONE, 0),                        // 260 GroupWaitEvents
        OpLayout::new(RESULT | TYPE, 0),               // 261 GroupAll
        OpLayout::new(RESULT | TYPE, 0),               // 262 GroupAny
        OpLayout::new(RESULT | TYPE, 0),               // 263 GroupBroadcast
        OpLayout::new(RESULT | TYPE, 0),               // 264 GroupIAdd
        OpLayout::new(RESULT | TYPE, 0),               // 265 GroupFAdd
        OpLayout::new(RESULT | TYPE, 0),               // 266 GroupFMin
        OpLayout::new(RESULT | TYPE, 0),               // 267 GroupUMin
        OpLayout::new(RESULT | TYPE, 0),               // 268 GroupSMin
        OpLayout::new(RESULT | TYPE, 0),               // 269 GroupFMax
        OpLayout::new(RESULT | TYPE, 0),               // 270 GroupUMax
        OpLayout::new(RESULT | TYPE, 0),               // 271 GroupSMax
        OpLayout::new(RESULT | TYPE, 0),               // 272 (unassigned 272)
        OpLayout::new(RESULT | TYPE, 0),               // 273 (unassigned 273)
        OpLayout::new(RESULT | TYPE, 0),               // 274 ReadPipe
        OpLayout::new(RESULT | TYPE, 0),               // 275 WritePipe
        OpLayout::new(RESULT | TYPE, 0),               // 276 ReservedReadPipe
        OpLayout::new(RESULT | TYPE, 0),               // 277 ReservedWritePipe
        OpLayout::new(RESULT | TYPE, 0),               // 278 ReserveReadPipePackets
        OpLayout::new(RESULT | TYPE, 0),               // 279 ReserveWritePipePackets
        OpLayout::new(NONE, 0),                        // 280 CommitReadPipe
        OpLayout::new(NONE, 0),                        // 281 CommitWritePipe
        OpLayout::new(RESULT | TYPE, 0),               // 282 IsValidReserveId
        OpLayout::new(RESULT | TYPE, 0),               // 283 GetNumPipePackets
        OpLayout::new(RESULT | TYPE, 0),               // 284 GetMaxPipePackets
        OpLayout::new(RESULT | TYPE, 0),               // 285 GroupReserveReadPipePackets
        OpLayout::new(RESULT | TYPE, 0),               // 286 GroupReserveWritePipePackets
        OpLayout::new(NONE, 0),                        // 287 GroupCommitReadPipe
        OpLayout::new(NONE, 0),                        // 288 GroupCommitWritePipe
        OpLayout::new(RESULT | TYPE, 0),               // 289 (unassigned 289)
        OpLayout::new(RESULT | TYPE, 0),               // 290 (unassigned 290)
        OpLayout::new(RESULT | TYPE, 0),               // 291 EnqueueMarker
        OpLayout::new(RESULT | TYPE, 0),               // 292 EnqueueKernel
        OpLayout::new(RESULT | TYPE, 0),               // 293 GetKernelNDrangeSubGroupCount
        OpLayout::new(RESULT | TYPE, 0),               // 294 GetKernelNDrangeMaxSubGroupSize
        OpLayout::new(RESULT | TYPE, 0),               // 295 GetKernelWorkGroupSize
        OpLayout::new(RESULT | TYPE, 0),               // 296 GetKernelPreferredWorkGroupSizeMultiple
        OpLayout::new(NONE, 0),                        // 297 RetainEvent
        OpLayout::new(NONE, 0),                        // 298 ReleaseEvent
        OpLayout::new(RESULT | TYPE, 0),               // 299 CreateUserEvent
        OpLayout::new(RESULT | TYPE, 0),               // 300 IsValidEvent
        OpLayout::new(NONE, 0),                        // 301 SetUserEventStatus
        OpLayout::new(NONE, 0),                        // 302 CaptureEventProfilingInfo
        OpLayout::new(RESULT | TYPE, 0),               // 303 GetDefaultQueue
        OpLayout::new(RESULT | TYPE, 0),               // 304 BuildNDRange
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), // 305 ImageSparseSampleImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), // 306 ImageSparseSampleExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), // 307 ImageSparseSampleDrefImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), // 308 ImageSparseSampleDrefExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), // 309 ImageSparseSampleProjImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), // 310 ImageSparseSampleProjExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), // 311 ImageSparseSampleProjDrefImplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), // 312 ImageSparseSampleProjDrefExplicitLod
        OpLayout::new(RESULT | TYPE | VARINT_REST, 2), // 313 ImageSparseFetch
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), // 314 ImageSparseGather
        OpLayout::new(RESULT | TYPE | VARINT_REST, 3), // 315 ImageSparseDrefGather
        OpLayout::new(RESULT | TYPE, 1),               // 316 ImageSparseTexelsResident
        OpLayout::new(NONE, 0),                        // 317 NoLine
        OpLayout::new(RESULT | TYPE, 0),               // 318 AtomicFlagTestAndSet
        OpLayout::new(NONE, 0),                        // 319 AtomicFlagClear
        OpLayout::new(RESULT | TYPE, 0),               // 320 ImageSparseRead
        OpLayout::new(RESULT | TYPE, 0),               // 321 SizeOf
        OpLayout::new(RESULT | TYPE, 0),               // 322 TypePipeStorage
        OpLayout::new(RESULT | TYPE, 0),               // 323 ConstantPipeStorage
        OpLayout::new(RESULT | TYPE, 0),               // 324 CreatePipeFromPipeStorage
        OpLayout::new(RESULT | TYPE, 0),               // 325 GetKernelLocalSizeForSubgroupCount
        OpLayout::new(RESULT | TYPE, 0),               // 326 GetKernelMaxNumSubgroups
        OpLayout::new(RESULT | TYPE, 0),               // 327 TypeNamedBarrier
        OpLayout::new(RESULT | TYPE | VARINT_REST, 0), // 328 NamedBarrierInitialize
        OpLayout::new(VARINT_REST, 2),                 // 329 MemoryNamedBarrier
        OpLayout::new(RESULT | TYPE, 0),               // 330 ModuleProcessed
        OpLayout::new(VARINT_REST, 0),                 // 331 ExecutionModeId
        OpLayout::new(VARINT_REST, 0),                 // 332 DecorateId
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 333 GroupNonUniformElect
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 334 GroupNonUniformAll
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 335 GroupNonUniformAny
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 336 GroupNonUniformAllEqual
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 337 GroupNonUniformBroadcast
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 338 GroupNonUniformBroadcastFirst
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 339 GroupNonUniformBallot
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 340 GroupNonUniformInverseBallot
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 341 GroupNonUniformBallotBitExtract
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 342 GroupNonUniformBallotBitCount
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 343 GroupNonUniformBallotFindLSB
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 344 GroupNonUniformBallotFindMSB
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 345 GroupNonUniformShuffle
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 346 GroupNonUniformShuffleXor
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 347 GroupNonUniformShuffleUp
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 348 GroupNonUniformShuffleDown
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 349 GroupNonUniformIAdd
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 350 GroupNonUniformFAdd
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 351 GroupNonUniformIMul
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 352 GroupNonUniformFMul
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 353 GroupNonUniformSMin
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 354 GroupNonUniformUMin
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 355 GroupNonUniformFMin
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 356 GroupNonUniformSMax
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 357 GroupNonUniformUMax
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 358 GroupNonUniformFMax
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 359 GroupNonUniformBitwiseAnd
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 360 GroupNonUniformBitwiseOr
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 361 GroupNonUniformBitwiseXor
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 362 GroupNonUniformLogicalAnd
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 363 GroupNonUniformLogicalOr
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 364 GroupNonUniformLogicalXor
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 365 GroupNonUniformQuadBroadcast
        OpLayout::new(RESULT | TYPE | VARINT_REST, 1), // 366 GroupNonUniformQuadSwap
    ];

    #[test]
    fn the_runs_build_the_table_written_out_per_opcode() {
        assert_eq!(OP_LAYOUTS, OLD_LAYOUTS);
    }
}
