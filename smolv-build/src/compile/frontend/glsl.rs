//! GLSL and HLSL through shaderc.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use shaderc::{
    CompileOptions, Compiler, EnvVersion, IncludeType, OptimizationLevel, ResolvedInclude, ShaderKind, SourceLanguage,
    TargetEnv as ShadercEnv,
};
use smolv_runtime::reflect::ShaderStage;

use super::glslang_log::parse_log;
use super::include;
use super::{Compiled, CompiledModule};
use crate::error::Diagnostic;
use crate::options::Language;
use crate::options::{Optimization, ResourceKind, SpirvVersion, TargetEnv};
use crate::settings::Settings;
use crate::source::Job;

fn compiler() -> Result<&'static Compiler, String> {
    static COMPILER: OnceLock<Option<Compiler>> = OnceLock::new();
    COMPILER.get_or_init(|| Compiler::new().ok()).as_ref().ok_or_else(|| "shaderc failed to initialize".to_owned())
}

/// The shaderc library linked in, as smolv-build's build script found it
/// where shaderc-sys does: `blake3=<hex>` of its bytes, then the glslang
/// and SPIRV-Tools versions it names. Empty when it was not found.
const LINKED_LIBRARY: &str = env!("SMOLV_SHADERC_IDENTITY");

/// shaderc's identity, for cache keys: the bytes of the library linked in
/// (a different `libshaderc_combined.a` is a different compiler, whatever
/// its version says), else those of this executable, which contains it.
pub(super) fn identity() -> String {
    static IDENTITY: OnceLock<String> = OnceLock::new();
    IDENTITY.get_or_init(|| library_identity(LINKED_LIBRARY, executable_identity)).clone()
}

/// `library`, or when it is unknown, `fallback()`.
fn library_identity(library: &str, fallback: impl FnOnce() -> String) -> String {
    let library = if library.is_empty() { fallback() } else { library.to_owned() };
    format!("shaderc [{library}];")
}

/// blake3 of the running executable, which links shaderc; if it cannot be
/// read, a value no other process gives, so nothing is reused.
fn executable_identity() -> String {
    match std::env::current_exe().and_then(std::fs::read) {
        Ok(bytes) => format!("executable blake3={}", blake3::hash(&bytes).to_hex()),
        Err(_) => format!(
            "unidentified, process {} at {:?}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default()
        ),
    }
}

fn shader_kind(stage: ShaderStage) -> ShaderKind {
    match stage {
        ShaderStage::Vertex => ShaderKind::Vertex,
        ShaderStage::Fragment => ShaderKind::Fragment,
        ShaderStage::Compute => ShaderKind::Compute,
        ShaderStage::Geometry => ShaderKind::Geometry,
        ShaderStage::TessellationControl => ShaderKind::TessControl,
        ShaderStage::TessellationEvaluation => ShaderKind::TessEvaluation,
        ShaderStage::Task => ShaderKind::Task,
        ShaderStage::Mesh => ShaderKind::Mesh,
        ShaderStage::RayGeneration => ShaderKind::RayGeneration,
        ShaderStage::AnyHit => ShaderKind::AnyHit,
        ShaderStage::ClosestHit => ShaderKind::ClosestHit,
        ShaderStage::Miss => ShaderKind::Miss,
        ShaderStage::Intersection => ShaderKind::Intersection,
        ShaderStage::Callable => ShaderKind::Callable,
        _ => ShaderKind::InferFromSource,
    }
}

fn resource_kind(kind: ResourceKind) -> shaderc::ResourceKind {
    match kind {
        ResourceKind::Image => shaderc::ResourceKind::Image,
        ResourceKind::Sampler => shaderc::ResourceKind::Sampler,
        ResourceKind::Texture => shaderc::ResourceKind::Texture,
        ResourceKind::UniformBuffer => shaderc::ResourceKind::Buffer,
        ResourceKind::StorageBuffer => shaderc::ResourceKind::StorageBuffer,
        ResourceKind::UnorderedAccessView => shaderc::ResourceKind::UnorderedAccessView,
    }
}

