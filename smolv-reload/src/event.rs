//! What the reloader reports after each edit, and how it prints it.

use std::fmt;
use std::time::{Duration, Instant};

use smolv_build::Diagnostic;

/// What one edit did to one or more shaders. It displays as the reloader
/// prints it on stderr: `reloaded post.frag in 41 ms`, or one
/// `shader error: path:line:col: message` line per error (the build's
/// format) followed by the shaders that keep their previous SPIR-V.
///
/// ```
/// use std::time::{Duration, Instant};
/// use smolv_reload::Event;
///
/// let done = Event::Reloaded {
///     name: "post.frag".into(),
///     version: 2,
///     seen: std::time::Instant::now(),
///     elapsed: Duration::from_millis(41),
/// };
/// assert_eq!(done.to_string(), "reloaded post.frag in 41 ms");
///
/// let broken = Event::Failed {
///     errors: vec![smolv_build::Diagnostic {
///         path: "shaders/post.frag".into(),
///         line: 12,
///         column: 5,
///         message: "'colr' : undeclared identifier".into(),
///         rendered: None,
///     }],
///     kept: vec!["post.frag".into()],
/// };
/// assert_eq!(
///     broken.to_string(),
///     "shader error: shaders/post.frag:12:5: 'colr' : undeclared identifier\n\
///      kept the previous post.frag; fix the error and save to reload"
/// );
/// assert_eq!(broken.summary(), "shader error: shaders/post.frag:12:5: 'colr' : undeclared identifier");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// The shader compiled, and its new SPIR-V is published
    /// ([`Shader::version`](smolv_runtime::Shader::version) is `version`).
    Reloaded {
        /// The shader's name.
        name: String,
        /// Its version after this reload.
        version: u64,
        /// When the first file event of the edit arrived: the start of
        /// whatever the app times (its new pipeline, its first new frame).
        seen: Instant,
        /// From the first file event of the edit to the SPIR-V published.
        elapsed: Duration,
    },
    /// The edit does not compile: the shaders in `kept` keep their previous
    /// SPIR-V until a later save compiles.
    Failed {
        /// Every error, as the build reports it.
        errors: Vec<Diagnostic>,
        /// The shaders that keep their previous SPIR-V.
        kept: Vec<String>,
    },
}

impl Event {
    /// One line for a window title or a status bar: the `reloaded` line, or
    /// the first error.
    ///
    /// ```
    /// let done = smolv_reload::Event::Reloaded {
    ///     name: "post.frag".into(),
    ///     version: 1,
    ///     seen: std::time::Instant::now(),
    ///     elapsed: std::time::Duration::from_millis(7),
    /// };
    /// assert_eq!(done.summary(), "reloaded post.frag in 7 ms");
    /// ```
    pub fn summary(&self) -> String {
        match self {
            Self::Reloaded { .. } => self.to_string(),
            Self::Failed { errors, kept } => match errors.first() {
                Some(first) => format!("shader error: {}", first.headline()),
                None => format!("shader error in {}", kept.join(", ")),
            },
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reloaded { name, elapsed, .. } => write!(f, "reloaded {name} in {} ms", elapsed.as_millis()),
            Self::Failed { errors, kept } => {
                for error in errors {
                    writeln!(f, "shader error: {}", error.headline())?;
                    if let Some(rendered) = &error.rendered {
                        writeln!(f, "{}", rendered.trim_end())?;
                    }
                }
                write!(f, "kept the previous {}; fix the error and save to reload", kept.join(", "))
            }
        }
    }
}
