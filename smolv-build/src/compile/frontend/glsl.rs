//! GLSL and HLSL through glslang, in this process (a worker's, in a build).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use smolv_format::reflect::ShaderStage;

use super::glslang::{self, IncludeType, Included, Source};
use super::glslang_log::parse_log;
use super::include;
use super::{Compiled, CompiledModule};
use crate::error::Diagnostic;
use crate::options::Language;
use crate::settings::Settings;
use crate::source::Job;

fn options<'a>(job: &'a Job, stage: ShaderStage, settings: &'a Settings, file_name: &'a str) -> glslang::Options<'a> {
    let hlsl = job.language == Language::Hlsl;
    // Bindings given for every stage, or for this one, in the order given.
    let here = |of: Option<ShaderStage>| of.is_none_or(|of| of == stage);
    glslang::Options {
        source: if hlsl { Source::Hlsl } else { Source::Glsl },
        stage,
        entry_point: &job.entry_point,
        target_env: settings.target_env,
        spirv_version: settings.spirv_version,
        defines: job.defines.iter().map(|d| (d.name.as_str(), d.value.as_deref().unwrap_or(""))).collect(),
        auto_map_locations: settings.auto_map_locations,
        auto_bind_uniforms: settings.auto_bind_uniforms,
        binding_bases: settings.binding_bases.iter().filter(|b| here(b.stage)).map(|b| (b.kind, b.base)).collect(),
        hlsl_offsets: settings.hlsl.offsets,
        hlsl_16bit_types: hlsl && settings.hlsl.sixteen_bit_types,
        hlsl_io_mapping: hlsl && settings.hlsl.io_mapping,
        register_bindings: settings
            .hlsl
            .register_bindings
            .iter()
            .filter(|b| hlsl && here(b.stage))
            .map(|b| glslang::RegisterBinding { register: &b.register, set: b.set, binding: b.binding })
            .collect(),
        debug_file: (!settings.strip_debug).then_some(file_name),
    }
}

pub(super) fn compile(job: &Job, source: &str, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    if source.contains('\0') {
        return Err(fail("the shader contains a NUL byte; is it a text file?".to_owned()));
    }
    let stage =
        job.stage.ok_or_else(|| fail("no shader stage: use a stage extension or #pragma shader_stage".into()))?;
    let mut includes = BTreeSet::<(PathBuf, [u8; 32])>::new();
    let mut missing = BTreeSet::<PathBuf>::new();
    // The last `"..."` include not found, and the file that asked for it.
    let failed_relative = RefCell::new(None::<(String, String)>);
    let file_name = job.path.to_string_lossy();
    let mut resolve = |requested: &str, kind: IncludeType, requesting_name: &str| -> Result<Included, String> {
        let requesting_name = if requesting_name.is_empty() { &*file_name } else { requesting_name };
        let requesting = Path::new(requesting_name);
        // glslang retries a `"..."` not found as `<...>`, showing only that error: it says what both searched.
        let again = kind == IncludeType::Standard
            && failed_relative.borrow_mut().take().is_some_and(|(r, from)| r == requested && from == requesting_name);
        let (found, tried) = include::resolve(requested, kind, requesting, &settings.include_dirs);
        missing.extend(tried);
        let Some(path) = found else {
            if kind == IncludeType::Relative {
                *failed_relative.borrow_mut() = Some((requested.to_owned(), requesting_name.to_owned()));
                // Never shown: the retry's message is.
                return Err(format!("cannot find include {requested:?}"));
            }
            return Err(include::missing(job, requested, if again { IncludeType::Relative } else { kind }, requesting));
        };
        let (content, hash) = include::read(&path)?;
        includes.insert((path.clone(), hash));
        Ok(Included { name: path.to_string_lossy().into_owned(), content })
    };
    let options = options(job, stage, settings, &file_name);
    let output = glslang::compile(source, &options, &mut resolve).map_err(|error| match error {
        glslang::Error::Log(log) => parse_log(&log, &job.path),
        glslang::Error::Other(message) => fail(message),
    })?;
    let module = CompiledModule::new(job.name.clone(), stage, job.entry_point.clone(), output.spirv);
    Ok(Compiled {
        modules: vec![CompiledModule { needs_legalization: job.language == Language::Hlsl, ..module }],
        dependencies: includes.into_iter().collect(),
        missing: missing.into_iter().collect(),
        warnings: super::glslang_log::warnings(&output.log, &job.path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error glslang shows for a missing include comes from its second
    /// request (`<...>`, after `"..."` failed): it must still say that the
    /// file's own folder was searched, and where the tree has the file.
    #[test]
    fn a_missing_include_says_what_was_searched_and_where_the_tree_has_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("shaders");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(root.join("includes")).unwrap();
        std::fs::write(root.join("includes/lighting.h"), "vec4 light() { return vec4(1.0); }\n").unwrap();
        let job = Job {
            stage: Some(ShaderStage::Fragment),
            ..Job::for_test("a/x.frag", root.join("a/x.frag"), Language::Glsl)
        };
        let settings = crate::compile::job::tests::settings();
        let shader = |include: &str| {
            format!(
                "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include {include}\n\
                     layout(location = 0) out vec4 color;\nvoid main() {{ color = light(); }}\n"
            )
        };
        let quoted = compile(&job, &shader("\"lighting.h\""), &settings).unwrap_err();
        let found = format!("the shader tree has it in {}", root.join("includes").display());
        assert!(quoted[0].message.contains("(searched next to the file and in the include dirs; "), "{}", quoted[0]);
        assert!(quoted[0].message.contains(&found), "{}", quoted[0]);
        let system = compile(&job, &shader("<lighting.h>"), &settings).unwrap_err();
        assert!(system[0].message.contains("(searched the include dirs; "), "{}", system[0]);
        assert!(system[0].message.contains(&found), "{}", system[0]);
        // Both in one file: each says what it searched.
        let both = compile(&job, &shader("\"lighting.h\"\n#include <lighting.h>"), &settings).unwrap_err();
        let searched: Vec<_> =
            both.iter().filter_map(|e| e.message.split("(searched ").nth(1)?.split(';').next()).collect();
        assert_eq!(searched, ["next to the file and in the include dirs", "the include dirs"], "{both:?}");
    }
}
