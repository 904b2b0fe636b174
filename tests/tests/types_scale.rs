//! The generated types at scale: every module of a real shader tree gets
//! its types, and they compile in a user's crate with `-D warnings`.
//!
//! The sets: the example game's shaders always, and each tree named in
//! `SMOLV_TYPES_TREES` (directories separated as `PATH` is; a file
//! instead holds the `Config` calls for its tree, as `SMOLV_SIZE_TREES`
//! takes them). Each set prints
//! `types <set>: N modules, B blocks, S structs, generated in T ms (cold build C ms), 0 warnings`
//! and every block member that could not be typed, with why; generating
//! must take at most 5% of the cold build.

use std::path::Path;

use smolv_tests::outside::{self, workspace, write};

struct Set {
    name: String,
    /// The `Config` calls that build it, after `Config::new()`.
    config: String,
}

fn sets() -> Vec<Set> {
    let game = workspace().join("example-game/shaders");
    let mut sets = vec![Set {
        name: "rock-storm".to_owned(),
        config: format!(
            ".shader_dir({:?}).include_dir({:?}).variants(\"sprite.frag\", [smolv_build::Variant::new(\"additive\").define(\"ADDITIVE\", \"1\")])",
            game,
            game.join("include")
        ),
    }];
    let Some(trees) = smolv_tests::env_var_os("SMOLV_TYPES_TREES") else { return sets };
    for (index, tree) in std::env::split_paths(&trees).filter(|t| !t.as_os_str().is_empty()).enumerate() {
        let stem = tree.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let config = if tree.is_file() {
            std::fs::read_to_string(&tree).unwrap_or_else(|e| panic!("{}: {e}", tree.display())).trim().to_owned()
        } else {
            format!(".shader_dir({tree:?})")
        };
        sets.push(Set { name: format!("tree{index}-{stem}"), config });
    }
    sets
}

/// The build script: builds the set, then writes what the types report
/// says, and how long the cold build took, to `SMOLV_TYPES_STATS`.
fn build_script(config: &str) -> String {
    format!(
        "fn main() {{\n    let started = std::time::Instant::now();\n    \
         let report = smolv_build::Config::new(){config}.compile();\n    \
         let cold = started.elapsed().as_secs_f64() * 1000.0;\n    \
         let types = report.types.expect(\"the build generates types\");\n    \
         let mut text = format!(\"{{}} {{}} {{}} {{}} {{cold}}\\n\", types.modules, types.blocks, types.structs, types.milliseconds);\n    \
         for problem in &types.problems {{ text.push_str(problem); text.push('\\n'); }}\n    \
         std::fs::write(std::env::var(\"SMOLV_TYPES_STATS\").unwrap(), text).unwrap();\n}}\n"
    )
}

fn measure(set: &Set, root: &Path) {
    let ws = workspace();
    outside::create(
        root,
        &format!(
            "[package]\nname = \"smolv-types-scale\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {:?} }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {:?} }}\n\n[workspace]\n",
            ws.join("smolv-runtime"),
            ws.join("smolv-build")
        ),
    );
    write(&root.join("build.rs"), &build_script(&set.config));
    // A library: its public items are its API, never dead code.
    write(&root.join("src/lib.rs"), "#![deny(warnings)]\nsmolv_runtime::include_types!();\n");
    let stats = root.join("stats.txt");
    let output = outside::output(outside::cargo(root, &["build", "--lib"]).env("SMOLV_TYPES_STATS", &stats));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: the generated types must compile with -D warnings:\n{stderr}", set.name);
    let warnings = stderr.lines().filter(|l| l.starts_with("warning") && !l.contains("smolv-types-scale@")).count();
    assert_eq!(warnings, 0, "{}: rustc warned:\n{stderr}", set.name);
    let text = std::fs::read_to_string(&stats).unwrap();
    let mut lines = text.lines();
    let numbers: Vec<f64> =
        lines.next().unwrap().split(' ').map(|n| n.parse().unwrap_or_else(|e| panic!("{n}: {e}"))).collect();
    let [modules, blocks, structs, generated, cold] = numbers[..] else { panic!("stats: {text}") };
    println!(
        "types {}: {modules} modules, {blocks} blocks, {structs} structs, generated in {generated:.1} ms \
         (cold build {cold:.0} ms), {warnings} warnings",
        set.name
    );
    for problem in lines {
        println!("  cannot type: {problem}");
    }
    assert!(modules > 0.0, "{}: no modules", set.name);
    assert!(generated <= cold * 0.05, "{}: generating types took {generated} ms, over 5% of {cold} ms", set.name);
}

#[test]
fn every_modules_types_compile_without_a_warning_and_generate_in_under_5_percent_of_the_build() {
    for set in sets() {
        let dir = tempfile::tempdir().unwrap();
        measure(&set, dir.path());
    }
}
