//! Input text made safe in generated Rust: a doc comment ([`doc`]), a code span ([`code`]) or a string literal
//! ([`string`]). Identifiers never carry input: [`names`](super::names) keeps only ASCII letters, digits and `_`.

use std::fmt::Write;

/// Whether `c` is written as `\u{..}` in a doc comment: controls, line separators and bidirectional controls.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// `text` as it may stand in a `///` doc comment: one line, `*/` as `*\/`.
pub(crate) fn doc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else if c == '*' && chars.peek() == Some(&'/') {
            out.push_str("*\\");
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as a Markdown code span: [`doc`]'s escapes, between more backticks than any run in it.
pub(crate) fn code(text: &str) -> String {
    let text = doc(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    // CommonMark strips one space off each end of a span starting or ending with a backtick.
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as a Rust string literal.
pub(crate) fn string(text: &str) -> String {
    format!("{text:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doc_comment_keeps_one_line_and_shows_what_it_hides() {
        assert_eq!(doc("Frame"), "Frame", "ordinary text is unchanged");
        assert_eq!(doc("a\nb\r\u{0}c"), "a\\u{a}b\\u{d}\\u{0}c");
        assert_eq!(doc("x\u{202e}y\u{2066}z\u{2028}"), "x\\u{202e}y\\u{2066}z\\u{2028}");
        assert_eq!(doc("a */ b /* c"), "a *\\/ b /* c");
        assert_eq!(doc("\u{85}"), "\\u{85}", "NEL is a control character");
        assert_eq!(doc("lighting::Light ü"), "lighting::Light ü");
    }

    #[test]
    fn a_code_span_cannot_be_closed_by_its_text() {
        assert_eq!(code("Frame"), "`Frame`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("``x"), "``` ``x ```");
        assert_eq!(code("x\n<script>"), "`x\\u{a}<script>`");
    }

    #[test]
    fn a_string_literal_is_escaped_as_rust_escapes_it() {
        assert_eq!(string("lit.frag"), "\"lit.frag\"");
        assert_eq!(string("a\"\n\u{202e}\\"), "\"a\\\"\\n\\u{202e}\\\\\"");
    }
}
