//! What smolv does to the size of a binary, measured as a user would see
//! it: for each shader set, a small program outside the workspace embeds
//! the set with `include_shaders!` and smolv's defaults, and a second one
//! embeds the very same SPIR-V (what the first decodes to: optimized,
//! stripped) with plain `include_bytes!` and no smolv code at all. Both
//! are built with `cargo build --release`, `strip = true` and no LTO, and
//! both read every module's name and decode it (`Shader::name`,
//! `Shader::decode`, the API the README shows) and print a checksum of the
//! names and words, which must agree.
//!
//! The sets: Rock Storm's shaders (`example-game/shaders`), three small
//! sets of them (1, 2 and 7 modules, which ship raw SPIR-V), about 75 KB
//! of SPIR-V from the corpus (Unity's smallest modules), the whole corpus,
//! and the trees named in `SMOLV_SIZE_TREES`. Each must come out no larger
//! than raw installed, and no more than 32 B larger after `xz -9` under the
//! `download` goal. For each, the test prints
//!
//! ```text
//! binary size <set>: smolv A B, raw B B, difference D B, decoder N B
//! ```
//!
//! (the decoder being the difference less what the data itself saves), the
//! same after `xz -9` of both binaries for the default goal and for the
//! `download` goal, and what the decoder is made of, by crate.

use std::path::{Path, PathBuf};
use std::process::Command;

use smolv_tests::Corpus;

/// What a raw program's table holds per module besides the name and the
/// SPIR-V: a row of two slices (32 bytes) and the relocations of its two
/// pointers (24 bytes each in a position-independent x86-64 ELF).
const RAW_ROW: u64 = 32 + 2 * 24;

/// How much larger than raw a binary may come out after `xz -9`: xz's own
/// noise, as two programs that differ only in their code's layout compress
/// differently by a few bytes (issue 28).
const XZ_NOISE: i64 = 32;

/// The fixed cost the default decode path may add (issue 20).
const DECODER_BUDGET: i64 = 24 * 1024;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_owned()
}

fn scratch() -> PathBuf {
    workspace().join("target").join("binary-size")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Unchanged files keep their timestamps, so Cargo rebuilds nothing.
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The program that embeds a set through smolv. A module that fails to
/// decode ends it before it prints, which the test reports: handling the
/// error costs a branch, as the raw program's infallible copy costs none
/// (`std::process::exit` would add std's exit path, about 100–200 bytes
/// after xz, which is the program's choice rather than smolv's cost).
const SMOLV_MAIN: &str = r#"
smolv_runtime::include_shaders!(static SHADERS);

fn main() {
    let shaders = SHADERS.shaders();
    let mut sum = 0u64;
    for shader in shaders {
        for byte in shader.name().bytes() {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(byte));
        }
        #[allow(irrefutable_let_patterns)]
        let Ok(words) = shader.decode() else { return };
        for word in words {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(word));
        }
    }
    println!("{} {} {sum}", shaders.len(), SHADERS.stored_len());
}
"#;

/// The program that embeds the same SPIR-V raw: a table of names and
/// `include_bytes!`, copied into words as `ash::util::read_spv` would. Both
/// programs read every module's name and words into their checksum: a
/// program that never looked at the names would let the compiler drop a
/// small table's names, and smolv's code for finding them, which no
/// program that finds its shaders by name can.
fn raw_main(modules: &[(String, PathBuf)]) -> String {
    let mut table = String::from("static SHADERS: &[(&str, &[u8])] = &[\n");
    for (name, path) in modules {
        table.push_str(&format!("    ({name:?}, include_bytes!({:?})),\n", path.display().to_string()));
    }
    table.push_str("];\n");
    table
        + r#"
fn main() {
    let mut sum = 0u64;
    let mut stored = 0;
    for (name, bytes) in SHADERS {
        stored += name.len() + bytes.len();
        for byte in name.bytes() {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(byte));
        }
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for &word in &words {
            sum = sum.wrapping_mul(31).wrapping_add(u64::from(word));
        }
    }
    println!("{} {stored} {sum}", SHADERS.len());
}
"#
}

