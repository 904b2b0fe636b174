//! From compiled modules to the artifacts [`emit`](crate::output::emit) writes:
//! reflect, SMOL-V encode, compress (zstd forms, cached), pack the embedded
//! set, and assemble the containers, the bundle, the manifest and the
//! report's rows.

use rayon::prelude::*;

use crate::cache::{BodyReader, BodyWriter, Cache, KeyBuilder};
use crate::pack::bundle::{BundleModule, assemble_bundle};
use smolv_format::{
    BUNDLE_FILE, EMBEDDED_DATA_FILE, EMBEDDED_DICTIONARY_FILE, EMBEDDED_DIRECTORY_FILE, MANIFEST_FORMAT,
    ManifestEmbeddedModule, ManifestEmbeddedSet, ManifestModule,
};

use crate::compile::frontend::CompiledModule;
use crate::compile::worker::{Compilers, Translation};
use crate::error::Error;
use crate::pack::encode::{Packed, Strip, ZstdForms, compress_forms, encode_module};
use crate::pack::packing::{self, PackInput, PackedSet, WGPU_FRONT_ENDS};
use crate::pack::recipe::ShaderRecipe;
use crate::pack::reflect::{as_shipped, interface, reflect};
use crate::pack::wgsl::{self, PackedWgsl, WgpuChoice, WgpuPath};
use crate::pack::zstd_memo::ZstdMemo;
use crate::settings::Plan;
use crate::source::Job;

/// The manifest as this build writes it: each module's recipe is a
/// [`ShaderRecipe`].
pub(crate) type Manifest = smolv_format::Manifest<ShaderRecipe>;

/// Everything to write into the artifact directory, and the sizes the
/// report gives (the output stage reads both).
pub(crate) struct Artifacts {
    pub(crate) manifest: Manifest,
    pub(crate) containers: Vec<Vec<u8>>,
    pub(crate) optimized: Vec<Vec<u8>>,
    pub(crate) dictionary: Option<Vec<u8>>,
    pub(crate) bundle: Vec<u8>,
    /// The embedded set: its files, and what the choice weighed.
    pub(crate) embedded: PackedSet,
    /// Per module, in manifest order: what encoding and compression made.
    pub(crate) sizes: Vec<ModuleSizes>,
    /// Bytes of SPIR-V the embedded set decodes to.
    pub(crate) spirv_bytes: usize,
    /// For a wgpu target: what it weighed, and the WGSL it ships, if any.
    pub(crate) wgpu: Option<WgpuArtifacts>,
    /// One per module naga could not make WGSL of, for a wgpu target.
    pub(crate) warnings: Vec<String>,
    /// Whether a translation to WGSL got no answer (a worker crashed):
    /// the build must run again next time, not keep the SPIR-V it shipped
    /// instead.
    pub(crate) run_again: bool,
}

/// What a build for wgpu made: the WGSL stream (shipped or only weighed),
/// each module's text, and the choice.
pub(crate) struct WgpuArtifacts {
    pub(crate) packed: PackedWgsl,
    /// `(name, file under the artifact directory, text)` of each module
    /// naga made WGSL of, by name.
    pub(crate) texts: Vec<(String, String, String)>,
    pub(crate) choice: WgpuChoice,
    /// How many modules naga refused (they ship SPIR-V either way).
    pub(crate) refused: usize,
    /// How many modules got no answer from the worker translating them
    /// (they ship SPIR-V, and the next build tries again).
    pub(crate) unanswered: usize,
}

/// One module's sizes after the pack stage, for the report.
pub(crate) struct ModuleSizes {
    /// SMOL-V bytes.
    pub(crate) smolv: usize,
    /// Its zstd payload in the bundle.
    pub(crate) compressed: usize,
}

