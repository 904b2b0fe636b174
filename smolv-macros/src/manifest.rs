//! Reading what smolv-build wrote to `OUT_DIR` (`docs/format.md`, build
//! manifest format 2), and checking the files before they are embedded.

use std::path::PathBuf;

use serde_json::Value;

use crate::check;

/// The manifest format this smolv-macros reads.
const FORMAT: u64 = 2;

/// How the set was packed: the codec names the unpacker to link.
pub(crate) struct Packing {
    pub(crate) codec: String,
    pub(crate) directory: PathBuf,
    pub(crate) data: PathBuf,
    pub(crate) dictionary: Option<PathBuf>,
    /// The size goal the packing was chosen for: `installed` or `download`.
    pub(crate) goal: String,
    /// What the build report counts as stored: data, dictionary, names and
    /// 24 bytes of table per module (`ShaderSet::stored_len`).
    pub(crate) stored_bytes: u64,
}

/// One module as `include_shader!` embeds it.
pub(crate) struct Module {
    pub(crate) name: String,
    pub(crate) data: PathBuf,
    pub(crate) unpacked_len: u64,
    pub(crate) spirv_len: u64,
    pub(crate) check: u32,
}

/// Where a module came from (the manifest's recipe), for hot reload.
pub(crate) struct Origin {
    pub(crate) source: String,
    pub(crate) includes: Vec<String>,
    pub(crate) recipe: String,
}

/// The parts of `OUT_DIR/smolv/manifest.json` the macros need.
pub(crate) struct Manifest {
    pub(crate) packing: Packing,
    modules: Vec<Value>,
    dir: PathBuf,
}

fn text(value: &Value, what: &str) -> Result<String, String> {
    value.as_str().map(str::to_owned).ok_or_else(|| format!("smolv: the manifest has no {what}; rebuild"))
}

fn number(value: &Value, what: &str) -> Result<u64, String> {
    value.as_u64().ok_or_else(|| format!("smolv: the manifest has no {what}; rebuild"))
}

impl Manifest {
    /// Loads the manifest of the crate being compiled, and checks the
    /// embedded set it names.
    pub(crate) fn load() -> Result<Self, String> {
        let out_dir = std::env::var_os("OUT_DIR").ok_or(
            "smolv: OUT_DIR is not set; add a build.rs that runs smolv_build::Config::new().shader_dir(\"shaders\").compile()",
        )?;
        let dir = PathBuf::from(out_dir).join("smolv");
        let path = dir.join("manifest.json");
        let text_of_file = std::fs::read_to_string(&path).map_err(|e| {
            format!("smolv: cannot read {} ({e}); does build.rs run smolv_build, and did it succeed?", path.display())
        })?;
        let json: Value = serde_json::from_str(&text_of_file)
            .map_err(|e| format!("smolv: {} is not valid JSON: {e}; rebuild", path.display()))?;
        if json["format"].as_u64() != Some(FORMAT) {
            return Err(format!(
                "smolv: {} has manifest format {}, this smolv-macros reads {FORMAT}; use matching smolv-build and \
                 smolv-runtime versions",
                path.display(),
                json["format"]
            ));
        }
        let embedded = &json["embedded"];
        let packing = Packing {
            codec: text(&embedded["codec"], "embedded codec")?,
            directory: dir.join(text(&embedded["directory"], "embedded directory")?),
            data: dir.join(text(&embedded["data"], "embedded data")?),
            dictionary: embedded["dictionary"].as_str().map(|d| dir.join(d)),
            goal: embedded["goal"].as_str().unwrap_or("installed").to_owned(),
            stored_bytes: number(&embedded["stored_bytes"], "embedded stored size")?,
        };
        if packing.dictionary.is_some() != (packing.codec == "smolv-zstd-dictionary") {
            return Err(format!(
                "smolv: {} names a dictionary exactly when its codec is not smolv-zstd-dictionary; rebuild",
                path.display()
            ));
        }
        let modules = json["modules"].as_array().cloned().unwrap_or_default();
        Ok(Self { packing, modules, dir })
    }

    /// Reads and checks the set's directory against the manifest's codec
    /// and the data's length.
    pub(crate) fn directory(&self) -> Result<check::Directory, String> {
        let directory = std::fs::read(&self.packing.directory)
            .map_err(|e| format!("smolv: cannot read {} ({e}); rebuild", self.packing.directory.display()))?;
        let data_len = std::fs::metadata(&self.packing.data)
            .map_err(|e| format!("smolv: cannot read {} ({e}); rebuild", self.packing.data.display()))?
            .len();
        check::directory(&directory, check::codec_byte(&self.packing.codec)?, data_len)
            .map_err(|why| format!("smolv: {} {why}; rebuild", self.packing.directory.display()))
    }

    /// The module named `name`, its files checked to exist; otherwise a
    /// message listing the closest names.
    pub(crate) fn module(&self, name: &str) -> Result<Module, String> {
        let Some(module) = self.modules.iter().find(|m| m["name"].as_str() == Some(name)) else {
            return Err(self.not_found(name));
        };
        let embedded = &module["embedded"];
        let module = Module {
            name: name.to_owned(),
            data: self.dir.join(text(&embedded["data"], "module data")?),
            unpacked_len: number(&embedded["unpacked_bytes"], "module unpacked size")?,
            spirv_len: number(&embedded["spirv_bytes"], "module SPIR-V size")?,
            check: u32::try_from(number(&embedded["check"], "module check")?)
                .map_err(|_| "smolv: a module check is not 32 bits; rebuild".to_owned())?,
        };
        if module.spirv_len < 20 || !module.spirv_len.is_multiple_of(4) {
            return Err(format!(
                "smolv: the manifest gives {name} a SPIR-V length that is not a whole module; rebuild"
            ));
        }
        std::fs::metadata(&module.data)
            .map_err(|e| format!("smolv: cannot read {} ({e}); rebuild", module.data.display()))?;
        Ok(module)
    }

    /// Where module `name` came from, for hot reload: its source file, the
    /// files it included, and its recipe as JSON. `None` for a manifest of
    /// a smolv-build that records no recipes.
    pub(crate) fn origin(&self, name: &str) -> Option<Origin> {
        let module = self.modules.iter().find(|m| m["name"].as_str() == Some(name))?;
        let recipe = &module["recipe"];
        let source = recipe["source"].as_str()?.to_owned();
        let includes = recipe["includes"].as_array()?.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect();
        Some(Origin { source, includes, recipe: serde_json::to_string(recipe).ok()? })
    }

    fn not_found(&self, name: &str) -> String {
        let mut scored: Vec<(usize, &str)> =
            self.modules.iter().filter_map(|m| m["name"].as_str()).map(|n| (strsim::levenshtein(name, n), n)).collect();
        scored.sort();
        let closest: Vec<String> = scored.iter().take(3).map(|(_, n)| format!("\"{n}\"")).collect();
        if closest.is_empty() {
            return format!("smolv: no shader named \"{name}\": smolv-build compiled no shaders");
        }
        format!(
            "smolv: no shader named \"{name}\"; did you mean {}? (names are paths below the shader directory, \
             plus @variant or #entry_point)",
            closest.join(" or ")
        )
    }
}
