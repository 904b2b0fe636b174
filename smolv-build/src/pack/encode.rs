//! SMOL-V encoding: each module stripped as asked, encoded, and decoded again as a check.

use rayon::prelude::*;
use smolv_codec::{DecodeOptions, EncodeOptions};
use smolv_format::reflect::Reflection;

use crate::compile::all::Built;
use crate::error::Error;
use crate::pack::reflect::{Reflected, names_read};
use crate::settings::Settings;

/// One module's SMOL-V, and the SPIR-V that it decodes to.
pub(crate) struct Encoded {
    pub(crate) smolv: Vec<u8>,
    pub(crate) decoded: Vec<u32>,
}

/// What encoding strips from a module.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Strip<'a> {
    /// Nothing: the module ships as compiled.
    Nothing,
    /// Every debug instruction, names included, as `glslc -Os` does.
    All,
    /// Every debug instruction but the `OpName`s this reflection holds (`Config::keep_interface_names`).
    KeepingInterfaceNames(&'a Reflection),
}

impl<'a> Strip<'a> {
    /// What the build's settings strip from a module reflected as `reflection`.
    pub(crate) fn of(settings: &Settings, reflection: &'a Reflection) -> Self {
        match (settings.strip_debug, settings.keep_interface_names) {
            (false, _) => Self::Nothing,
            (true, false) => Self::All,
            (true, true) => Self::KeepingInterfaceNames(reflection),
        }
    }
}

/// Encodes one module, stripping what `strip` says.
pub(crate) fn encode_module(spirv: &[u32], strip: Strip<'_>) -> Result<Encoded, String> {
    let options = match strip {
        Strip::Nothing => EncodeOptions::new(),
        Strip::All => EncodeOptions::new().strip_debug(true),
        Strip::KeepingInterfaceNames(reflection) => {
            let keep = names_read(reflection);
            EncodeOptions::new().strip_debug(true).keep_names(move |name| keep.contains(name))
        }
    };
    let smolv = smolv_codec::encode(spirv, &options).map_err(|e| format!("SMOL-V encoding failed: {e}"))?;
    let decoded =
        smolv_codec::decode(&smolv, &DecodeOptions::new()).map_err(|e| format!("SMOL-V round trip failed: {e}"))?;
    Ok(Encoded { smolv, decoded })
}

/// Encodes every module, stripped as `settings` say.
pub(crate) fn encode_all(
    modules: &[Built<'_>],
    reflected: &[Reflected],
    settings: &Settings,
) -> Result<Vec<Encoded>, Error> {
    modules
        .par_iter()
        .zip(reflected)
        .map(|(Built { module, job, .. }, reflected)| {
            let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
            encode_module(shipped, Strip::of(settings, &reflected.reflection)).map_err(|e| {
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
        .map_err(Error::Internal)
}
