//! Code blocks out of the repository's Markdown, for the tests that build
//! and run what the docs show (`tests/readme.rs`, `tests/wgpu_docs.rs`).

use std::path::Path;

use crate::outside::{crate_path, create, write};

/// The code blocks of the section titled `title` (a `## ` heading), with
/// their info strings, in order. Panics if there is no such section.
pub fn code_blocks(markdown: &str, title: &str) -> Vec<(String, String)> {
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
pub fn file_name(block: &str) -> Option<&str> {
    let first = block.lines().next()?;
    let name = first.strip_prefix("// ").or_else(|| first.strip_prefix("# "))?;
    let name = name.split(':').next()?.trim();
    (!name.contains(' ') && name.contains('.')).then_some(name)
}

/// Writes the blocks that name a file as the crate `name` at `root`, as a
/// user who copies them into `cargo new` gets it: the `Cargo.toml` block
/// under its `[package]`, then `extra` (more manifest tables, or nothing),
/// then `[patch.crates-io]` paths to the workspace's unpublished crates and
/// a `[workspace]` of its own ([`create`]); every other block is its file.
/// Returns the files' names, sorted. Panics on a block that names no file.
pub fn write_crate(root: &Path, name: &str, blocks: &[(String, String)], extra: &str) -> Vec<String> {
    let mut files = Vec::new();
    for (info, body) in blocks {
        let file =
            file_name(body).unwrap_or_else(|| panic!("a ```{info} block of {name}'s docs names no file:\n{body}"));
        files.push(file.to_owned());
        if file == "Cargo.toml" {
            create(
                root,
                &format!(
                    "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{body}\n{extra}\
                     [patch.crates-io]\nsmolv-runtime = {{ path = {} }}\nsmolv-build = {{ path = {} }}\n\
                     smolv-macros = {{ path = {} }}\n\n[workspace]\n",
                    crate_path("smolv-runtime"),
                    crate_path("smolv-build"),
                    crate_path("smolv-macros")
                ),
            );
        } else {
            write(&root.join(file), body);
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_one_section_and_their_files() {
        let text = "# Doc\n\n## One\n\n```toml\n# Cargo.toml: then\n[dependencies]\n```\n\n\
                    ```rust\n// src/main.rs\nfn main() {}\n```\n\n```text\nno file\n```\n\n## Two\n\n```rust\n// b.rs\n```\n";
        let blocks = code_blocks(text, "One");
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0], ("toml".to_owned(), "# Cargo.toml: then\n[dependencies]\n".to_owned()));
        let names: Vec<Option<&str>> = blocks.iter().map(|(_, body)| file_name(body)).collect();
        assert_eq!(names, [Some("Cargo.toml"), Some("src/main.rs"), None]);
        assert_eq!(code_blocks(text, "Two").len(), 1);
    }
}
