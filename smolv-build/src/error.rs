//! Build errors and shader diagnostics.

use std::fmt;
use std::path::PathBuf;

/// One compiler message, located in a source file.
///
/// ```no_run
/// use smolv_build::{Config, Error};
/// let mut config = Config::new();
/// config.shader_dir("shaders").out_dir("target/shaders");
/// if let Err(Error::Compile { diagnostics, .. }) = config.try_compile() {
///     for d in &diagnostics {
///         eprintln!("{}:{}:{}: {}", d.path.display(), d.line, d.column, d.message);
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The file the message is about (a shader or one of its includes).
    pub path: PathBuf,
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub column: u32,
    /// The message, without the location.
    pub message: String,
    /// Extra rendered context (naga's annotated source snippet), if any.
    pub rendered: Option<String>,
}

impl Diagnostic {
    /// A message at `line` and `column` of `path`, with no rendered context.
    ///
    /// ```
    /// let diagnostic = smolv_build::Diagnostic::new("shaders/lit.frag", 3, 28, "'tint' : undeclared identifier");
    /// assert_eq!((diagnostic.line, diagnostic.column, diagnostic.rendered), (3, 28, None));
    /// ```
    pub fn new(path: impl Into<PathBuf>, line: u32, column: u32, message: impl Into<String>) -> Self {
        Self { path: path.into(), line, column, message: message.into(), rendered: None }
    }

    /// A message about a whole file, with no line or column.
    ///
    /// ```
    /// let diagnostic = smolv_build::Diagnostic::whole_file("shaders/lit.frag", "the compiler panicked");
    /// assert_eq!(diagnostic.headline(), "shaders/lit.frag: the compiler panicked");
    /// ```
    pub fn whole_file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::new(path, 0, 0, message)
    }

    /// `path:line:col: message` (line and column only when known), without the rendered context.
    ///
    /// ```
    /// let diagnostic = smolv_build::Diagnostic::new("shaders/lit.frag", 3, 28, "'tint' : undeclared identifier");
    /// assert_eq!(diagnostic.headline(), "shaders/lit.frag:3:28: 'tint' : undeclared identifier");
    /// ```
    pub fn headline(&self) -> String {
        format!("{}: {}", self.location(), self.message)
    }

    /// `path`, `path:line` or `path:line:col`.
    fn location(&self) -> String {
        match (self.line, self.column) {
            (0, _) => self.path.display().to_string(),
            (line, 0) => format!("{}:{line}", self.path.display()),
            (line, column) => format!("{}:{line}:{column}", self.path.display()),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.location(), self.message)?;
        if let Some(rendered) = &self.rendered {
            write!(f, "\n{}", rendered.trim_end())?;
        }
        Ok(())
    }
}

/// Why the shader build failed.
///
/// ```
/// use smolv_build::{Config, Error};
/// let dir = tempfile::tempdir()?;
/// let result = Config::new()
///     .shader_dir(dir.path())
///     .out_dir(dir.path().join("out"))
///     .cargo_directives(false)
///     .try_compile();
/// assert!(matches!(result, Err(Error::NoShaders { .. })), "an empty directory has no shaders");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// One or more shaders did not compile, with every error of each.
    #[error("{}", format_compile_errors(.diagnostics, *.failed, *.total))]
    Compile {
        /// Every error, in shader order.
        diagnostics: Vec<Diagnostic>,
        /// How many compile jobs (as [`LanguageReport`](crate::report::LanguageReport) counts them) failed.
        failed: usize,
        /// How many there were.
        total: usize,
    },
    /// A file or directory could not be read or written.
    #[error("{}: {source}; {hint}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
        /// What to check.
        hint: &'static str,
    },
    /// The configuration cannot work.
    #[error("smolv-build configuration: {0}")]
    Config(String),
    /// No shader was found where shaders were expected.
    #[error(
        "no shaders found in {}; add .vert/.frag/.comp/... (GLSL), .hlsl, .wgsl, .wesl, .slang or .spv (SPIR-V) \
         files, or point Config::shader_dir at the right directory",
        .searched
    )]
    NoShaders {
        /// What was searched, for the message.
        searched: String,
    },
    /// A build step that is not about one shader failed.
    #[error("smolv-build: {0}")]
    Internal(String),
}

fn format_compile_errors(diagnostics: &[Diagnostic], failed: usize, total: usize) -> String {
    let head = format!("{failed} of {total} shaders failed to compile:\n");
    diagnostics.iter().fold(head, |text, diagnostic| text + &diagnostic.to_string() + "\n")
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error, hint: &'static str) -> Self {
        Self::Io { path: path.into(), source, hint }
    }

    /// An [`Error::Io`] for a path that does not exist.
    pub(crate) fn not_found(path: impl Into<PathBuf>, hint: &'static str) -> Self {
        Self::io(path, std::io::ErrorKind::NotFound.into(), hint)
    }
}
