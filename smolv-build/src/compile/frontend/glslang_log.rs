//! glslang's info log (`ERROR: file:line: message`, `WARNING: ...`) read into diagnostics and warnings.

use std::path::{Path, PathBuf};

use crate::error::Diagnostic;

struct Entry<'a> {
    error: bool,
    /// `None`: the main file (string number `0`).
    file: Option<&'a str>,
    /// 0 when the message has no line (a link error).
    line: u32,
    message: &'a str,
}

/// The `ERROR: ` and `WARNING: ` lines of glslang's log.
fn entries(log: &str) -> impl Iterator<Item = Entry<'_>> {
    log.lines().filter_map(|line| {
        let (error, rest) = match line.strip_prefix("ERROR: ") {
            Some(rest) => (true, rest),
            None => (false, line.strip_prefix("WARNING: ")?),
        };
        let located = rest.match_indices(':').find_map(|(colon, _)| {
            let after = &rest[colon + 1..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let message = after[digits..].strip_prefix(": ")?;
            let line = after[..digits].parse().ok()?;
            Some((&rest[..colon], line, message))
        });
        let (file, line, message) = located.unwrap_or(("", 0, rest));
        let file = Some(file).filter(|f| !f.is_empty() && *f != "0");
        Some(Entry { error, file, line, message: message.trim() })
    })
}

/// Turns glslang's log into located diagnostics.
pub(super) fn parse_log(log: &str, main_file: &Path) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for entry in entries(log).filter(|e| e.error) {
        if entry.message.ends_with("compilation terminated")
            || entry.message.contains("compilation errors.  No code generated")
        {
            continue;
        }
        let path = entry.file.map_or_else(|| main_file.to_owned(), PathBuf::from);
        let column = column_of_quoted_token(&path, entry.line, entry.message);
        let message = entry.message.to_owned();
        diagnostics.push(Diagnostic { path, line: entry.line, column, message, rendered: None });
    }
    if diagnostics.is_empty() {
        diagnostics.push(Diagnostic::whole_file(main_file, log.trim()));
    }
    diagnostics
}

/// The warnings of glslang's log, as `file:line: warning: message` lines.
pub(super) fn warnings(log: &str, main_file: &Path) -> Vec<String> {
    entries(log)
        .filter(|e| !e.error)
        .map(|e| {
            let file = e.file.map_or_else(|| main_file.display().to_string(), str::to_owned);
            match e.line {
                0 => format!("{file}: warning: {}", e.message),
                line => format!("{file}:{line}: warning: {}", e.message),
            }
        })
        .collect()
}

/// The column of the token the message quotes (`'foo' : …`), or 0.
fn column_of_quoted_token(path: &Path, line: u32, message: &str) -> u32 {
    let Some(token) = message.split('\'').nth(1).map(str::trim).filter(|t| !t.is_empty()) else {
        return 0;
    };
    let source_line = std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.lines().nth(line.saturating_sub(1) as usize).map(str::to_owned));
    source_line.and_then(|text| text.find(token)).map_or(0, |offset| u32::try_from(offset + 1).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glslang_log_lines_become_located_diagnostics() {
        // The main file is string 0; an include has the name it was given.
        let log = "ERROR: 0:3: 'foo' : undeclared identifier\n\
                   ERROR: shaders/inc/light.h:5: '' :  syntax error\n\
                   WARNING: 0:7: 'x' : unused\n\
                   ERROR: Linking fragment stage: Missing entry point: Each stage requires one entry point\n\
                   ERROR: 3 compilation errors.  No code generated.";
        let diagnostics = parse_log(log, Path::new("shaders/a.frag"));
        let located: Vec<_> = diagnostics.iter().map(|d| (d.path.to_str().unwrap(), d.line)).collect();
        assert_eq!(located, [("shaders/a.frag", 3), ("shaders/inc/light.h", 5), ("shaders/a.frag", 0)]);
        assert_eq!(diagnostics[0].message, "'foo' : undeclared identifier");
        assert_eq!(
            diagnostics[2].message,
            "Linking fragment stage: Missing entry point: Each stage requires one entry point"
        );
        assert_eq!(warnings(log, Path::new("shaders/a.frag")), ["shaders/a.frag:7: warning: 'x' : unused"]);
        // A Windows path keeps its drive letter.
        let windows = parse_log("ERROR: C:\\game\\light.h:12: 'f' : no matching overload", Path::new("a.frag"));
        assert_eq!((windows[0].path.to_str().unwrap(), windows[0].line), ("C:\\game\\light.h", 12));
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
        let log = format!("ERROR: {}:2: '' : syntax error, unexpected RIGHT_BRACE", path.display());
        let shown = parse_log(&log, &path)[0].headline();
        assert_eq!(shown, format!("{}:2: '' : syntax error, unexpected RIGHT_BRACE", path.display()));
    }
}