fn env_version(env: TargetEnv) -> EnvVersion {
    match env {
        TargetEnv::Vulkan1_0 => EnvVersion::Vulkan1_0,
        TargetEnv::Vulkan1_1 => EnvVersion::Vulkan1_1,
        TargetEnv::Vulkan1_2 => EnvVersion::Vulkan1_2,
        TargetEnv::Vulkan1_3 => EnvVersion::Vulkan1_3,
    }
}

fn spirv_version(version: SpirvVersion) -> shaderc::SpirvVersion {
    match version {
        SpirvVersion::V1_0 => shaderc::SpirvVersion::V1_0,
        SpirvVersion::V1_1 => shaderc::SpirvVersion::V1_1,
        SpirvVersion::V1_2 => shaderc::SpirvVersion::V1_2,
        SpirvVersion::V1_3 => shaderc::SpirvVersion::V1_3,
        SpirvVersion::V1_4 => shaderc::SpirvVersion::V1_4,
        SpirvVersion::V1_5 => shaderc::SpirvVersion::V1_5,
        SpirvVersion::V1_6 => shaderc::SpirvVersion::V1_6,
    }
}

pub(super) fn compile(job: &Job, source: &str, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    if source.contains('\0') {
        return Err(fail("the shader contains a NUL byte; is it a text file?".to_owned()));
    }
    let stage =
        job.stage.ok_or_else(|| fail("no shader stage: use a stage extension or #pragma shader_stage".into()))?;
    let compiler = compiler().map_err(fail)?;
    let includes = RefCell::new(Vec::<(PathBuf, [u8; 32])>::new());
    let missing = RefCell::new(Vec::<PathBuf>::new());
    // The last `"..."` include not found, and the file that asked for it.
    let failed_relative = RefCell::new(None::<(String, String)>);
    let run = |level: OptimizationLevel| -> Result<(Vec<u32>, String), Vec<Diagnostic>> {
        let mut options = CompileOptions::new().map_err(|e| fail(format!("shaderc options: {e}")))?;
        options.set_target_env(ShadercEnv::Vulkan, env_version(settings.target_env) as u32);
        options.set_target_spirv(spirv_version(settings.spirv_version));
        options.set_source_language(match job.language {
            Language::Hlsl => SourceLanguage::HLSL,
            _ => SourceLanguage::GLSL,
        });
        options.set_optimization_level(level);
        options.set_auto_map_locations(settings.auto_map_locations);
        options.set_auto_bind_uniforms(settings.auto_bind_uniforms);
        for base in &settings.binding_bases {
            match base.stage {
                None => options.set_binding_base(resource_kind(base.kind), base.base),
                Some(stage) => {
                    options.set_binding_base_for_stage(shader_kind(stage), resource_kind(base.kind), base.base);
                }
            }
        }
        // HLSL always lays blocks out with HLSL's rules; this opts GLSL in.
        options.set_hlsl_offsets(settings.hlsl.offsets);
        if job.language == Language::Hlsl {
            options.set_hlsl_io_mapping(settings.hlsl.io_mapping);
            for binding in &settings.hlsl.register_bindings {
                // Registers were checked for NUL bytes, which shaderc's binding panics on.
                let (set, slot) = (binding.set.to_string(), binding.binding.to_string());
                match binding.stage {
                    None => options.set_hlsl_register_set_and_binding(&binding.register, &set, &slot),
                    Some(stage) => options.set_hlsl_register_set_and_binding_for_stage(
                        shader_kind(stage),
                        &binding.register,
                        &set,
                        &slot,
                    ),
                }
            }
        }
        if !settings.strip_debug {
            // Line info and source text, for debuggers like RenderDoc.
            options.set_generate_debug_info();
        }
        for define in &job.defines {
            options.add_macro_definition(&define.name, define.value.as_deref());
        }
        options.set_include_callback(|requested, kind, requesting_name, _depth| {
            let requesting = Path::new(requesting_name);
            // glslang asks again for a `"..."` include it did not find, at
            // once and as `<...>`, and shows only the second error
            // (glslang's `Pp.cpp`, `CPPinclude`): that one must say what
            // the first searched. Any `<...>` request ends the pairing.
            let again = kind == IncludeType::Standard
                && failed_relative
                    .borrow_mut()
                    .take()
                    .is_some_and(|(r, from)| r == requested && from == requesting_name);
            let (found, tried) = include::resolve(requested, kind, requesting, &settings.include_dirs);
            missing.borrow_mut().extend(tried);
            let Some(path) = found else {
                if kind == IncludeType::Relative {
                    *failed_relative.borrow_mut() = Some((requested.to_owned(), requesting_name.to_owned()));
                    // Never shown: the retry's message is.
                    return Err(format!("cannot find include {requested:?}"));
                }
                return Err(include::missing(
                    job,
                    requested,
                    if again { IncludeType::Relative } else { kind },
                    requesting,
                ));
            };
            let (content, hash) = include::read(&path)?;
            includes.borrow_mut().push((path.clone(), hash));
            Ok(ResolvedInclude { resolved_name: path.to_string_lossy().into_owned(), content })
        });
        let file_name = job.path.to_string_lossy();
        match compiler.compile_into_spirv(source, shader_kind(stage), &file_name, &job.entry_point, Some(&options)) {
            Ok(artifact) => Ok((artifact.as_binary().to_vec(), artifact.get_warning_messages())),
            Err(shaderc::Error::CompilationError(_, log)) => Err(parse_log(&log, &job.path)),
            Err(other) => Err(fail(other.to_string())),
        }
    };
    let (unoptimized, warnings) = run(OptimizationLevel::Zero)?;
    // With spirv-opt installed, the build optimizes in a separate process:
    // the SPIRV-Tools optimizer linked into shaderc segfaults on some valid
    // shaders, and in-process that would kill the build script. Without it,
    // shaderc's own levels run the same recipe here.
    let optimized = match (settings.optimization, &settings.spirv_opt) {
        (Optimization::None, _) | (_, Some(_)) => None,
        (Optimization::Size, None) => Some(run(OptimizationLevel::Size)?.0),
        (Optimization::Performance, None) => Some(run(OptimizationLevel::Performance)?.0),
    };
    let mut dependencies = includes.into_inner();
    dependencies.sort();
    dependencies.dedup();
    let mut missing = missing.into_inner();
    missing.sort();
    missing.dedup();
    Ok(Compiled {
        modules: vec![CompiledModule {
            name: job.name.clone(),
            stage,
            entry_point: job.entry_point.clone(),
            spirv: unoptimized,
            optimized,
            // shaderc legalizes HLSL itself.
            needs_legalization: false,
        }],
        dependencies,
        missing,
        warnings: warnings.lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identity_is_the_linked_library_s_bytes() {
        let path = env!("SMOLV_SHADERC_LIBRARY");
        assert!(!path.is_empty(), "the build script must find the library shaderc-sys links");
        if let Some(dir) = std::env::var_os("SHADERC_LIB_DIR") {
            let expected = Path::new(&dir).join("libshaderc_combined.a").canonicalize().unwrap();
            assert_eq!(Path::new(path), expected, "the library in SHADERC_LIB_DIR is the one linked");
        }
        let hash = blake3::hash(&std::fs::read(path).unwrap()).to_hex().to_string();
        assert!(identity().contains(&format!("blake3={hash}")), "{}", identity());
        assert!(identity().contains("glslang"), "the version strings are named: {}", identity());
    }

    #[test]
    fn an_unknown_library_is_identified_by_the_executable() {
        let identity = library_identity("", executable_identity);
        let exe = blake3::hash(&std::fs::read(std::env::current_exe().unwrap()).unwrap()).to_hex().to_string();
        assert_eq!(identity, format!("shaderc [executable blake3={exe}];"));
        assert_eq!(library_identity("blake3=00", || unreachable!()), "shaderc [blake3=00];");
    }

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
