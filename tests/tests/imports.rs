//! The import graphs of smolv-runtime and smolv-codec, as rules. Each test
//! reads one crate's `src/` and fails on an import circle, on an import
//! through a re-export (the root's above all) and on an import that
//! reaches up a layer, naming the file, the line and the path. (The rules
//! live here, in the workspace's tests, because they cover two crates.)
//!
//! The graph's nodes are files: `shader/mod.rs` is `shader` and
//! `shader/raw.rs` is `shader::raw`, two nodes. Its edges are the
//! `crate::`, `super::`, `self::` and child-module paths in each file's
//! code (comments and `#[cfg(test)]` modules left out), each followed
//! through the re-exports on its way to the file that defines the item. A
//! child's `super::VulkanError` is an edge to `vulkan`, and so is a
//! re-export (`pub use`, `pub(crate) use`), which brings the item into the
//! file's scope too. One kind of path is not an edge: a module's use of
//! its own children, which it declares and composes (as the crate root
//! does every module). So the circles found are those that leave a module
//! and come back: between siblings, or through another module.
//!
//! The rules:
//! - **No circle.** Two files that need each other are one concept split in
//!   two, or share an item that belongs in a third file both use.
//! - **Import from the defining module.** `crate::Shader` is for users;
//!   inside the crate, `crate::shader::Shader`. The same holds for every
//!   re-export whose defining module the importer can reach: a private
//!   child's items go through its parent's `pub use` only from outside the
//!   parent. An external crate's item may come through a module that
//!   re-exports it (`reflect` names smolv-format's reflection types), but
//!   not through the root.
//! - **No import from a later layer.** In smolv-runtime, in order: the
//!   vocabulary (`reflect`, `interface`) → shaders (`shader_error`,
//!   `embed`, `shader`) → the GPU layers (`pipeline_cache_file`, `vulkan`,
//!   `wgpu`). In smolv-codec, below them all (a crate cannot import from
//!   one that depends on it): `options` → the codecs (`smolv`,
//!   `relative_ids`, `specialize`) → `container`. The crate root may use
//!   everything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A layer's rank and name: a module may import its own layer and lower
/// ones.
type Layer = Option<(u8, &'static str)>;

/// The layer of one of smolv-runtime's top-level modules.
fn runtime_layer(name: &str) -> Layer {
    Some(match name {
        "reflect" | "interface" => (0, "the vocabulary"),
        "shader_error" | "embed" | "shader" => (3, "shaders"),
        "pipeline_cache_file" | "vulkan" | "wgpu" => (4, "the GPU layers"),
        _ => return None,
    })
}

/// The layer of one of smolv-codec's top-level modules.
fn codec_layer(name: &str) -> Layer {
    Some(match name {
        "options" => (0, "the vocabulary"),
        "smolv" | "relative_ids" | "specialize" => (1, "the codecs"),
        "container" => (2, "the container"),
        _ => return None,
    })
}

/// A module path, from `crate` down: `["crate", "shader", "raw"]`.
type ModPath = Vec<String>;

/// One path in a file: the module it is written in, its segments, and for
/// a re-export (`pub use`) the name it binds.
#[derive(Debug)]
struct Mention {
    scope: ModPath,
    path: Vec<String>,
    line: usize,
    reexport: Option<String>,
}

/// A `mod` declaration.
#[derive(Debug)]
struct Decl {
    visibility: String,
    file: bool,
    test: bool,
}

/// A file's tokens with their lines, without comments, string and
/// character literals, or lifetimes.
fn tokens(text: &str) -> Vec<(String, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let (mut out, mut i, mut line) = (Vec::new(), 0, 1);
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else if i >= chars.len() {
                    break;
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            i += if at(i + 1) == '\\' {
                chars[i + 2..].iter().position(|&c| c == '\'').map_or(chars.len(), |p| p + 3)
            } else if at(i + 2) == '\'' {
                3
            } else {
                // A lifetime.
                1 + chars[i + 1..].iter().take_while(|c| c.is_alphanumeric() || **c == '_').count()
            };
        } else if c.is_alphanumeric() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
            if (word == "r" || word == "br") && at(i + hashes) == '"' {
                // A raw string: up to `"` and as many `#`.
                i += hashes + 1;
                while i < chars.len() && !(chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&c| c == '#')) {
                    i += 1;
                }
                i += hashes + 1;
            } else {
                out.push((word, line));
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push(("::".to_owned(), line));
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push((c.to_string(), line));
            }
            i += 1;
        }
        line += chars[start..i.min(chars.len())].iter().filter(|&&c| c == '\n').count();
    }
    out
}

