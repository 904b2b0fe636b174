//! Reading what smolv-build wrote to `OUT_DIR`.

use std::path::PathBuf;

/// The parts of `OUT_DIR/smolv/manifest.json` the macros need.
pub(crate) struct Manifest {
    pub(crate) dir: PathBuf,
    pub(crate) bundle: PathBuf,
    pub(crate) dictionary: Option<PathBuf>,
    modules: Vec<(String, String)>,
}

/// One module to embed.
pub(crate) struct Module {
    pub(crate) name: String,
    pub(crate) artifact_path: PathBuf,
}

impl Manifest {
    /// Loads the manifest of the crate being compiled.
    pub(crate) fn load() -> Result<Self, String> {
        let out_dir = std::env::var_os("OUT_DIR").ok_or(
            "smolv: OUT_DIR is not set; add a build.rs that runs smolv_build::Config::new().shader_dir(\"shaders\").compile()",
        )?;
        let dir = PathBuf::from(out_dir).join("smolv");
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!("smolv: cannot read {} ({e}); does build.rs run smolv_build, and did it succeed?", path.display())
        })?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("smolv: {} is not valid JSON: {e}; rebuild", path.display()))?;
        if json["format"] != 1 {
            return Err(format!(
                "smolv: {} has manifest format {}, this smolv-macros reads 1; use matching smolv-build and smolv-runtime versions",
                path.display(),
                json["format"]
            ));
        }
        let text_field = |value: &serde_json::Value| value.as_str().map(str::to_owned);
        let modules = json["modules"]
            .as_array()
            .map(|modules| {
                modules.iter().filter_map(|m| Some((text_field(&m["name"])?, text_field(&m["artifact"])?))).collect()
            })
            .unwrap_or_default();
        let bundle = dir.join(text_field(&json["bundle"]).ok_or("smolv: the manifest names no bundle; rebuild")?);
        let dictionary = text_field(&json["dictionary"]).map(|d| dir.join(d));
        Ok(Self { dir, bundle, dictionary, modules })
    }

    /// The module named `name`, checked to exist on disk and to look like
    /// a container; otherwise a message listing the closest names.
    pub(crate) fn module(&self, name: &str) -> Result<Module, String> {
        let Some((name, artifact)) = self.modules.iter().find(|(n, _)| n == name) else {
            return Err(self.not_found(name));
        };
        let artifact_path = self.dir.join(artifact);
        let bytes = std::fs::read(&artifact_path)
            .map_err(|e| format!("smolv: cannot read {} ({e}); rebuild", artifact_path.display()))?;
        check_container(&bytes).map_err(|why| format!("smolv: {} {why}; rebuild", artifact_path.display()))?;
        Ok(Module { name: name.clone(), artifact_path })
    }

    fn not_found(&self, name: &str) -> String {
        let mut scored: Vec<(usize, &str)> =
            self.modules.iter().map(|(n, _)| (strsim::levenshtein(name, n), n.as_str())).collect();
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

/// The container header checks `Container::parse` makes, so a damaged
/// artifact fails the build instead of the program.
fn check_container(bytes: &[u8]) -> Result<(), &'static str> {
    if bytes.len() < 56 || &bytes[..4] != b"SMVC" {
        return Err("is not a smolv shader container");
    }
    if bytes[4] != 1 {
        return Err("has a container format this smolv-macros does not read");
    }
    let u32_at = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
    let payload_at = (56 + u32_at(48)).next_multiple_of(4);
    if payload_at + u32_at(52) != bytes.len() {
        return Err("is truncated or corrupt");
    }
    Ok(())
}
