//! smolv-build's root serves `build.rs`: `Config`, its option types, the
//! report and `Error`, and a few public modules for the other audiences
//! (hot reload's recipes, the CLI's bundles and cache upkeep). This test
//! reads `src/lib.rs` and counts the names it makes public at the root; a
//! public module counts as one. It fails when a 21st name is added: put
//! the new item in the module it belongs to instead.

use std::path::Path;

/// The most names the root may have (prost-build's has about 11).
const MOST_ROOT_NAMES: usize = 20;

/// The names a `pub use` line brings in: the last segment of each path,
/// or its `as` name.
fn used_names(path: &str) -> Vec<String> {
    let path = path.trim().trim_end_matches(';');
    if let Some(open) = path.find('{') {
        let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
        return inner.split(',').flat_map(used_names).collect();
    }
    let name = match path.split_once(" as ") {
        Some((_, alias)) => alias.trim(),
        None => path.rsplit("::").next().unwrap_or(path).trim(),
    };
    if name.is_empty() || name == "self" { Vec::new() } else { vec![name.to_owned()] }
}

/// The public names of a crate root's source: top-level `pub` items only
/// (lines without indentation), with `pub use` groups across lines.
fn root_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("pub ") else { continue };
        if let Some(path) = rest.strip_prefix("use ") {
            let mut statement = path.to_owned();
            while !statement.trim_end().ends_with(';') {
                match lines.next() {
                    Some(more) => statement.push_str(more),
                    None => break,
                }
            }
            names.extend(used_names(&statement));
            continue;
        }
        let words: Vec<&str> =
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let item =
            words.iter().position(|w| ["fn", "struct", "enum", "mod", "const", "static", "type", "trait"].contains(w));
        if let Some(name) = item.and_then(|i| words.get(i + 1)) {
            names.push((*name).to_owned());
        }
    }
    names
}

#[test]
fn the_root_has_at_most_twenty_names() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let names = root_names(&std::fs::read_to_string(&lib).unwrap());
    assert!(names.contains(&"Config".to_owned()) && names.contains(&"Error".to_owned()), "{names:?}");
    assert!(
        names.len() <= MOST_ROOT_NAMES,
        "{} has {} public names at its root, more than {MOST_ROOT_NAMES}: {names:?}; put the new one in the module \
         it belongs to",
        lib.display(),
        names.len()
    );
}

#[test]
fn the_counter_sees_every_kind_of_public_item() {
    let source = "pub use a::{B, c::D as E};\npub use f::{\n    G,\n    H,\n};\npub use i::J;\npub mod k {\n    pub use l::M;\n}\n\
                  pub mod n;\npub fn o() {}\n#[derive(Debug)]\npub struct P;\npub(crate) fn q() {}\nfn r() {}\n";
    assert_eq!(root_names(source), ["B", "E", "G", "H", "J", "k", "n", "o", "P"]);
}