/// One shader set to measure.
struct Set {
    name: String,
    /// What the probe's `build.rs` passes to smolv-build after `Config::new()`.
    config: String,
}

fn probe_manifest(name: &str, dependencies: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n{dependencies}\n\
         [profile.release]\nstrip = true\n\n[workspace]\n"
    )
}

/// Runs cargo in `dir` with the shared target directory and cache.
fn cargo(dir: &Path, args: &[&str], envs: &[(&str, &str)]) {
    let output = Command::new(env!("CARGO"))
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", scratch().join("target"))
        .env("SMOLV_CACHE_DIR", scratch().join("smolv-cache"))
        .env_remove("OUT_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "cargo {args:?} in {} failed:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Builds `crate_name` in `dir` in release mode, runs it, and returns a
/// copy of the binary (named `copy`) and what it printed.
fn build_and_run(dir: &Path, crate_name: &str, copy: &str, envs: &[(&str, &str)]) -> (PathBuf, String) {
    cargo(dir, &["build", "--release", "--quiet"], envs);
    let binary = scratch().join("target/release").join(crate_name);
    let copy = scratch().join("binaries").join(copy);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&binary, &copy).unwrap();
    let output = Command::new(&copy).output().expect("run the probe");
    assert!(output.status.success(), "{} failed: {:?}", copy.display(), output.status);
    (copy, String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn xz_size(path: &Path) -> i64 {
    let output = Command::new("xz").args(["-9", "-c", "-k"]).arg(path).output().expect("xz (apt-get install xz-utils)");
    assert!(output.status.success());
    output.stdout.len() as i64
}

fn size(path: &Path) -> i64 {
    std::fs::metadata(path).unwrap().len() as i64
}

/// The manifest the probe's build wrote (the newest one of that crate).
fn probe_artifacts(crate_name: &str) -> PathBuf {
    let build = scratch().join("target/release/build");
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&build)
        .unwrap()
        .flatten()
        .filter(|e| {
            // `<crate>-<16 hex digits>`, and not another crate whose name
            // starts the same.
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix(&format!("{crate_name}-"))
                .is_some_and(|hash| hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()))
        })
        .map(|e| e.path().join("out/smolv"))
        .filter(|p| p.join("manifest.json").is_file())
        .map(|p| (std::fs::metadata(p.join("manifest.json")).unwrap().modified().unwrap(), p))
        .collect();
    found.sort();
    found.pop().expect("the probe's build wrote a manifest").1
}

/// Symbol bytes per crate that `smolv` has and `raw` has not (both built
/// without stripping), largest first.
fn cost_by_crate(smolv: &Path, raw: &Path) -> Vec<(String, i64)> {
    let symbols = |path: &Path| -> std::collections::HashMap<String, i64> {
        let output = Command::new("nm").args(["-S", "-C", "--size-sort"]).arg(path).output().expect("nm");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                let mut parts = line.splitn(4, ' ');
                let (_, size, _, name) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
                Some((name.to_owned(), i64::from_str_radix(size, 16).ok()?))
            })
            .collect()
    };
    let (with, without) = (symbols(smolv), symbols(raw));
    let mut groups: std::collections::BTreeMap<String, i64> = Default::default();
    for (name, size) in with.into_iter().filter(|(name, _)| !without.contains_key(name)) {
        let trimmed = name.trim_start_matches(['<', '&', '*', ' ']).trim_start_matches("dyn ");
        let group = trimmed.split("::").next().unwrap_or("?").split(['<', ' ', '(']).next().unwrap_or("?");
        let group = if group.starts_with("anon.") || group.is_empty() { "(data)" } else { group };
        *groups.entry(group.to_owned()).or_default() += size;
    }
    let mut groups: Vec<(String, i64)> = groups.into_iter().collect();
    groups.sort_by_key(|(_, size)| -size);
    groups
}

