//! Reading inputs and writing outputs, with errors that name the file.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A failure tied to one file: the message names it and says what went wrong.
#[derive(Debug)]
pub(crate) struct FileError {
    path: PathBuf,
    message: String,
}

impl FileError {
    pub(crate) fn new(path: &Path, message: impl fmt::Display) -> Self {
        Self { path: path.to_owned(), message: message.to_string() }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Reads a whole input file; `-` reads standard input.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, FileError> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .map_err(|e| FileError::new(path, format!("cannot read standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(|e| FileError::new(path, format!("cannot read input: {e}")))
}

/// Writes an output file atomically (temp file, then rename); `-` writes
/// standard output.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    if path == Path::new("-") {
        return std::io::stdout()
            .lock()
            .write_all(bytes)
            .map_err(|e| FileError::new(path, format!("cannot write standard output: {e}")));
    }
    let file_name = path.file_name().ok_or_else(|| FileError::new(path, "output path names no file"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(file_name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(temp_name);
    std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path)).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        FileError::new(path, format!("cannot write output: {e}"))
    })
}
