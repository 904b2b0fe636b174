//! Reading and checking what smolv-build wrote to `OUT_DIR` (`docs/format.md`, manifest format 2).

use std::path::PathBuf;

use serde_json::Value;
use serde_json::value::RawValue;
use smolv_format::{Codec, MANIFEST_FILE, MANIFEST_FORMAT, ManifestEmbeddedModule};

use crate::check;

/// How the set was packed: the codec names the unpacker to link.
pub(crate) struct Packing {
    pub(crate) codec: Codec,
    pub(crate) directory: PathBuf,
    pub(crate) data: PathBuf,
    pub(crate) dictionary: Option<PathBuf>,
    /// The size goal the packing was chosen for: `installed` or `download`.
    pub(crate) goal: String,
    /// What the build report counts as stored (`ShaderSet::stored_len`).
    pub(crate) stored_bytes: usize,
}

/// The WGSL a build for wgpu shipped: its stream and each module's place.
pub(crate) struct Wgsl {
    pub(crate) codec: smolv_format::WgslCodec,
    pub(crate) data: PathBuf,
    pub(crate) unpacked_len: usize,
    pub(crate) check: u32,
    /// `(name, its own text file, offset, length)`, sorted by name.
    pub(crate) modules: Vec<(String, PathBuf, usize, usize)>,
}

/// Where a module came from (the manifest's recipe), for hot reload.
pub(crate) struct Origin {
    pub(crate) source: String,
    pub(crate) includes: Vec<String>,
    pub(crate) recipe: String,
}

/// The manifest as the macros read it: recipes as JSON text, the rest of each module skipped
/// unparsed (this runs unoptimized on every build).
#[derive(Debug, serde::Deserialize)]
struct Typed {
    format: u32,
    embedded: smolv_format::ManifestEmbeddedSet,
    modules: Vec<TypedModule>,
    #[serde(default)]
    wgsl: Option<smolv_format::ManifestWgsl>,
}

/// What the macros read of a module (`smolv_format::ManifestModule`).
#[derive(Debug, serde::Deserialize)]
struct TypedModule {
    name: String,
    #[serde(default)]
    recipe: Option<Box<RawValue>>,
    embedded: ManifestEmbeddedModule,
}

/// `OUT_DIR/smolv/manifest.json`, as the macros read it.
pub(crate) struct Manifest {
    pub(crate) packing: Packing,
    /// What shipped as WGSL, for a build for wgpu that chose it.
    pub(crate) wgsl: Option<Wgsl>,
    manifest: Typed,
    dir: PathBuf,
}