/// File name of a module's container: readable, and unique even where
/// names differ only in characters that files cannot hold.
pub(crate) fn artifact_name(index: usize, module: &str, kind: &str) -> String {
    let safe: String =
        module.chars().map(|c| if c.is_ascii_alphanumeric() || "._-@".contains(c) { c } else { '_' }).collect();
    match kind {
        "spv" => format!("spirv/{index:04}-{safe}.spv"),
        "data" => format!("embedded/modules/{index:04}-{safe}.data"),
        "wgsl" => format!("wgsl/{index:04}-{safe}.wgsl"),
        _ => format!("modules/{index:04}-{safe}.smvc"),
    }
}

/// A compiled module, with its job, whether it came from the cache, and
/// every file its job read.
pub(crate) struct Built<'a> {
    pub(crate) module: CompiledModule,
    pub(crate) job: &'a Job,
    pub(crate) cached: bool,
    pub(crate) dependencies: std::sync::Arc<[std::path::PathBuf]>,
}

/// Reflects, encodes, compresses and assembles every compiled module, and
/// packs the embedded set. For a wgpu target, `compilers` translate the
/// modules to WGSL.
pub(crate) fn build_artifacts(
    modules: &[Built<'_>],
    plan: &Plan,
    cache: &Cache,
    compilers: &Compilers,
) -> Result<Artifacts, Error> {
    let settings = &plan.settings;
    let encoded: Vec<_> = modules
        .par_iter()
        .map(|Built { module, job, .. }| {
            let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
            let reflection = reflect(shipped, module.stage, &module.entry_point);
            let strip = Strip::of(settings, &reflection);
            // The manifest keeps every name (generated types, hot reload);
            // the container holds what the module ships with.
            let in_container = as_shipped(&reflection, strip.keeps_names());
            encode_module(shipped, strip)
                .map(|e| (e, reflection, in_container))
                // The front ends check what they hand on, precompiled
                // modules included: this is a bug in the compiler, the
                // optimizer or smolv.
                .map_err(|e| {
                    format!(
                        "{} (module {}): {e}. This is a bug in the compiler, the optimizer or smolv: build with \
                         `Optimization::None` (`--optimization none`) to tell them apart, and report it at {}/issues, \
                         with the shader",
                        job.path.display(),
                        module.name,
                        env!("CARGO_PKG_REPOSITORY")
                    )
                })
        })
        .collect::<Result<_, _>>()
        .map_err(Error::Internal)?;
    let smolv: Vec<Vec<u8>> = encoded.iter().map(|(e, ..)| e.smolv.clone()).collect();
    // The bundle's forms and the embedded set's share this work.
    let memo = ZstdMemo::new(smolv.iter().map(Vec::as_slice), Some(cache));
    let zstd = zstd_forms(&memo, plan, cache)?;
    let packed = zstd.preferred();

    let inputs: Vec<PackInput> = modules
        .iter()
        .zip(&encoded)
        .map(|(Built { module, .. }, (encoded, ..))| {
            PackInput::new(module.name.clone(), encoded.smolv.clone(), &encoded.decoded)
        })
        .collect();
    let mut embedded = packing::pack_cached(&inputs, &zstd, &memo, &plan.packing, plan.dictionary, cache)?;
    let mut spirv_bytes = inputs.iter().map(|m| m.spirv.len()).sum();
    let (wgpu, warnings, unanswered) = if plan.packing.target.may_ship_wgsl() {
        let spirv: Vec<&[u32]> = encoded.iter().map(|(e, ..)| e.decoded.as_slice()).collect();
        let (wgpu, warnings, shipped, unanswered) =
            wgpu_artifacts(modules, &spirv, &inputs, &embedded, plan, (cache, compilers))?;
        if let Some((shipped, its_spirv_bytes)) = shipped {
            // WGSL ships: the embedded SPIR-V set holds the other modules.
            embedded = shipped;
            spirv_bytes = its_spirv_bytes;
        }
        (wgpu, warnings, unanswered)
    } else {
        (None, Vec::new(), 0)
    };
    let bundle_modules: Vec<BundleModule<'_>> = modules
        .iter()
        .zip(&encoded)
        .map(|(Built { module, .. }, (encoded, _, reflection))| BundleModule {
            name: &module.name,
            encoded,
            reflection,
        })
        .collect();
    let bundled = assemble_bundle(&bundle_modules, packed)?;
    let mut manifest_modules = Vec::new();
    let mut sizes = Vec::new();
    let mut optimized = Vec::new();
    for (index, (((Built { module, job, dependencies, .. }, (encoded, reflection, _)), payload), container)) in
        modules.iter().zip(&encoded).zip(&packed.payloads).zip(&bundled.containers).enumerate()
    {
        let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
        let input = &inputs[index];
        sizes.push(ModuleSizes { smolv: encoded.smolv.len(), compressed: payload.len() });
        let interface = interface(&module.spirv, shipped);
        manifest_modules.push(ManifestModule {
            name: module.name.clone(),
            artifact: artifact_name(index, &module.name, "smvc"),
            optimized_spirv: artifact_name(index, &module.name, "spv"),
            source: job.path.clone(),
            variant: job.variant.clone(),
            recipe: Some(ShaderRecipe::new(&module.name, job, settings, dependencies, interface.clone())),
            reflection: reflection.clone(),
            interface,
            spirv_bytes: encoded.decoded.len() * 4,
            container_bytes: container.len(),
            embedded: ManifestEmbeddedModule {
                data: artifact_name(index, &module.name, "data"),
                unpacked_bytes: packing::unpacked_len(embedded.scheme.codec, input),
                spirv_bytes: input.spirv.len(),
                check: input.check,
            },
        });
        optimized.push(shipped.iter().flat_map(|w| w.to_le_bytes()).collect());
    }
    let dictionary_bytes = packed.dictionary.as_ref().map(|d| d.as_bytes().to_vec());
    let decoder_bytes = embedded.chosen().decoder().installed;
    let manifest_embedded = ManifestEmbeddedSet {
        codec: embedded.scheme.codec,
        framing: embedded.scheme.framing,
        goal: embedded.goal.name().to_owned(),
        directory: EMBEDDED_DIRECTORY_FILE.to_owned(),
        data: EMBEDDED_DATA_FILE.to_owned(),
        dictionary: embedded.dictionary.as_ref().map(|_| EMBEDDED_DICTIONARY_FILE.to_owned()),
        spirv_bytes,
        stored_bytes: embedded.stored_len(),
        decoder_bytes,
    };
    Ok(Artifacts {
        manifest: Manifest {
            format: MANIFEST_FORMAT,
            bundle: BUNDLE_FILE.to_owned(),
            dictionary: dictionary_bytes.as_ref().map(|_| "dictionary.zdict".to_owned()),
            strip_debug: settings.strip_debug,
            interface_names: !settings.strip_debug || settings.keep_interface_names,
            embedded: manifest_embedded,
            modules: manifest_modules,
            wgsl: wgpu.as_ref().filter(|w| w.choice.path == WgpuPath::Wgsl).map(manifest_wgsl),
        },
        containers: bundled.containers,
        optimized,
        dictionary: dictionary_bytes,
        bundle: bundled.bytes,
        embedded,
        sizes,
        spirv_bytes,
        wgpu,
        warnings,
        run_again: unanswered > 0,
    })
}

/// The manifest's record of the WGSL that ships.
fn manifest_wgsl(wgpu: &WgpuArtifacts) -> smolv_format::ManifestWgsl {
    let packed = &wgpu.packed;
    smolv_format::ManifestWgsl {
        codec: packed.codec,
        data: smolv_format::EMBEDDED_WGSL_FILE.to_owned(),
        unpacked_bytes: packed.unpacked_len,
        check: packed.check,
        stored_bytes: packed.stored_len(),
        modules: wgpu
            .texts
            .iter()
            .zip(&packed.spans)
            .map(|((name, file, _), &(offset, len))| smolv_format::ManifestWgslModule {
                name: name.clone(),
                text: file.clone(),
                offset,
                len,
            })
            .collect(),
    }
}

/// What [`wgpu_artifacts`] made: what it weighed (`None` when naga made
/// no WGSL at all), a warning per module that ships as SPIR-V, the SPIR-V
/// set to ship instead of every module's when WGSL ships (with the bytes
/// of SPIR-V it decodes to), and how many modules got no answer.
type WgpuOutcome = (Option<WgpuArtifacts>, Vec<String>, Option<(PackedSet, usize)>, usize);

/// For a wgpu target: every module's WGSL through naga, the texts packed,
/// the modules naga refused packed as a SPIR-V set of their own, and the
/// choice. Returns what it weighed, a warning per refused module, and the
/// SPIR-V set to ship instead of `all` when WGSL ships (its per-module
/// forms in manifest order, empty for the modules that ship WGSL).
fn wgpu_artifacts(
    modules: &[Built<'_>],
    spirv: &[&[u32]],
    inputs: &[PackInput],
    all: &PackedSet,
    plan: &Plan,
    (cache, compilers): (&Cache, &Compilers),
) -> Result<WgpuOutcome, Error> {
    let translated = wgsl::translate_all(spirv, compilers, cache);
    let mut warnings = Vec::new();
    let mut texts = Vec::new();
    // The modules that ship as SPIR-V, naga's refusals and those with no
    // answer alike.
    let mut refused = Vec::new();
    let mut unanswered = 0;
    for (index, (built, translation)) in modules.iter().zip(translated).enumerate() {
        let why = match translation {
            Translation::Answer(Ok(text)) => {
                texts.push((built.module.name.clone(), artifact_name(index, &built.module.name, "wgsl"), text));
                continue;
            }
            Translation::Answer(Err(why)) => why,
            Translation::NoAnswer(why) => {
                unanswered += 1;
                why
            }
        };
        warnings.push(format!(
            "{} ({}) ships as SPIR-V for wgpu, not WGSL: {why}",
            built.module.name,
            built.job.path.display()
        ));
        refused.push(index);
    }
    // Where WGSL may ship, naga's refusals still ship SPIR-V, which a
    // runtime whose wgpu layer takes none refuses. (SPIR-V that ships by
    // the target's choice is the user's, with nothing to warn of.)
    let refused_names: Vec<&str> = refused.iter().map(|&index| modules[index].module.name.as_str()).collect();
    let spirv_warning = plan.packing.runtime.wgpu_spirv_warning(&refused_names);
    if texts.is_empty() {
        warnings.extend(spirv_warning);
        return Ok((None, warnings, None, unanswered));
    }
    let names: Vec<&str> = texts.iter().map(|(n, _, _)| n.as_str()).collect();
    let bodies: Vec<&str> = texts.iter().map(|(_, _, t)| t.as_str()).collect();
    let packed = wgsl::pack_texts(&names, &bodies, plan.zstd_level, &plan.packing.runtime, None)?;
    let refused_inputs: Vec<PackInput> = refused.iter().map(|&i| inputs[i].clone()).collect();
    let refused_set = pack_subset(&refused_inputs, plan, cache)?;
    let refused_measured = (!refused.is_empty()).then(|| refused_set.chosen());
    let spirv_readable = plan.packing.runtime.wgpu_takes_spirv();
    let choice =
        wgsl::choose(plan.packing.target, &packed, refused_measured, all.chosen(), WGPU_FRONT_ENDS, spirv_readable);
    if choice.path == WgpuPath::Wgsl {
        warnings.extend(spirv_warning);
    }
    let shipped = (choice.path == WgpuPath::Wgsl).then(|| {
        // Per-module forms in manifest order: the refused modules' own,
        // nothing for those that ship WGSL.
        let mut forms = vec![Vec::new(); inputs.len()];
        for (&index, form) in refused.iter().zip(refused_set.modules.iter()) {
            forms[index] = form.clone();
        }
        let spirv_bytes = refused_inputs.iter().map(|m| m.spirv.len()).sum();
        (PackedSet { modules: forms, ..refused_set }, spirv_bytes)
    });
    let wgpu = WgpuArtifacts { packed, texts, choice, refused: refused.len() - unanswered, unanswered };
    Ok((Some(wgpu), warnings, shipped, unanswered))
}

/// The SPIR-V set of some modules only, packed as the build packs (an
/// empty one raw).
fn pack_subset(inputs: &[PackInput], plan: &Plan, cache: &Cache) -> Result<PackedSet, Error> {
    let mut options = plan.packing.clone();
    let memo = ZstdMemo::new(inputs.iter().map(|i| i.smolv.as_slice()), Some(cache));
    let zstd = if inputs.is_empty() {
        // Nothing to compress: only raw is tried (any other codec would
        // add its decoder for nothing).
        options = packing::for_empty_set(&options);
        ZstdForms {
            plain: Packed { dictionary: None, payloads: Vec::new() },
            with_dictionary: None,
            prefer_dictionary: false,
        }
    } else {
        zstd_forms(&memo, plan, cache)?
    };
    packing::pack_cached(inputs, &zstd, &memo, &options, plan.dictionary, cache)
}

/// Compresses the set with zstd, alone and with a dictionary, or takes both
/// from the cache: dictionary training and zstd -19 are the slowest steps
/// after compiling. On a miss, `memo` does the work (each module alone
/// from its own cache entry) and keeps it for the embedded set.
fn zstd_forms(memo: &ZstdMemo<'_>, plan: &Plan, cache: &Cache) -> Result<ZstdForms, Error> {
    let smolv = memo.smolv();
    // smolv-build's own identity is in every key (KeyBuilder::new).
    let mut key = KeyBuilder::new("smolv-build pack v3");
    key.text(&format!("{}/{:?}", plan.zstd_level, plan.dictionary));
    smolv.iter().for_each(|m| {
        key.field(m);
    });
    let key = key.finish();
    if let Some(forms) = cache.get(&key).and_then(|body| read_forms(&body, smolv.len())) {
        return Ok(forms);
    }
    let forms = compress_forms(memo, plan.zstd_level, plan.dictionary).map_err(Error::Internal)?;
    let mut w = BodyWriter::default();
    write_packed(&mut w, &forms.plain);
    match &forms.with_dictionary {
        Some(packed) => write_packed(w.u32(1).u32(u32::from(forms.prefer_dictionary)), packed),
        None => {
            w.u32(0);
        }
    }
    if let Some(body) = w.finish() {
        cache.put(&key, &body);
    }
    Ok(forms)
}

fn write_packed(w: &mut BodyWriter, packed: &Packed) {
    w.bytes(packed.dictionary.as_ref().map(|d| d.as_bytes()).unwrap_or_default());
    packed.payloads.iter().for_each(|p| {
        w.bytes(p);
    });
}

fn read_packed(r: &mut BodyReader<'_>, count: usize) -> Option<Packed> {
    let dictionary = match r.bytes()? {
        [] => None,
        bytes => Some(smolv_runtime::container::Dictionary::new(bytes.to_vec()).ok()?),
    };
    let payloads = (0..count).map(|_| r.bytes().map(<[u8]>::to_vec)).collect::<Option<Vec<_>>>()?;
    Some(Packed { dictionary, payloads })
}

fn read_forms(body: &[u8], count: usize) -> Option<ZstdForms> {
    let mut r = BodyReader::new(body);
    let plain = read_packed(&mut r, count)?;
    let (with_dictionary, prefer_dictionary) = match r.u32()? {
        0 => (None, false),
        _ => {
            let prefer = r.u32()? == 1;
            (Some(read_packed(&mut r, count)?), prefer)
        }
    };
    r.is_empty().then_some(ZstdForms { plain, with_dictionary, prefer_dictionary })
}
