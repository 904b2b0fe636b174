//! WESL errors at the file, line and column of the mistake; naga's, in the linked WGSL, are traced back.

use std::ops::Range;
use std::path::PathBuf;

use wesl::syntax::{GlobalDeclaration, GlobalDeclarationNode, TranslationUnit};
use wesl::{ModulePath, SourceMap};

use super::files::Files;
use crate::compile::frontend::WESL_SEPARATOR;
use crate::compile::frontend::wgsl::NagaError;
use crate::error::Diagnostic;

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let offset = (0..=offset.min(text.len())).rev().find(|&at| text.is_char_boundary(at)).unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    (u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(column).unwrap_or(u32::MAX))
}

/// The line `line` of `text` with a caret under `column`.
fn snippet(text: &str, line: u32, column: u32) -> Option<String> {
    let source_line = text.lines().nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let pad = " ".repeat(usize::try_from(column).ok()?.saturating_sub(1));
    let number = line.to_string();
    let gutter = " ".repeat(number.len());
    Some(format!("{gutter} |\n{number} | {source_line}\n{gutter} | {pad}^"))
}

/// A diagnostic at byte `offset` of `text`, the contents of `path`.
fn at(path: PathBuf, text: &str, offset: usize, message: String) -> Diagnostic {
    let (line, column) = line_column(text, offset);
    let rendered = snippet(text, line, column);
    Diagnostic { path, line, column, message, rendered }
}

/// Mangled names as written in WESL: `packageːːutilːːtint` → `package::util::tint`.
fn readable(text: &str) -> String {
    text.replace(WESL_SEPARATOR, "::")
}

/// An error of the wesl crate, at the file and span it names.
pub(super) fn wesl_error(error: wesl::Error, files: &Files<'_>, shader: &std::path::Path) -> Diagnostic {
    let diagnostic = wesl::Diagnostic::from(error);
    let detail = &diagnostic.detail;
    let mut message = readable(&diagnostic.error.to_string());
    if let Some(declaration) = &detail.declaration {
        message.push_str(&format!(" (in `{}`)", readable(declaration)));
    }
    let path = detail
        .module_path
        .as_ref()
        .and_then(|module| files.file(module).ok())
        .or_else(|| detail.display_name.as_ref().map(PathBuf::from))
        .unwrap_or_else(|| shader.to_owned());
    match (&detail.source, detail.span) {
        (Some(source), Some(span)) => at(path, source, span.start, message),
        (Some(source), None) => match missing_name(&diagnostic.error).and_then(|name| import_of(source, &name)) {
            Some(offset) => at(path, source, offset, message),
            None => Diagnostic::whole_file(path, message),
        },
        _ => Diagnostic::whole_file(path, message),
    }
}

fn missing_name(error: &wesl::Error) -> Option<String> {
    use wesl::{Error, ImportError, ResolveError};
    let resolve = |error: &ResolveError| match error {
        ResolveError::FileNotFound(path, _) => path.file_stem().map(|stem| stem.to_string_lossy().into_owned()),
        ResolveError::ModuleNotFound(path, _) => path.components.last().cloned(),
        ResolveError::Error(_) => None,
    };
    match error {
        Error::ResolveError(e) | Error::ImportError(ImportError::ResolveError(e)) => resolve(e),
        Error::ImportError(ImportError::MissingDecl(_, item)) => Some(item.clone()),
        _ => None,
    }
}

/// Where `source` imports `name`: the first `import` line that names it.
fn import_of(source: &str, name: &str) -> Option<usize> {
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let words = line.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        if line.trim_start().starts_with("import") && words.clone().any(|word| word == name) {
            return Some(offset + line.find(name)?);
        }
        offset += line.len();
    }
    None
}

/// The name a global declaration declares, as the linked WGSL spells it.
fn declared_name(declaration: &GlobalDeclaration) -> Option<String> {
    Some(match declaration {
        GlobalDeclaration::Declaration(d) => d.ident.name().clone(),
        GlobalDeclaration::TypeAlias(t) => t.ident.name().clone(),
        GlobalDeclaration::Struct(s) => s.ident.name().clone(),
        GlobalDeclaration::Function(f) => f.ident.name().clone(),
        _ => return None,
    })
}