/// Fails unless the binary at `path` (not stripped) holds the decoders
/// `packing` needs and no others.
fn assert_links_only_its_decoders(path: &Path, packing: &str) {
    let output = Command::new("nm").args(["-C"]).arg(path).output().expect("nm");
    let symbols = String::from_utf8_lossy(&output.stdout);
    let has = |needle: &str| symbols.lines().any(|line| line.contains(needle));
    // lz4_flex's block decoder is inlined into smolv's LZ4 step, and the
    // conversion back from relative ids into its entry points.
    let lz4 = has("lz4_flex::") || has("smolv_runtime::embed::unpack::decompress_lz4");
    // The decoders are smolv-codec's; the runtime's embedding glue is its own.
    let (smolv, zstd) = (has("smolv_codec::smolv::decode::"), has("ZSTD_decompress"));
    let relative = [
        "smolv_codec::relative_ids::",
        "smolv_runtime::embed::relative_ids_",
        "smolv_runtime::embed::unpack::relative_ids_",
    ]
    .iter()
    .any(|path| has(path));
    let expected = match packing.split(' ').next().unwrap() {
        "spirv" => (false, false, false, false),
        "spirv-relative-ids" => (false, false, false, true),
        "spirv-relative-ids-lz4" => (false, true, false, true),
        "smolv" => (true, false, false, false),
        "smolv-lz4" => (true, true, false, false),
        _ => (true, false, true, false),
    };
    assert_eq!(
        (smolv, lz4, zstd, relative),
        expected,
        "{}: packed as {packing}, the binary links (SMOL-V decoder, lz4_flex, zstd, relative ids) = {:?}",
        path.display(),
        (smolv, lz4, zstd, relative)
    );
    println!(
        "  {}: packed as {packing}, links SMOL-V {smolv}, LZ4 {lz4}, zstd {zstd}, relative ids {relative}",
        path.display()
    );
}

struct Measured {
    spirv: i64,
    smolv: i64,
    raw: i64,
    decoder: i64,
    packing: String,
    smolv_xz: i64,
    raw_xz: i64,
    download_xz: i64,
    download_packing: String,
}