fn token_at(tokens: &[(String, usize)], i: usize) -> &str {
    tokens.get(i).map_or("", |(t, _)| t.as_str())
}

fn is_ident(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The paths of a use tree from `tokens[*i]`, each with the name it binds
/// (`None` for a glob).
fn use_tree(
    tokens: &[(String, usize)],
    i: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    while let Some((token, _)) = tokens.get(*i) {
        match token.as_str() {
            "::" => *i += 1,
            "*" => {
                *i += 1;
                out.push((path, None));
                return;
            }
            "{" => {
                *i += 1;
                while tokens.get(*i).is_some_and(|(t, _)| t != "}") {
                    use_tree(tokens, i, &path, out);
                    if tokens.get(*i).is_some_and(|(t, _)| t == ",") {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ if is_ident(token) => {
                path.push(token.clone());
                *i += 1;
                if tokens.get(*i).is_some_and(|(t, _)| t == "::") {
                    continue;
                }
                let mut name = path.last().cloned();
                if name.as_deref() == Some("self") {
                    path.pop();
                    name = path.last().cloned();
                }
                if tokens.get(*i).is_some_and(|(t, _)| t == "as") {
                    name = tokens.get(*i + 1).map(|(t, _)| t.clone());
                    *i += 2;
                }
                out.push((path, name));
                return;
            }
            _ => return,
        }
    }
}

/// The visibility written just before `tokens[i]` (`pub`, `pub(crate)`,
/// …), or `""`.
fn visibility_before(tokens: &[(String, usize)], i: usize) -> String {
    let before = |n: usize| i.checked_sub(n).map_or("", |at| tokens[at].0.as_str());
    if before(1) == "pub" {
        "pub".to_owned()
    } else if before(1) == ")" && before(3) == "(" && before(4) == "pub" {
        format!("pub({})", before(2))
    } else if before(1) == ")" && before(4) == "(" && before(5) == "pub" {
        format!("pub(in {})", before(2))
    } else {
        String::new()
    }
}

/// The `mod` declarations and paths of one file whose module is `module`.
fn scan(module: &ModPath, text: &str, decls: &mut BTreeMap<ModPath, Decl>, mentions: &mut Vec<Mention>) {
    let tokens = tokens(text);
    let mut scopes: Vec<(ModPath, usize)> = vec![(module.clone(), 0)];
    let (mut depth, mut cfg_test, mut i) = (0usize, false, 0);
    while i < tokens.len() {
        let (token, line) = (&tokens[i].0, tokens[i].1);
        let scope = scopes.last().unwrap().0.clone();
        let after = |n: usize| token_at(&tokens, i + n);
        let before = i.checked_sub(1).map_or("", |at| tokens[at].0.as_str());
        match token.as_str() {
            "#" if after(1) == "[" => {
                // `#[cfg(test)]`, `#[cfg(all(test, …))]`, not `#[cfg(not(test))]`.
                let end = tokens[i..].iter().position(|(t, _)| t == "]").map_or(tokens.len(), |p| i + p);
                let inside = &tokens[i..end];
                let cfg = after(2) == "cfg";
                cfg_test |= cfg && inside.iter().any(|(t, _)| t == "test") && !inside.iter().any(|(t, _)| t == "not");
                i = end;
            }
            "mod" if is_ident(after(1)) => {
                let mut path = scope.clone();
                path.push(after(1).to_owned());
                let visibility = visibility_before(&tokens, i);
                i += 2;
                let file = token_at(&tokens, i) == ";";
                decls.insert(path.clone(), Decl { visibility, file, test: cfg_test });
                if !file && cfg_test {
                    // Skip the unit tests.
                    let mut open = 0;
                    loop {
                        match tokens.get(i).map(|(t, _)| t.as_str()) {
                            Some("{") => open += 1,
                            Some("}") => open -= 1,
                            None => break,
                            _ => {}
                        }
                        i += 1;
                        if open == 0 {
                            break;
                        }
                    }
                    cfg_test = false;
                    continue;
                } else if !file {
                    depth += 1;
                    scopes.push((path, depth));
                }
                cfg_test = false;
            }
            "use" => {
                let visibility = visibility_before(&tokens, i);
                i += 1;
                let mut paths = Vec::new();
                use_tree(&tokens, &mut i, &[], &mut paths);
                for (path, name) in paths {
                    let reexport = (!visibility.is_empty()).then(|| name.unwrap_or_else(|| "*".to_owned()));
                    mentions.push(Mention { scope: scope.clone(), path, line, reexport });
                }
                cfg_test = false;
            }
            "{" => depth += 1,
            "}" => {
                if scopes.last().is_some_and(|&(_, d)| d == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
                cfg_test = false;
            }
            ";" => cfg_test = false,
            _ if is_ident(token) && after(1) == "::" && before != "::" && before != "$" && before != "." => {
                // A path in the code: its leading identifiers.
                let mut path = vec![token.clone()];
                while token_at(&tokens, i + 1) == "::" && is_ident(token_at(&tokens, i + 2)) {
                    path.push(token_at(&tokens, i + 2).to_owned());
                    i += 2;
                }
                mentions.push(Mention { scope, path, line, reexport: None });
            }
            _ => {}
        }
        i += 1;
    }
}

/// Where a path written in `scope` points: an absolute path from `crate`,
/// or `None` for an external crate's.
fn absolute(scope: &ModPath, path: &[String], decls: &BTreeMap<ModPath, Decl>) -> Option<ModPath> {
    let child = |first: &str| decls.contains_key(&[scope.as_slice(), &[first.to_owned()]].concat());
    let (mut out, rest) = match path.first()?.as_str() {
        "crate" => (vec!["crate".to_owned()], &path[1..]),
        "self" => (scope.clone(), &path[1..]),
        "super" => (scope.clone(), path),
        first if child(first) => (scope.clone(), path),
        _ => return None,
    };
    for segment in rest {
        if segment == "super" {
            out.pop();
        } else {
            out.push(segment.clone());
        }
    }
    Some(out)
}

/// Whether a module declared at `module` can be named from `scope`.
fn reachable(module: &ModPath, scope: &ModPath, decls: &BTreeMap<ModPath, Decl>) -> bool {
    (2..=module.len()).all(|k| {
        let parent = &module[..k - 1];
        match decls.get(&module[..k]).map(|d| d.visibility.as_str()) {
            Some("pub" | "pub(crate)") => true,
            Some("pub(super)") => scope.starts_with(&parent[..parent.len().saturating_sub(1).max(1)]),
            _ => scope.starts_with(parent),
        }
    })
}

/// An import followed to the file that defines it.
struct Resolved {
    /// The defining file's module, or `None` for an external crate's item.
    defining: Option<ModPath>,
    /// The first module whose re-export the import went through.
    through: Option<ModPath>,
}

fn resolve(
    path: ModPath,
    files: &BTreeSet<ModPath>,
    reexports: &BTreeMap<ModPath, BTreeMap<String, Option<ModPath>>>,
) -> Resolved {
    let mut path = path;
    let mut through = None;
    for _ in 0..16 {
        let k = (1..=path.len()).rev().find(|&k| files.contains(&path[..k])).unwrap_or(1);
        let module = path[..k].to_vec();
        let Some(target) = path.get(k).and_then(|name| reexports.get(&module)?.get(name)) else {
            return Resolved { defining: Some(module), through };
        };
        through.get_or_insert(module);
        match target {
            Some(target) => path = target.iter().chain(&path[k + 1..]).cloned().collect(),
            None => return Resolved { defining: None, through },
        }
    }
    Resolved { defining: Some(path), through }
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

/// `crate::a::b` for a module path.
fn name(module: &[String]) -> String {
    module.join("::")
}

/// The circles of a graph: its strongly connected components of more than
/// one node (Tarjan's algorithm).
fn circles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, (usize, usize)>,
        stack: Vec<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(node: &'a ModPath, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(node, (n, n));
        s.stack.push(node);
        for next in s.edges.get(node).into_iter().flatten() {
            match s.index.get(next) {
                None => {
                    visit(next, s);
                    let low = s.index[next].1.min(s.index[node].1);
                    s.index.get_mut(node).unwrap().1 = low;
                }
                Some(&(index, _)) if s.stack.contains(&next) => {
                    let low = index.min(s.index[node].1);
                    s.index.get_mut(node).unwrap().1 = low;
                }
                Some(_) => {}
            }
        }
        if s.index[node].0 == s.index[node].1 {
            let at = s.stack.iter().position(|&m| m == node).unwrap();
            let component: Vec<ModPath> = s.stack.drain(at..).cloned().collect();
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let mut state = State { edges, index: BTreeMap::new(), stack: Vec::new(), out: Vec::new() };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(node, &mut state);
        }
    }
    state.out
}

#[test]
fn the_runtime_has_no_circle_imports_from_defining_modules_and_respects_its_layers() {
    check_imports("smolv-runtime", runtime_layer, 40);
}

#[test]
fn the_codecs_have_no_circle_import_from_defining_modules_and_respect_their_layers() {
    check_imports("smolv-codec", codec_layer, 20);
}

/// Fails on every break of the rules in the crate `krate` of the
/// workspace, whose `src/` holds more than `at_least` files.
fn check_imports(krate: &str, layer_of: fn(&str) -> Layer, at_least: usize) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(krate).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    assert!(paths.len() > at_least, "found only {} files under {}", paths.len(), src.display());

    // Each file's module, its declarations and its paths.
    let (mut decls, mut mentions) = (BTreeMap::new(), BTreeMap::new());
    let mut files = BTreeMap::new();
    for file in &paths {
        let relative = file.strip_prefix(&src).unwrap().with_extension("");
        let mut module = vec!["crate".to_owned()];
        module.extend(relative.iter().map(|c| c.to_string_lossy().into_owned()));
        if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
            module.pop();
        }
        let mut found = Vec::new();
        scan(&module, &std::fs::read_to_string(file).unwrap(), &mut decls, &mut found);
        files.insert(module.clone(), format!("{krate}/src/{}", file.strip_prefix(&src).unwrap().display()));
        mentions.insert(module, found);
    }
    // Only files the crate compiles outside its unit tests: declared by a
    // parent that is, and not `#[cfg(test)]`.
    let live = |module: &ModPath| {
        (2..=module.len()).all(|k| decls.get(&module[..k]).is_some_and(|d: &Decl| d.file && !d.test))
    };
    files.retain(|module, _| live(module));
    mentions.retain(|module, _| files.contains_key(module));
    let nodes: BTreeSet<ModPath> = files.keys().cloned().collect();

    // What each module re-exports: the name and where it points.
    let mut reexports: BTreeMap<ModPath, BTreeMap<String, Option<ModPath>>> = BTreeMap::new();
    for mention in mentions.values().flatten() {
        if let Some(name) = &mention.reexport {
            let target = absolute(&mention.scope, &mention.path, &decls);
            reexports.entry(mention.scope.clone()).or_default().insert(name.clone(), target);
        }
    }

    let mut violations = Vec::new();
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    let mut why: BTreeMap<(ModPath, ModPath), Vec<String>> = BTreeMap::new();
    for (module, found) in &mentions {
        let file = &files[module];
        for mention in found {
            let Some(path) = absolute(&mention.scope, &mention.path, &decls) else { continue };
            let written = mention.path.join("::");
            let mut report =
                |message: String| violations.push(format!("{file}:{}: `{written}` {message}", mention.line));
            let resolved = resolve(path.clone(), &nodes, &reexports);
            if let Some(through) = &resolved.through {
                let defining = resolved.defining.as_ref();
                let root = through.len() == 1;
                if defining.map_or(root, |d| reachable(d, &mention.scope, &decls)) {
                    let instead =
                        defining.map_or_else(|| "the external crate".to_owned(), |d| format!("`{}`", name(d)));
                    let what = if root { "the crate root's re-export" } else { "a re-export" };
                    report(format!("goes through {what} in `{}`: import it from {instead}", name(through)));
                }
            }
            let Some(defining) = resolved.defining else { continue };
            if let (Some(from), Some(to)) = (module.get(1), defining.get(1)) {
                let (Some((from_layer, from_name)), Some((to_layer, to_name))) = (layer_of(from), layer_of(to)) else {
                    report(format!("joins `{from}` and `{to}`: give each a layer in tests/tests/imports.rs"));
                    continue;
                };
                if to_layer > from_layer {
                    report(format!("reaches from {from_name} (`{from}`) up to {to_name} (`{to}`)"));
                }
            }
            if !defining.starts_with(module) {
                edges.entry(module.clone()).or_default().insert(defining.clone());
                why.entry((module.clone(), defining))
                    .or_default()
                    .push(format!("{file}:{}: `{written}`", mention.line));
            }
        }
    }
    for circle in circles(&edges) {
        let members: BTreeSet<&ModPath> = circle.iter().collect();
        let mut lines = Vec::new();
        for ((from, to), uses) in &why {
            if members.contains(from) && members.contains(to) {
                lines.extend(uses.iter().map(|u| format!("    {u} ({} → {})", name(from), name(to))));
            }
        }
        let mut names: Vec<String> = circle.iter().map(|m| name(m)).collect();
        names.sort();
        let names = names.join(", ");
        violations.push(format!("a circle: {names}\n{}", lines.join("\n")));
    }
    assert!(violations.is_empty(), "{krate}'s import rules (see tests/tests/imports.rs):\n{}", violations.join("\n"));
}

#[test]
fn the_scanner_sees_uses_paths_and_reexports_but_not_comments_strings_or_tests() {
    let text = "mod child;\npub(crate) use child::{self, Item as Renamed};\nuse crate::{a::b, c::{d, e}};\n\
                // crate::comment\nlet s = \"crate::string\";\nfn f() { super::up::g(); $crate::macro_path; }\n\
                #[cfg(test)]\nmod tests {\n use crate::Tested;\n}\n";
    let module: ModPath = vec!["crate".into(), "m".into()];
    let (mut decls, mut mentions) = (BTreeMap::new(), Vec::new());
    scan(&module, text, &mut decls, &mut mentions);
    let seen: Vec<(String, Option<String>)> =
        mentions.iter().map(|m| (m.path.join("::"), m.reexport.clone())).collect();
    let expected = [
        ("child", Some("child")),
        ("child::Item", Some("Renamed")),
        ("crate::a::b", None),
        ("crate::c::d", None),
        ("crate::c::e", None),
        ("super::up::g", None),
    ];
    let expected: Vec<(String, Option<String>)> =
        expected.iter().map(|(p, r)| (p.to_string(), r.map(str::to_owned))).collect();
    assert_eq!(seen, expected);
    assert!(decls[&vec!["crate".to_owned(), "m".to_owned(), "tests".to_owned()]].test);
    let up = absolute(&module, &mentions[5].path, &decls).unwrap();
    assert_eq!(up, ["crate", "up", "g"]);
}

#[test]
fn a_circle_is_found_and_a_chain_is_not() {
    let node = |name: &str| vec![name.to_owned()];
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    edges.entry(node("a")).or_default().insert(node("b"));
    edges.entry(node("b")).or_default().insert(node("c"));
    assert!(circles(&edges).is_empty());
    edges.entry(node("c")).or_default().insert(node("b"));
    assert_eq!(circles(&edges), [vec![node("b"), node("c")]]);
}
