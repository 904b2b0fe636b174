//! The layout is the architecture: smolv-build's modules are grouped by
//! the stage of the data flow they belong to, and no module imports from
//! a later stage. This test reads `src/` and fails on every `crate::` path
//! that reaches up, naming the file and the import.
//!
//! Stages, in order: what to build (`options`, `settings`) → `source` →
//! `compile` → `pack` → `output`. The build `cache` (with the remote cache
//! inside it), `error`, `env` (the one reader of the environment) and
//! `tokens` (the build's threads, on Cargo's jobserver) are leaves every
//! stage may use, and which use no stage. The driver (`config`, `run` and
//! the crate root) may use everything.
//!
//! The stages return data and the output stage writes it: no other stage
//! reads where `OUT_DIR` is, nor prints to the standard output Cargo reads
//! directives from.

use std::path::{Path, PathBuf};

/// The rank of a top-level module: a module may import its own rank and
/// lower ones.
fn rank_of_module(name: &str) -> Option<(u8, &'static str)> {
    Some(match name {
        "error" | "cache" | "env" | "tokens" => (0, "a leaf"),
        "options" | "settings" => (1, "what to build"),
        "source" => (2, "source"),
        "compile" => (3, "compile"),
        "pack" => (4, "pack"),
        "output" => (5, "output"),
        "config" | "run" | "lib" => (6, "the driver"),
        _ => return None,
    })
}

/// The top-level module a file under `src/` belongs to.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
    first.trim_end_matches(".rs").to_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments (doc links name root items
/// for readers, not imports) and without its unit tests, which may drive
/// the whole build (`crate::Config`) to check one stage.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    let text = text.split("#[cfg(test)]\npub(crate) mod tests").next().unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment after each `crate::` in `code`, with the path as
/// written; a `crate::{a, b::c}` group gives each of its items.
fn crate_paths(code: &str) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `smolv_build::…`-like paths of another crate end in `_crate::`.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let mut item = String::new();
            let mut depth = 0;
            for c in group[..end].chars().chain([',']) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let item_text = std::mem::take(&mut item);
                        let item_text = item_text.trim();
                        if !item_text.is_empty() {
                            let first = item_text.split("::").next().unwrap_or_default().trim().to_owned();
                            paths.push((first, format!("crate::{{{item_text}}}")));
                        }
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
        } else {
            let path: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            let first = path.split("::").next().unwrap_or_default().to_owned();
            paths.push((first, format!("crate::{path}")));
        }
    }
    paths
}

#[test]
fn no_module_imports_from_a_later_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "found only {} files under {}", files.len(), src.display());
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        let Some((rank, stage)) = rank_of_module(&module) else {
            violations.push(format!(
                "src/{}: module `{module}` has no stage; add it to rank_of_module in tests/stages.rs",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (target, path) in crate_paths(&code(&text)) {
            // A root item (`crate::Config`) is the driver's: import it from
            // the module that defines it.
            let (target_rank, target_stage) = rank_of_module(&target).unwrap_or((6, "the crate root"));
            let leaf_reaching_out = rank == 0 && target_rank > 0;
            if target_rank > rank || leaf_reaching_out {
                violations
                    .push(format!("src/{}: `{path}` reaches from {stage} up to {target_stage}", relative.display()));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the stage order (what to build → source → compile → pack → output; cache, error, env \
         and tokens are leaves):\n{}",
        violations.join("\n")
    );
}

/// Each file under `src/` with its top-level module and its code (see
/// [`code`]).
fn sources() -> Vec<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "found only {} files under {}", files.len(), src.display());
    files
        .iter()
        .map(|file| {
            let relative = file.strip_prefix(&src).unwrap();
            let text = std::fs::read_to_string(file).unwrap();
            (format!("src/{}", relative.display()), module_of(relative), code(&text))
        })
        .collect()
}

/// Whether `code` prints to the standard output (`print!`, `println!`;
/// not `eprintln!`).
fn prints_to_stdout(code: &str) -> bool {
    ["print!", "println!"].iter().any(|name| {
        code.match_indices(name)
            .any(|(at, _)| !code[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_'))
    })
}

#[test]
fn only_the_output_stage_writes_out_dir_and_prints_directives() {
    let mut violations = Vec::new();
    for (file, module, code) in sources() {
        // The driver hands `OUT_DIR` to the output stage; `env` prints the
        // `rerun-if-env-changed` line of each variable as it reads it, and
        // `config` the errors of a build that failed.
        let (reads_out_dir, prints) = match module.as_str() {
            "output" | "config" | "run" | "lib" => (true, true),
            "env" => (false, true),
            _ => (false, false),
        };
        if !reads_out_dir && code.contains(".out_dir") {
            violations.push(format!("{file}: reads `out_dir`: only the output stage writes OUT_DIR"));
        }
        if !prints && prints_to_stdout(&code) {
            violations.push(format!("{file}: prints: only the output stage prints Cargo directives"));
        }
    }
    assert!(violations.is_empty(), "writing before the output stage:\n{}", violations.join("\n"));
}

#[test]
fn the_checker_sees_plain_grouped_and_nested_paths() {
    let code = code(
        "use crate::pack::encode;\nuse crate::{output::report::Report, cache::{Cache, Key}};\n// crate::run\n\
         let x = smolv_crate::y;\n#[cfg(test)]\nmod tests {\n use crate::Config;\n}\n",
    );
    let firsts: Vec<String> = crate_paths(&code).into_iter().map(|(first, _)| first).collect();
    assert_eq!(firsts, ["pack", "output", "cache"]);
    assert!(prints_to_stdout("println!(\"x\");") && prints_to_stdout("print!(\"x\")"));
    assert!(!prints_to_stdout("eprintln!(\"x\"); eprint!(\"y\");"));
}
