//! Precompiled SPIR-V (`.spv`, `.spirv`): checked, then optimized like a compiled module.

use smolv_codec::{EncodeError, EncodeOptions};
use smolv_format::reflect::Reflection;
use smolv_format::spirv::{self, Op};

use super::{Compiled, CompiledModule};
use crate::error::Diagnostic;
use crate::source::Job;

/// The highest `SourceLanguage` SPIRV-Tools 2023.1 knows (WGSL).
const LAST_LANGUAGE_KNOWN_TO_OLD_TOOLS: u32 = 10;
const UNKNOWN_LANGUAGE: u32 = 0;

/// Rewrites `OpSource` languages newer than SPIRV-Tools 2023.1 knows (Slang is 11) to Unknown.
pub(super) fn patch_source_language(spirv: &mut [u32]) {
    let newer: Vec<usize> = spirv::instructions(spirv)
        .until_damage()
        .filter(|i| i.op() == Some(Op::Source) && i.words.len() >= 3 && i.operand(0) > LAST_LANGUAGE_KNOWN_TO_OLD_TOOLS)
        .map(|i| i.offset + 1)
        .collect();
    newer.into_iter().for_each(|at| spirv[at] = UNKNOWN_LANGUAGE);
}

/// Takes one precompiled module, as its first `OpEntryPoint` names it.
pub(super) fn compile(job: &Job, bytes: &[u8]) -> Result<Compiled, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    let mut spirv = spirv::words_from_bytes(bytes).map_err(|e| fail(e.to_string()))?;
    // A corrupt module fails here, not the whole set when packing encodes it.
    smolv_codec::encode(&spirv, &EncodeOptions::new()).map_err(|error| match error {
        EncodeError::ZeroLengthInstruction { .. }
        | EncodeError::TruncatedInstruction { .. }
        | EncodeError::MalformedInstruction { .. } => fail(format!(
            "cannot read the SPIR-V module: {error}; rebuild it from its source, or move it out of the shader tree"
        )),
        _ => fail(error.to_string()),
    })?;
    patch_source_language(&mut spirv);
    let Reflection { stage, entry_point, .. } = Reflection::from_spirv(&spirv)
        .map_err(|_| fail("the SPIR-V module has no OpEntryPoint of a Vulkan stage".to_owned()))?;
    Ok(Compiled::of(vec![CompiledModule::new(job.name.clone(), stage, entry_point, spirv)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OP_SOURCE: u32 = Op::Source as u32;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn words(bytes: &[u8]) -> Result<Vec<u32>, String> {
        spirv::words_from_bytes(bytes).map_err(|e| e.to_string())
    }

    #[test]
    fn either_byte_order_reads_as_the_same_words() {
        let module = smolv_format::doc_example_module();
        let big_endian: Vec<u8> = module.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(words(&bytes(&module)).unwrap(), module);
        assert_eq!(words(&big_endian).unwrap(), module);
    }

    #[test]
    fn bad_magic_short_files_and_odd_lengths_are_errors() {
        let module = bytes(&smolv_format::doc_example_module());
        assert!(words(&module[..module.len() - 1]).unwrap_err().contains("whole number of 32-bit words"));
        assert!(words(b"#version 450\n\0\0\0").unwrap_err().contains("magic number"));
        assert!(words(&module[..8]).unwrap_err().contains("header"));
        assert!(words(&[]).unwrap_err().contains("empty"));
    }

    fn job(dir: &std::path::Path) -> Job {
        Job::for_test("fill.spv", dir.join("fill.spv"), crate::options::Language::Spirv)
    }

    #[test]
    fn stage_and_entry_point_come_from_the_module() {
        let dir = tempfile::tempdir().unwrap();
        let job = job(dir.path());
        let compiled = compile(&job, &bytes(&smolv_format::doc_example_module())).unwrap();
        let module = &compiled.modules[0];
        assert_eq!((module.name.as_str(), module.stage), ("fill.spv", smolv_format::reflect::ShaderStage::Compute));
        assert_eq!(module.entry_point, "main");
        let no_entry: Vec<u32> = smolv_format::doc_example_module()[..5].to_vec();
        let errors = compile(&job, &bytes(&no_entry)).unwrap_err();
        assert!(errors[0].message.contains("no OpEntryPoint"), "{}", errors[0]);
    }

    /// Khronos' Vulkan-Samples ships `.spv` files like this one: whole
    /// words and a good header, then an instruction of length zero. Packing
    /// would fail on it for the whole set; here it fails its own file.
    #[test]
    fn a_corrupt_instruction_stream_fails_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut corrupt = smolv_format::doc_example_module();
        let last = corrupt.len() - 1;
        corrupt[last] = 0;
        let errors = compile(&job(dir.path()), &bytes(&corrupt)).unwrap_err();
        assert_eq!(errors[0].path, dir.path().join("fill.spv"));
        assert!(
            errors[0].message.contains(&format!("cannot read the SPIR-V module: instruction at word {last}")),
            "{}",
            errors[0]
        );
        assert!(errors[0].message.contains("word count of 0"), "{}", errors[0]);
        assert!(
            errors[0].message.ends_with("rebuild it from its source, or move it out of the shader tree"),
            "{}",
            errors[0]
        );
        // A version the encoder does not take says what to do already.
        let mut future = smolv_format::doc_example_module();
        future[1] = 0x0001_0700;
        let errors = compile(&job(dir.path()), &bytes(&future)).unwrap_err();
        assert!(errors[0].message.starts_with("SPIR-V version word 0x00010700"), "{}", errors[0]);
        assert!(!errors[0].message.contains("cannot read"), "{}", errors[0]);
    }

    #[test]
    fn slang_s_source_language_becomes_unknown() {
        // Header, then OpSource Slang 1 (3 words), then OpSource GLSL 450.
        let mut spirv = vec![0x0723_0203, 0x0001_0500, 0, 10, 0, (3 << 16) | OP_SOURCE, 11, 1, (3 << 16) | 3, 2, 450];
        patch_source_language(&mut spirv);
        assert_eq!((spirv[6], spirv[9]), (UNKNOWN_LANGUAGE, 2), "only languages old tools reject change");
        let mut truncated = vec![0x0723_0203, 0x0001_0500, 0, 10, 0, 0];
        patch_source_language(&mut truncated); // a zero word count must not loop
    }

    #[test]
    fn a_module_slang_wrote_reaches_the_optimizer_as_source_language_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let mut slang = smolv_format::doc_example_module();
        slang.extend([(3 << 16) | OP_SOURCE, 11, 1]);
        let compiled = compile(&job(dir.path()), &bytes(&slang)).unwrap();
        assert_eq!(compiled.modules[0].spirv[slang.len() - 3..], [(3 << 16) | OP_SOURCE, UNKNOWN_LANGUAGE, 1]);
    }
}
