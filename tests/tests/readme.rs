//! The README's "Using it" section, copied into a new crate, builds and
//! runs. The files come from README.md itself, so the README cannot drift
//! from what works: every code block of the section whose first line names
//! a file (`# Cargo.toml`, `// build.rs: …`, `// src/main.rs`) is that
//! file. The crates are not published, so `[patch.crates-io]` points their
//! versions at the workspace, as `cargo new` plus a local registry would.

use std::path::Path;

use smolv_tests::outside::{cargo, crate_path, create, succeed, workspace, write};

/// The code blocks of the section titled `title`, with their info strings.
fn code_blocks(markdown: &str, title: &str) -> Vec<(String, String)> {
    let start = markdown.find(&format!("\n## {title}\n")).unwrap_or_else(|| panic!("no section {title:?}"));
    let section = &markdown[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
    let mut blocks = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((info.to_owned(), body.join("\n") + "\n"));
        }
    }
    blocks
}

/// The file a block is, from its first line: `# Cargo.toml`,
/// `// build.rs: what it does`, `// src/main.rs`.
fn file_name(block: &str) -> Option<&str> {
    let first = block.lines().next()?;
    let name = first.strip_prefix("// ").or_else(|| first.strip_prefix("# "))?;
    let name = name.split(':').next()?.trim();
    (!name.contains(' ') && name.contains('.')).then_some(name)
}

#[test]
fn the_readme_using_it_section_works_in_a_new_crate() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let blocks = code_blocks(&readme, "Using it");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("readme-user");

    let mut files = Vec::new();
    for (info, body) in &blocks {
        let name = file_name(body).unwrap_or_else(|| panic!("a ```{info} block of Using it names no file:\n{body}"));
        files.push(name.to_owned());
        if name == "Cargo.toml" {
            // What `cargo new` writes, then the README's part, then where
            // to find the unpublished crates.
            create(
                &root,
                &format!(
                    "[package]\nname = \"readme-user\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{body}\n\
                     [patch.crates-io]\nsmolv-runtime = {{ path = {} }}\nsmolv-build = {{ path = {} }}\n\
                     smolv-macros = {{ path = {} }}\n\n[workspace]\n",
                    crate_path("smolv-runtime"),
                    crate_path("smolv-build"),
                    crate_path("smolv-macros")
                ),
            );
        } else {
            write(&root.join(name), body);
        }
    }
    files.sort();
    assert_eq!(files, ["Cargo.toml", "build.rs", "shaders/lit.frag", "shaders/sky.wgsl", "src/main.rs"]);
    assert!(Path::new(&root.join("Cargo.toml")).is_file());

    let stdout = succeed(&mut cargo(&root, &["run", "--quiet"]));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("lit.frag: ") && lines[0].contains("Fragment; sky: "), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("lit.frag: ") && l.ends_with(" words") && !l.contains(';')), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("sky.wgsl#fs_main: ")), "{stdout}");
}