impl Manifest {
    /// Loads the manifest of the crate being compiled, and checks its embedded set.
    pub(crate) fn load() -> Result<Self, String> {
        let dir = super::artifact_dir()?;
        let path = dir.join(MANIFEST_FILE);
        let text_of_file = std::fs::read_to_string(&path).map_err(|e| {
            format!("smolv: cannot read {} ({e}); does build.rs run smolv_build, and did it succeed?", path.display())
        })?;
        let manifest: Typed =
            serde_json::from_str(&text_of_file).map_err(|e| Self::unreadable(&path, &text_of_file, &e))?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(Self::other_format(&path, manifest.format));
        }
        let embedded = &manifest.embedded;
        let packing = Packing {
            codec: embedded.codec,
            directory: dir.join(&embedded.directory),
            data: dir.join(&embedded.data),
            dictionary: embedded.dictionary.as_ref().map(|d| dir.join(d)),
            goal: embedded.goal.clone(),
            stored_bytes: embedded.stored_bytes,
        };
        if packing.dictionary.is_some() != (packing.codec == Codec::SmolvZstdDictionary) {
            return Err(format!(
                "smolv: {} names a dictionary exactly when its codec is not smolv-zstd-dictionary; rebuild",
                path.display()
            ));
        }
        let wgsl = manifest
            .wgsl
            .as_ref()
            .map(|wgsl| Wgsl::checked(wgsl, &dir).map_err(|why| format!("smolv: {} {why}; rebuild", path.display())))
            .transpose()?;
        Ok(Self { packing, wgsl, manifest, dir })
    }

    /// Why `text` (the manifest at `path`) did not parse: another format first, rather than
    /// the field it lacks.
    fn unreadable(path: &std::path::Path, text: &str, error: &serde_json::Error) -> String {
        let Ok(json) = serde_json::from_str::<Value>(text) else {
            return format!("smolv: {} is not valid JSON: {error}; rebuild", path.display());
        };
        match json["format"].as_u64() {
            Some(format) if format != u64::from(MANIFEST_FORMAT) => Self::other_format(path, format),
            None => Self::other_format(path, json["format"].clone()),
            Some(_) => format!(
                "smolv: {} is not a manifest this smolv-macros reads ({error}); use matching smolv-build and \
                 smolv-runtime versions, and rebuild",
                path.display()
            ),
        }
    }

    fn other_format(path: &std::path::Path, format: impl std::fmt::Display) -> String {
        format!(
            "smolv: {} has manifest format {format}, this smolv-macros reads {MANIFEST_FORMAT}; use matching \
             smolv-build and smolv-runtime versions",
            path.display()
        )
    }

    /// Reads and checks the set's directory against the codec and the data's length.
    pub(crate) fn directory(&self) -> Result<check::Directory, String> {
        let directory = read(&self.packing.directory, std::fs::read(&self.packing.directory))?;
        let data_len = file_len(&self.packing.data)?;
        check::directory(&directory, self.packing.codec, data_len)
            .map_err(|why| format!("smolv: {} {why}; rebuild", self.packing.directory.display()))
    }

    /// The module named `name` and the path of its data, checked to exist, or a message listing the closest names.
    pub(crate) fn module(&self, name: &str) -> Result<(PathBuf, &ManifestEmbeddedModule), String> {
        let Some(module) = self.manifest.modules.iter().find(|m| m.name == name) else {
            return Err(self.not_found(name));
        };
        let embedded = &module.embedded;
        if embedded.spirv_bytes < 20 || !embedded.spirv_bytes.is_multiple_of(4) {
            return Err(format!(
                "smolv: the manifest gives {name} a SPIR-V length that is not a whole module; rebuild"
            ));
        }
        let data = self.dir.join(&embedded.data);
        file_len(&data)?;
        Ok((data, embedded))
    }

    /// Where module `name` came from, for hot reload; `None` where the manifest has no recipe.
    pub(crate) fn origin(&self, name: &str) -> Option<Origin> {
        let module = self.manifest.modules.iter().find(|m| m.name == name)?;
        let recipe = module.recipe.as_ref()?;
        let known: smolv_format::ManifestRecipe = serde_json::from_str(recipe.get()).ok()?;
        let source = known.source.to_str()?.to_owned();
        let includes = known.includes.iter().filter_map(|i| i.to_str().map(str::to_owned)).collect();
        Some(Origin { source, includes, recipe: recipe.get().to_owned() })
    }

    /// The text file of module `name`, if the build shipped it as WGSL.
    pub(crate) fn wgsl_text(&self, name: &str) -> Option<&std::path::Path> {
        let wgsl = self.wgsl.as_ref()?;
        wgsl.modules.iter().find(|m| m.0 == name).map(|m| m.1.as_path())
    }

    fn not_found(&self, name: &str) -> String {
        let mut scored: Vec<(usize, &str)> =
            self.manifest.modules.iter().map(|m| (strsim::levenshtein(name, &m.name), m.name.as_str())).collect();
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

/// `result` of reading `path`, its error saying to rebuild.
fn read<T>(path: &std::path::Path, result: std::io::Result<T>) -> Result<T, String> {
    result.map_err(|e| format!("smolv: cannot read {} ({e}); rebuild", path.display()))
}

/// The length of the file at `path`.
pub(crate) fn file_len(path: &std::path::Path) -> Result<u64, String> {
    read(path, std::fs::metadata(path)).map(|metadata| metadata.len())
}

impl Wgsl {
    /// The manifest's WGSL part, with paths under `dir`, checked (stream, ranges, sorted names).
    fn checked(wgsl: &smolv_format::ManifestWgsl, dir: &std::path::Path) -> Result<Self, String> {
        let data = dir.join(&wgsl.data);
        std::fs::metadata(&data).map_err(|e| format!("names {} ({e})", data.display()))?;
        let mut modules = Vec::with_capacity(wgsl.modules.len());
        for module in &wgsl.modules {
            if module.offset.checked_add(module.len).is_none_or(|end| end > wgsl.unpacked_bytes) {
                return Err(format!("puts {} outside its WGSL", module.name));
            }
            modules.push((module.name.clone(), dir.join(&module.text), module.offset, module.len));
        }
        if !modules.windows(2).all(|pair| pair[0].0 < pair[1].0) {
            return Err("lists WGSL modules out of order".to_owned());
        }
        Ok(Self { codec: wgsl.codec, data, unpacked_len: wgsl.unpacked_bytes, check: wgsl.check, modules })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> String {
        let error = serde_json::from_str::<Typed>(text).expect_err("not a whole manifest");
        Manifest::unreadable(std::path::Path::new("out/smolv/manifest.json"), text, &error)
    }

    #[test]
    fn a_module_s_origin_is_its_recipe_as_the_build_wrote_it() {
        let recipe = r#"{"name":"lit.frag","root":"shaders","source":"shaders/lit.frag","includes":["shaders/common.glsl"],"job":{"defines":[["A","1"]]},"settings":{"target_env":"Vulkan1_0"}}"#;
        let text = format!(
            r#"{{"format":{MANIFEST_FORMAT},"embedded":{{"codec":"spirv","layout":"module","goal":"installed",
                "directory":"embedded/set.smvd","data":"embedded/set.data","dictionary":null,"spirv_bytes":0,
                "stored_bytes":0,"decoder_bytes":0}},
              "modules":[{{"name":"lit.frag","recipe":{recipe},"reflection":{{"not":"read"}},
                "embedded":{{"data":"embedded/modules/0000-lit.frag.data","unpacked_bytes":20,"spirv_bytes":20,"check":0}}}},
                {{"name":"old.frag","embedded":{{"data":"x","unpacked_bytes":20,"spirv_bytes":20,"check":0}}}}]}}"#
        );
        let typed: Typed = serde_json::from_str(&text).unwrap();
        let packing = Packing {
            codec: typed.embedded.codec,
            directory: PathBuf::new(),
            data: PathBuf::new(),
            dictionary: None,
            goal: typed.embedded.goal.clone(),
            stored_bytes: 0,
        };
        let manifest = Manifest { packing, wgsl: None, manifest: typed, dir: PathBuf::from("out/smolv") };
        let origin = manifest.origin("lit.frag").unwrap();
        assert_eq!(origin.source, "shaders/lit.frag");
        assert_eq!(origin.includes, ["shaders/common.glsl"]);
        // Embedded whole, fields the macros do not know included, for
        // smolv-build's `ShaderRecipe::from_json` in hot reload.
        assert_eq!(origin.recipe, recipe);
        assert!(manifest.origin("old.frag").is_none(), "a module without a recipe has no origin");
        assert!(manifest.origin("missing.frag").is_none());
    }

    #[test]
    fn an_unreadable_manifest_says_why_format_first() {
        assert!(why("{").contains("manifest.json is not valid JSON"), "{}", why("{"));
        let older = why(r#"{"format": 1, "modules": []}"#);
        assert!(older.contains("has manifest format 1, this smolv-macros reads 2"), "{older}");
        let unnumbered = why(r#"{"modules": []}"#);
        assert!(unnumbered.contains("has manifest format null"), "{unnumbered}");
        let partial = why(&format!(r#"{{"format": {MANIFEST_FORMAT}, "modules": []}}"#));
        assert!(partial.contains("is not a manifest this smolv-macros reads (missing field"), "{partial}");
    }
}