fn measure(set: &Set, by_crate: bool) -> Measured {
    let root = scratch().join(&set.name);
    let smolv_crate = format!("smolv-{}", set.name);
    let raw_crate = format!("raw-{}", set.name);
    let ws = workspace();
    let smolv_dir = root.join("smolv");
    write(
        &smolv_dir.join("Cargo.toml"),
        &probe_manifest(
            &smolv_crate,
            &format!(
                "[dependencies]\nsmolv-runtime = {{ path = {:?} }}\n\n[build-dependencies]\nsmolv-build = {{ path = {:?} }}\n",
                ws.join("smolv-runtime"),
                ws.join("smolv-build")
            ),
        ),
    );
    std::fs::copy(ws.join("Cargo.lock"), smolv_dir.join("Cargo.lock")).unwrap();
    write(
        &smolv_dir.join("build.rs"),
        &format!("fn main() {{\n    smolv_build::Config::new(){}.compile();\n}}\n", set.config),
    );
    write(&smolv_dir.join("src/main.rs"), SMOLV_MAIN);

    // The default goal, then the download goal.
    let (smolv, printed) = build_and_run(&smolv_dir, &smolv_crate, &format!("{}-smolv", set.name), &[]);
    let artifacts = probe_artifacts(&smolv_crate);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(artifacts.join("manifest.json")).unwrap()).unwrap();
    let embedded = &manifest["embedded"];
    let packing = format!("{} ({})", embedded["codec"].as_str().unwrap(), embedded["layout"].as_str().unwrap());

    // The raw program gets exactly what the smolv one decodes.
    let set_file = smolv_runtime::ShaderSet::open(artifacts.join("shaders.smvb")).unwrap();
    let spirv_dir = root.join("raw/spirv");
    let mut modules = Vec::new();
    let mut spirv = 0;
    // The linker keeps one copy of identical `include_bytes!` data.
    let mut distinct = std::collections::HashSet::new();
    let mut distinct_spirv = 0;
    for (index, shader) in set_file.iter().enumerate() {
        let words = shader.decode().unwrap();
        spirv += words.len() as i64 * 4;
        let path = spirv_dir.join(format!("{index}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if distinct.insert(bytes.clone()) {
            distinct_spirv += bytes.len() as i64;
        }
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            std::fs::create_dir_all(&spirv_dir).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
        modules.push((shader.name().to_owned(), path));
    }
    let raw_dir = root.join("raw");
    write(&raw_dir.join("Cargo.toml"), &probe_manifest(&raw_crate, ""));
    write(&raw_dir.join("src/main.rs"), &raw_main(&modules));
    let (raw, raw_printed) = build_and_run(&raw_dir, &raw_crate, &format!("{}-raw", set.name), &[]);

    let numbers = |printed: &str| -> Vec<u64> {
        let numbers: Vec<u64> = printed.split_whitespace().map(|n| n.parse().unwrap()).collect();
        assert_eq!(
            numbers.len(),
            3,
            "{}: a program printed {printed:?}, not its module count, size and checksum",
            set.name
        );
        numbers
    };
    let (smolv_numbers, raw_numbers) = (numbers(&printed), numbers(&raw_printed));
    assert_eq!(smolv_numbers[0], raw_numbers[0], "{}: both programs must hold the same modules", set.name);
    assert_eq!(smolv_numbers[2], raw_numbers[2], "{}: both programs must decode the same SPIR-V", set.name);
    // What each binary stores for its shaders: smolv's data, dictionary,
    // names and table; raw's SPIR-V (each distinct module once) and names,
    // plus a table row of two slices and their two relocations.
    let smolv_data = smolv_numbers[1] as i64;
    let raw_data = (raw_numbers[1] + RAW_ROW * raw_numbers[0]) as i64 - (spirv - distinct_spirv);
    let (smolv_size, raw_size) = (size(&smolv), size(&raw));
    let difference = smolv_size - raw_size;
    let decoder = difference - (smolv_data - raw_data);
    println!(
        "binary size {}: smolv {smolv_size} B, raw {raw_size} B, difference {difference} B, decoder {decoder} B \
         ({} modules, {spirv} B of SPIR-V packed as {packing} into {smolv_data} B)",
        set.name, smolv_numbers[0]
    );
    let (smolv_xz, raw_xz) = (xz_size(&smolv), xz_size(&raw));
    println!(
        "binary size {} after xz -9, default goal: smolv {smolv_xz} B, raw {raw_xz} B, difference {} B",
        set.name,
        smolv_xz - raw_xz
    );

    // Only the chosen packing's decoders are linked: look at the symbols of
    // an unstripped build of the same program.
    let unstripped = [("CARGO_PROFILE_RELEASE_STRIP", "false")];
    let (smolv_symbols, _) =
        build_and_run(&smolv_dir, &smolv_crate, &format!("{}-smolv-symbols", set.name), &unstripped);
    assert_links_only_its_decoders(&smolv_symbols, &packing);
    if set.name == "rock-storm" {
        // Whatever this set picks, each packing links only its decoders: a
        // raw set neither a decompressor nor the SMOL-V decoder, a SMOL-V
        // set no decompressor, an LZ4 set no zstd.
        for (forced, codec) in [("raw", "spirv"), ("smolv", "smolv"), ("lz4", "smolv-lz4")] {
            let env = [("CARGO_PROFILE_RELEASE_STRIP", "false"), ("SMOLV_PACKING", forced)];
            let (binary, printed) =
                build_and_run(&smolv_dir, &smolv_crate, &format!("{}-smolv-{forced}-symbols", set.name), &env);
            assert_eq!(numbers(&printed)[2], raw_numbers[2], "{}: packed as {forced}, other SPIR-V", set.name);
            assert_links_only_its_decoders(&binary, &format!("{codec} (module)"));
        }
    }

    if by_crate {
        let (raw_symbols, _) = build_and_run(&raw_dir, &raw_crate, &format!("{}-raw-symbols", set.name), &unstripped);
        let groups = cost_by_crate(&smolv_symbols, &raw_symbols);
        let listed: Vec<String> = groups.iter().take(8).map(|(group, size)| format!("{group} {size} B")).collect();
        println!("decoder code of {} by crate (symbols only): {}", set.name, listed.join(", "));
    }

    let download_env = [("SMOLV_SIZE_GOAL", "download")];
    let (download, download_printed) =
        build_and_run(&smolv_dir, &smolv_crate, &format!("{}-smolv-download", set.name), &download_env);
    let download_numbers = numbers(&download_printed);
    assert_eq!(
        (download_numbers[0], download_numbers[2]),
        (raw_numbers[0], raw_numbers[2]),
        "{}: the download goal's program must decode the same SPIR-V",
        set.name
    );
    let download_manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(probe_artifacts(&smolv_crate).join("manifest.json")).unwrap())
            .unwrap();
    let download_embedded = &download_manifest["embedded"];
    let download_packing =
        format!("{} ({})", download_embedded["codec"].as_str().unwrap(), download_embedded["layout"].as_str().unwrap());
    let download_xz = xz_size(&download);
    let download_symbols_env = [("SMOLV_SIZE_GOAL", "download"), ("CARGO_PROFILE_RELEASE_STRIP", "false")];
    let (download_symbols, _) =
        build_and_run(&smolv_dir, &smolv_crate, &format!("{}-smolv-download-symbols", set.name), &download_symbols_env);
    assert_links_only_its_decoders(&download_symbols, &download_packing);
    println!(
        "binary size {} after xz -9, download goal: smolv {download_xz} B, raw {raw_xz} B, difference {} B \
         (packed as {download_packing}; installed {} B)",
        set.name,
        download_xz - raw_xz,
        size(&download)
    );
    // Leave the probe built with the default goal, as the next run expects.
    cargo(&smolv_dir, &["build", "--release", "--quiet"], &[]);

    Measured {
        spirv,
        smolv: smolv_size,
        raw: raw_size,
        decoder,
        packing,
        smolv_xz,
        raw_xz,
        download_xz,
        download_packing,
    }
}

