//! What the pack stage hands the output stage: the files, their manifest ([`assemble`]), the sizes.

use smolv_format::{
    BUNDLE_FILE, EMBEDDED_DATA_FILE, EMBEDDED_DICTIONARY_FILE, EMBEDDED_DIRECTORY_FILE, MANIFEST_FORMAT,
    ManifestEmbeddedModule, ManifestEmbeddedSet, ManifestModule,
};

use crate::compile::all::Built;
use crate::pack::bundle::Bundled;
use crate::pack::encode::Encoded;
use crate::pack::naming::artifact_name;
use crate::pack::packing::{self, PackInput, PackedSet};
use crate::pack::recipe::ShaderRecipe;
use crate::pack::reflect::Reflected;
use crate::pack::wgpu::{WgpuArtifacts, WgpuOutcome};
use crate::pack::wgsl::WgpuPath;
use crate::pack::zstd_forms::Packed;
use crate::settings::Plan;

/// The manifest as this build writes it, with [`ShaderRecipe`]s.
pub(crate) type Manifest = smolv_format::Manifest<ShaderRecipe>;

/// Everything to write into the artifact directory, and the report's sizes.
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
    /// Whether a translation to WGSL got no answer: the build runs again next time.
    pub(crate) run_again: bool,
}

/// One module's sizes after the pack stage, for the report.
pub(crate) struct ModuleSizes {
    /// SMOL-V bytes.
    pub(crate) smolv: usize,
    /// Its zstd payload in the bundle.
    pub(crate) compressed: usize,
}

/// What the pack stage made of each module, in manifest order.
pub(crate) struct Made<'a> {
    pub(crate) reflected: &'a [Reflected],
    pub(crate) encoded: &'a [Encoded],
    pub(crate) inputs: &'a [PackInput],
    /// The zstd form the bundle ships.
    pub(crate) packed: &'a Packed,
    pub(crate) bundled: Bundled,
}

/// The manifest of `modules` and everything it names (a wgpu build's embedded set, if it ships one).
pub(crate) fn assemble(
    modules: &[Built<'_>],
    made: Made<'_>,
    mut embedded: PackedSet,
    wgpu: Option<WgpuOutcome>,
    plan: &Plan,
) -> Artifacts {
    let settings = &plan.settings;
    let Made { reflected, encoded, inputs, packed, bundled } = made;
    let mut spirv_bytes = inputs.iter().map(|m| m.spirv.len()).sum();
    let (wgpu, warnings, unanswered) = match wgpu {
        Some(WgpuOutcome { artifacts, warnings, shipped, unanswered }) => {
            if let Some((shipped, its_spirv_bytes)) = shipped {
                // WGSL ships: the embedded SPIR-V set holds the other modules.
                embedded = shipped;
                spirv_bytes = its_spirv_bytes;
            }
            (artifacts, warnings, unanswered)
        }
        None => (None, Vec::new(), 0),
    };
    let mut manifest_modules = Vec::new();
    let mut sizes = Vec::new();
    let mut optimized = Vec::new();
    for (index, ((((Built { module, job, dependencies, .. }, encoded), reflected), payload), container)) in
        modules.iter().zip(encoded).zip(reflected).zip(&packed.payloads).zip(&bundled.containers).enumerate()
    {
        let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
        let input = &inputs[index];
        sizes.push(ModuleSizes { smolv: encoded.smolv.len(), compressed: payload.len() });
        let interface = reflected.interface.clone();
        manifest_modules.push(ManifestModule {
            name: module.name.clone(),
            artifact: artifact_name(index, &module.name, "smvc"),
            optimized_spirv: artifact_name(index, &module.name, "spv"),
            source: job.path.clone(),
            variant: job.variant.clone(),
            recipe: Some(ShaderRecipe::new(&module.name, job, settings, dependencies, interface.clone())),
            reflection: reflected.reflection.clone(),
            interface,
            spirv_bytes: encoded.decoded.len() * 4,
            container_bytes: container.len(),
            embedded: ManifestEmbeddedModule {
                data: artifact_name(index, &module.name, "data"),
                unpacked_bytes: packing::unpacked_len(embedded.shipped.scheme.codec, input),
                spirv_bytes: input.spirv.len(),
                check: input.check,
            },
        });
        optimized.push(shipped.iter().flat_map(|w| w.to_le_bytes()).collect());
    }
    let dictionary_bytes = packed.dictionary.as_ref().map(|d| d.as_bytes().to_vec());
    let decoder_bytes = embedded.chosen().decoder().installed;
    let manifest_embedded = ManifestEmbeddedSet {
        codec: embedded.shipped.scheme.codec,
        framing: embedded.shipped.scheme.framing,
        goal: embedded.goal.name().to_owned(),
        directory: EMBEDDED_DIRECTORY_FILE.to_owned(),
        data: EMBEDDED_DATA_FILE.to_owned(),
        dictionary: embedded.shipped.dictionary.as_ref().map(|_| EMBEDDED_DICTIONARY_FILE.to_owned()),
        spirv_bytes,
        stored_bytes: embedded.shipped.stored_len(),
        decoder_bytes,
    };
    Artifacts {
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
    }
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
            .map(|((index, name, _), &(offset, len))| smolv_format::ManifestWgslModule {
                name: name.clone(),
                text: artifact_name(*index, name, "wgsl"),
                offset,
                len,
            })
            .collect(),
    }
}