/// The spans (linked, and in its own file) of the declaration or statement holding linked `offset`.
fn node_spans(linked: &GlobalDeclarationNode, reparsed: &GlobalDeclarationNode, offset: usize) -> [Range<usize>; 2] {
    let spans = [reparsed.span().range(), linked.span().range()];
    let (GlobalDeclaration::Function(linked), GlobalDeclaration::Function(reparsed)) = (linked.node(), reparsed.node())
    else {
        return spans;
    };
    let statements = reparsed.body.statements.iter().zip(&linked.body.statements);
    match statements.into_iter().find(|(out, _)| out.span().range().contains(&offset)) {
        Some((out, own)) if reparsed.body.statements.len() == linked.body.statements.len() => {
            [out.span().range(), own.span().range()]
        }
        _ => spans,
    }
}

/// Where in `own` (a node's text) the linked `token` is: nearest its line, unmangled, else its first word.
fn find_token(own: &str, token: &str, line_in_node: usize) -> usize {
    let unmangled: String = token
        .split_inclusive(|c: char| !(c.is_alphanumeric() || c == '_' || WESL_SEPARATOR.contains(c)))
        .map(|part| match part.rfind(WESL_SEPARATOR) {
            Some(at) => &part[at + WESL_SEPARATOR.len()..],
            None => part,
        })
        .collect();
    let first_word: String = unmangled.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    for needle in [unmangled.trim(), first_word.as_str()] {
        if needle.is_empty() {
            continue;
        }
        let nearest = own
            .match_indices(needle)
            .map(|(at, _)| at)
            .min_by_key(|&at| own[..at].matches('\n').count().abs_diff(line_in_node));
        if let Some(at) = nearest {
            return at;
        }
    }
    0
}

/// What a naga error in the linked WGSL needs to be traced back.
pub(super) struct Linked<'a> {
    pub(super) output: &'a str,
    pub(super) result: &'a wesl::CompileResult,
    pub(super) root: &'a ModulePath,
    pub(super) files: &'a Files<'a>,
    pub(super) shader: &'a std::path::Path,
}

/// naga's error, at the WESL source it came from, or else at the shader.
pub(super) fn naga_error(error: NagaError, linked: &Linked<'_>) -> Diagnostic {
    let message = readable(&error.chain);
    traced(&error, linked, message.clone()).unwrap_or_else(|| {
        let (line, column) = error.location.map_or((0, 0), |l| (l.line_number, l.line_position));
        Diagnostic {
            rendered: Some(readable(&error.rendered)),
            ..Diagnostic::whole_file(
                linked.shader,
                format!("{message} (at {line}:{column} of the WGSL linked from it)"),
            )
        }
    })
}

fn traced(error: &NagaError, linked: &Linked<'_>, message: String) -> Option<Diagnostic> {
    let span = error.span.clone()?;
    let reparsed: TranslationUnit = linked.output.parse().ok()?;
    let declarations = &linked.result.syntax.global_declarations;
    if reparsed.global_declarations.len() != declarations.len() {
        return None;
    }
    let index = reparsed.global_declarations.iter().position(|d| d.span().range().contains(&span.start))?;
    let (out_decl, own_decl) = (&reparsed.global_declarations[index], &declarations[index]);
    let sourcemap = linked.result.sourcemap.as_ref()?;
    let module = declared_name(own_decl)
        .and_then(|name| sourcemap.get_decl(&name).map(|(module, _)| module.clone()))
        .unwrap_or_else(|| linked.root.clone());
    let source = sourcemap.get_source(&module)?;
    let path = linked.files.file(&module).ok()?;
    let [out_node, own_node] = node_spans(own_decl, out_decl, span.start);
    let own = source.get(own_node.clone())?;
    let token = linked.output.get(span.clone())?;
    let line_in_node = linked.output.get(out_node.start..span.start)?.matches('\n').count();
    let offset = own_node.start + find_token(own, token, line_in_node);
    Some(at(path, source, offset, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "fn a() {}\nfn bː() { x; }\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, text.find('x').unwrap()), (2, 11), "ː is one column, two bytes");
        assert_eq!(line_column(text, usize::MAX), (3, 1), "past the end: clamped");
    }

    #[test]
    fn a_mangled_token_is_found_as_written_nearest_the_same_line() {
        let own = "fn f() {\n  let a = tint(c);\n  let b = tint(c) * 2.0;\n}";
        let at = find_token(own, "packageːːutilːːtint(c)", 2);
        assert_eq!(&own[at..at + 4], "tint");
        assert_eq!(own[..at].matches('\n').count(), 2, "the second use, on the same line as in the output");
        assert_eq!(find_token(own, "nowhere", 0), 0, "not found: the node's start");
        assert_eq!(readable("`packageːːutilːːtint`"), "`package::util::tint`");
    }
}