/// Copies corpus modules into `dir` as a set of `.spv` files: every module
/// under `group` (all of them for `None`), smallest first, until the
/// input reaches `limit` bytes. Returns how many.
fn corpus_subset(corpus: &Corpus, dir: &Path, group: Option<&str>, limit: u64) -> usize {
    let mut modules: Vec<(u64, String)> = corpus
        .spirv_modules()
        .into_iter()
        .filter(|m| group.is_none_or(|g| m.starts_with(&format!("{g}/"))))
        .map(|m| (std::fs::metadata(corpus.spirv_path(&m)).unwrap().len(), m))
        .collect();
    modules.sort();
    // A fresh copy, so that no module of an earlier selection stays.
    let _ = std::fs::remove_dir_all(dir);
    let mut total = 0;
    let mut count = 0;
    for (len, module) in modules {
        if total >= limit {
            break;
        }
        total += len;
        count += 1;
        let target = dir.join(&module);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(corpus.spirv_path(&module), &target).unwrap();
    }
    count
}

/// A set of some of Rock Storm's GLSL shaders (`files`, copied from
/// `example-game/shaders` into a fresh directory), with its include
/// directory, and `sprite.frag`'s variant where it is one of them.
fn game_subset(name: &str, files: &[&str]) -> Set {
    let game = workspace().join("example-game/shaders");
    let dir = scratch().join(name).join("shaders");
    // A fresh copy, so that no shader of an earlier selection stays.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for file in files {
        std::fs::copy(game.join(file), dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let mut config = format!(".shader_dir({dir:?}).include_dir({:?})", game.join("include"));
    if files.contains(&"sprite.frag") {
        config.push_str(
            ".variants(\"sprite.frag\", [smolv_build::Variant::new(\"additive\").define(\"ADDITIVE\", \"1\")])",
        );
    }
    Set { name: name.to_owned(), config }
}

/// Extra sets from `SMOLV_SIZE_TREES`: shader directories (GLSL, HLSL,
/// WGSL, Slang or `.spv`, as `Config::shader_dir` takes them) separated as
/// `PATH` is, each measured and held to the same promises as the sets
/// above. A tree whose shaders need include directories or defines can
/// name a file instead: the `Config` calls for it, as in `.shader_dir("…")`.
fn trees_of_your_own() -> Vec<Set> {
    let Some(trees) = smolv_tests::env_var_os("SMOLV_SIZE_TREES") else { return Vec::new() };
    std::env::split_paths(&trees)
        .filter(|tree| !tree.as_os_str().is_empty())
        .enumerate()
        .map(|(index, tree)| {
            let stem = tree.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let stem: String =
                stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
            let config = if tree.is_file() {
                std::fs::read_to_string(&tree).unwrap_or_else(|e| panic!("{}: {e}", tree.display())).trim().to_owned()
            } else {
                format!(".shader_dir({tree:?})")
            };
            Set { name: format!("tree{index}-{stem}"), config }
        })
        .collect()
}

#[test]
fn smolv_never_grows_a_binary_and_shrinks_larger_sets() {
    let ws = workspace();
    let game = ws.join("example-game/shaders");
    let mut sets = vec![Set {
        name: "rock-storm".to_owned(),
        config: format!(
            ".shader_dir({:?}).include_dir({:?}).variants(\"sprite.frag\", [smolv_build::Variant::new(\"additive\").define(\"ADDITIVE\", \"1\")])",
            game,
            game.join("include")
        ),
    }];
    // Small sets, which ship raw: smolv must add nothing to them that a
    // table of `include_bytes!` does not have (issue 28).
    sets.push(game_subset("game-1", &["particles.comp"]));
    sets.push(game_subset("game-2", &["fullscreen.vert", "post.frag"]));
    sets.push(game_subset(
        "game-7",
        &["fullscreen.vert", "particle.vert", "particles.comp", "post.frag", "sprite.frag", "sprite.vert"],
    ));
    if let Some(corpus) = Corpus::locate() {
        // Unity's smallest modules: about 75 KB of SPIR-V once built.
        let subset = scratch().join("corpus-75k/shaders");
        assert!(corpus_subset(&corpus, &subset, Some("unity"), 88_000) >= 10);
        sets.push(Set { name: "corpus-75k".to_owned(), config: format!(".shader_dir({subset:?})") });
        let all = scratch().join("corpus/shaders");
        corpus_subset(&corpus, &all, None, u64::MAX);
        sets.push(Set { name: "corpus".to_owned(), config: format!(".shader_dir({all:?})") });
    }
    sets.extend(trees_of_your_own());

    let mut failures = Vec::new();
    for set in &sets {
        let m = measure(set, set.name == "corpus-75k");
        let saved = m.raw - m.smolv;
        println!(
            "  {}: {:.1}% of the SPIR-V saved ({saved} B), packed as {}; download goal packs as {}",
            set.name,
            100.0 * saved as f64 / m.spirv as f64,
            m.packing,
            m.download_packing
        );
        if m.smolv > m.raw {
            failures.push(format!("{}: the smolv binary is {} B larger than raw", set.name, m.smolv - m.raw));
        }
        // The download goal must never download more than the default one,
        // nor more than plain `include_bytes!` (issue 20).
        if m.download_xz > m.smolv_xz {
            failures.push(format!("{}: the download goal downloads more than the default goal", set.name));
        }
        if m.download_xz > m.raw_xz + XZ_NOISE {
            failures.push(format!(
                "{}: with the download goal, the binary is {} B larger than raw after xz -9",
                set.name,
                m.download_xz - m.raw_xz
            ));
        }
        // The default path (SMOL-V or relative ids, LZ4, the check and the
        // glue) has a budget; zstd is chosen only where its larger decoder
        // pays for itself.
        let default_path = ["smolv (", "smolv-lz4", "spirv-relative-ids"].iter().any(|p| m.packing.starts_with(p));
        if default_path && m.decoder > DECODER_BUDGET {
            failures.push(format!("{}: the decoder costs {} B, over {DECODER_BUDGET} B", set.name, m.decoder));
        }
        if set.name == "corpus-75k" && saved < 30_000.max(m.spirv * 2 / 5) {
            failures
                .push(format!("{}: only {saved} B smaller than raw (goal: 40% of {} B and 30 KB)", set.name, m.spirv));
        }
        if set.name == "corpus" && saved < m.spirv * 3 / 4 {
            failures.push(format!("{}: only {saved} B smaller than raw (goal: 75% of {} B)", set.name, m.spirv));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- wgpu targets (issue 31, item 3) ----
//
// For a game that draws through wgpu, the build can ship WGSL (the game
// links naga's WGSL front end, wgpu's default `wgsl` feature) or SPIR-V
// (naga's SPIR-V front end, wgpu's `spirv` feature). A small wgpu program
// embeds each set both ways, and each is built as a stripped release
// binary: WGSL (`SMOLV_TARGET=wgpu-wgsl`) with wgpu's `wgsl` feature, and
// its `spirv` feature too where naga refused a shader (which then ships as
// SPIR-V), against SPIR-V (`wgpu-spirv`) with `spirv` alone. The test
// prints
//
// ```text
// wgpu <set>: wgsl+naga-wgsl A B, spirv+naga-spv B B, chosen X
// ```
//
// where X is what `Config::for_wgpu` ships by the cost table, and fails if X
// is the larger binary by more than `WGPU_SLACK`. The two wgpu builds
// (one per feature set) share the size test's target directory: about
// 300 MB of it and two release builds of wgpu on a cold cache (18 minutes
// on a loaded 2-core machine), then a link per set and path.

/// How much larger than the other path the chosen one may come out: the
/// cost table's figures are estimates a little above what they measure.
const WGPU_SLACK: i64 = 4_096;

/// The wgpu program: makes a shader module of every shader of the set,
/// from its WGSL where the build shipped WGSL, else from its SPIR-V.
/// Without an adapter it makes none; with one (lavapipe), it makes them
/// on a device with every feature the adapter has, and prints how many the
/// device refused. The binary's size is what is measured.
const WGPU_MAIN: &str = r#"
use std::future::Future;
use std::task::{Context, Poll, Waker};

smolv_runtime::include_shaders!(static SHADERS);

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}

/// The shader as wgpu takes it; `None` for SPIR-V without the `spirv`
/// feature (the test then builds again with it).
fn source(shader: &smolv_runtime::Shader) -> Option<wgpu::ShaderSource<'_>> {
    #[cfg(feature = "wgsl")]
    if let Some(text) = shader.wgsl().expect("wgsl") {
        return Some(wgpu::ShaderSource::Wgsl(text));
    }
    #[cfg(feature = "spirv")]
    return Some(wgpu::ShaderSource::SpirV(shader.decode().expect("decode").into()));
    #[cfg(not(feature = "spirv"))]
    None
}

fn main() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()));
    // Every feature the adapter has (push constants among them), so that
    // what the shaders use is there where the adapter has it.
    let device = adapter.ok().and_then(|a| {
        let descriptor = wgpu::DeviceDescriptor {
            required_features: a.features(),
            required_limits: a.limits(),
            ..Default::default()
        };
        block_on(a.request_device(&descriptor)).ok()
    });
    // A shader the device cannot take is counted, not fatal: the binary's
    // size is what is measured.
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    if let Some((device, _)) = &device {
        let count = refused.clone();
        device.on_uncaptured_error(std::sync::Arc::new(move |error| {
            eprintln!("{error}");
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }));
    }
    let mut made = 0;
    for shader in SHADERS.shaders() {
        let Some(source) = source(shader) else { continue };
        if let Some((device, _)) = &device {
            device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(shader.name()), source });
            made += 1;
        }
    }
    let refused = refused.load(std::sync::atomic::Ordering::Relaxed);
    println!("{} shaders, {made} modules, {refused} refused by the device", SHADERS.shaders().len());
}
"#;

