//! glslang's log, as shaderc returns it and `glslc` prints it
//! (`file:line: error: message`), read into located diagnostics.

use std::path::{Path, PathBuf};

use crate::error::Diagnostic;

/// Turns glslang's log (`file:line: error: message` lines) into located
/// diagnostics, with a column found from the token the message quotes.
pub(super) fn parse_log(log: &str, main_file: &Path) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for line in log.lines() {
        let Some((location, message)) = line.split_once(": error: ") else {
            continue;
        };
        let (file, line_number) = match location.rsplit_once(':') {
            Some((file, number)) => (file, number.trim().parse().unwrap_or(0)),
            None => (location, 0),
        };
        let path = if file.is_empty() { main_file.to_owned() } else { PathBuf::from(file) };
        let column = column_of_quoted_token(&path, line_number, message);
        if message.trim().ends_with("compilation terminated")
            || message.contains("compilation errors.  No code generated")
        {
            continue;
        }
        diagnostics.push(Diagnostic {
            path,
            line: line_number,
            column,
            message: message.trim().to_owned(),
            rendered: None,
        });
    }
    if diagnostics.is_empty() {
        diagnostics.push(Diagnostic::whole_file(main_file, log.trim()));
    }
    diagnostics
}

/// glslang reports no columns; most messages quote the offending token
/// (`'foo' : undeclared identifier`), so find it on the line. Without a
/// token (`'' : syntax error`), or one the line does not hold, the column
/// is unknown (0, not shown): a guess would point at the wrong place.
fn column_of_quoted_token(path: &Path, line: u32, message: &str) -> u32 {
    let Some(token) = message.split('\'').nth(1).map(str::trim).filter(|t| !t.is_empty()) else {
        return 0;
    };
    let source_line = std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.lines().nth(line.saturating_sub(1) as usize).map(str::to_owned));
    // 1-based; a column past u32::MAX is reported as unknown (0).
    source_line.and_then(|text| text.find(token)).map_or(0, |offset| u32::try_from(offset + 1).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glslang_log_lines_become_located_diagnostics() {
        let log = "shaders/a.frag:3: error: 'foo' : undeclared identifier\n\
                   shaders/a.frag:5: error: '' :  syntax error\n\
                   2 errors generated.";
        let diagnostics = parse_log(log, Path::new("shaders/a.frag"));
        assert_eq!(diagnostics.len(), 2);
        assert_eq!(diagnostics[0].line, 3);
        assert_eq!(diagnostics[0].message, "'foo' : undeclared identifier");
    }

    #[test]
    fn a_column_glslang_did_not_give_is_not_made_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tri.frag");
        std::fs::write(&path, "#version 450\n  void main() { float foo = 1.0; }}\n").unwrap();
        // The quoted token is on the line: its column.
        assert_eq!(column_of_quoted_token(&path, 2, "'foo' : redefinition"), 23);
        // An empty token (glslang quotes nothing for an unexpected `}`), or
        // one the line does not hold: unknown, and not shown.
        assert_eq!(column_of_quoted_token(&path, 2, "'' : syntax error, unexpected RIGHT_BRACE"), 0);
        assert_eq!(column_of_quoted_token(&path, 2, "'bar' : undeclared identifier"), 0);
        let log = format!("{}:2: error: '' : syntax error, unexpected RIGHT_BRACE", path.display());
        let shown = parse_log(&log, &path)[0].headline();
        assert_eq!(shown, format!("{}:2: '' : syntax error, unexpected RIGHT_BRACE", path.display()));
    }
}