/// One wgpu probe of `set`, shipping what `target` says, built with
/// wgpu's `features`: the binary's size, and the build's report.
fn wgpu_probe(set: &Set, target: &str, features: &str) -> (i64, serde_json::Value) {
    let crate_name = format!("wgpu-{}", set.name);
    let dir = scratch().join("wgpu").join(&set.name);
    let ws = workspace();
    write(
        &dir.join("Cargo.toml"),
        &probe_manifest(
            &crate_name,
            &format!(
                "[dependencies]\nsmolv-runtime = {{ path = {:?} }}\nwgpu = {{ version = \"=30.0.2\", default-features = false, features = [\"std\", \"vulkan\"] }}\n\n\
                 [build-dependencies]\nsmolv-build = {{ path = {:?}, features = [\"wgpu\"] }}\n\n\
                 [features]\nwgsl = [\"wgpu/wgsl\"]\nspirv = [\"wgpu/spirv\"]\n",
                ws.join("smolv-runtime"),
                ws.join("smolv-build")
            ),
        ),
    );
    // The report of each target, where the test finds it whichever build
    // directory Cargo used for the features.
    write(
        &dir.join("build.rs"),
        &format!(
            "fn main() {{\n    let report = smolv_build::Config::new(){}.compile();\n    \
             let target = std::env::var(\"SMOLV_TARGET\").unwrap_or_default();\n    \
             std::fs::write(format!(\"{{}}/report-{{target}}.json\", env!(\"CARGO_MANIFEST_DIR\")), report.to_json()).unwrap();\n}}\n",
            set.config
        ),
    );
    write(&dir.join("src/main.rs"), WGPU_MAIN);
    cargo(&dir, &["build", "--release", "--quiet", "--features", features], &[("SMOLV_TARGET", target)]);
    let binary = scratch().join("target/release").join(&crate_name);
    let printed = Command::new(&binary).output().expect("run the wgpu probe");
    assert!(printed.status.success(), "{} {target} failed: {printed:?}", binary.display());
    println!("  {} ({target}, {features}): {}", set.name, String::from_utf8_lossy(&printed.stdout).trim());
    let report = dir.join(format!("report-{target}.json"));
    let report = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    (size(&binary), report)
}

#[test]
fn wgpu_targets_ship_the_smaller_of_wgsl_and_spirv() {
    let game = workspace().join("example-game/shaders");
    let mut sets = vec![Set {
        name: "rock-storm".to_owned(),
        config: format!(".shader_dir({:?}).include_dir({:?})", game, game.join("include")),
    }];
    sets.extend(trees_of_your_own());
    let mut failures = Vec::new();
    for set in &sets {
        let (mut wgsl, report) = wgpu_probe(set, "wgpu-wgsl", "wgsl");
        let wgpu = &report["wgpu"];
        let refused = wgpu["refused_modules"].as_u64().unwrap();
        if refused > 0 {
            // The shaders naga refused ship as SPIR-V: the game needs both.
            wgsl = wgpu_probe(set, "wgpu-wgsl", "wgsl,spirv").0;
        }
        let (spirv, _) = wgpu_probe(set, "wgpu-spirv", "spirv");
        let by_table = wgpu["wgsl_estimated_bytes"].as_u64().unwrap() < wgpu["spirv_estimated_bytes"].as_u64().unwrap();
        let chosen = if by_table { "wgsl" } else { "spirv" };
        println!("wgpu {}: wgsl+naga-wgsl {wgsl} B, spirv+naga-spv {spirv} B, chosen {chosen}", set.name);
        println!(
            "  {}: {} B of minified WGSL stored as {} B ({}), {refused} shaders as SPIR-V; cost table: wgsl {} B, spirv {} B",
            set.name,
            wgpu["wgsl_bytes"],
            wgpu["wgsl_stored_bytes"],
            wgpu["wgsl_codec"].as_str().unwrap(),
            wgpu["wgsl_estimated_bytes"],
            wgpu["spirv_estimated_bytes"]
        );
        let (chosen_size, other) = if by_table { (wgsl, spirv) } else { (spirv, wgsl) };
        if chosen_size > other + WGPU_SLACK {
            failures.push(format!(
                "{}: the cost table chose {chosen}, {} B larger than the other path",
                set.name,
                chosen_size - other
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
