//! What the reloader reports after each edit, and how it prints it.

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use smolv_build::Diagnostic;

use crate::layout::LayoutChange;

/// What one edit did to one or more shaders; displays as the reloader prints it on stderr.
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
/// assert_eq!(done.to_string(), "compiled post.frag in 41 ms");
///
/// let broken = Event::Failed {
///     errors: vec![smolv_build::Diagnostic::new("shaders/post.frag", 12, 5, "'colr' : undeclared identifier")],
///     kept: vec!["post.frag".into()],
/// };
/// assert_eq!(
///     broken.to_string(),
///     "shader error: shaders/post.frag:12:5: 'colr' : undeclared identifier\n\
///      kept the previous post.frag; fix the error and save to reload"
/// );
/// assert_eq!(broken.summary(), "shader error: shaders/post.frag:12:5: 'colr' : undeclared identifier");
///
/// let moved = Event::RebuildIncompatible {
///     name: "post.frag".into(),
///     source: "shaders/post.frag".into(),
///     changes: vec![
///         smolv_reload::LayoutChange::new(smolv_format::reflect::BlockKind::Uniform, Some(0), Some(0), "Frame")
///             .rust_type("Frame")
///             .difference("member `time` moved from offset 64 to 80"),
///     ],
/// };
/// assert_eq!(
///     moved.to_string(),
///     "shader error: shaders/post.frag: the uniform buffer `Frame` (set 0, binding 0) no longer matches its \
///      generated Rust type `Frame`: member `time` moved from offset 64 to 80\n\
///      kept the previous post.frag: the program was built with the old layout; undo the change, or rebuild the \
///      program to use it"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// The shader compiled, and its new SPIR-V is published with the rest of the edit.
    Reloaded {
        /// The shader's name.
        name: String,
        /// Its version after this reload.
        version: u64,
        /// When the first file event of the edit arrived.
        seen: Instant,
        /// From the first file event of the edit to the SPIR-V published.
        elapsed: Duration,
    },
    /// The edit does not compile: the shaders in `kept` keep their previous SPIR-V.
    Failed {
        /// Every error, as the build reports it.
        errors: Vec<Diagnostic>,
        /// The shaders that keep their previous SPIR-V.
        kept: Vec<String>,
    },
    /// The edit compiles, but moves the bytes of a block the program fills: the shader keeps its
    /// previous SPIR-V.
    RebuildIncompatible {
        /// The shader's name.
        name: String,
        /// Its source file.
        source: PathBuf,
        /// Each block whose layout changed, with its generated Rust type.
        changes: Vec<LayoutChange>,
    },
    /// These shaders compiled and fit, but another of the same edit did not: they keep their
    /// previous SPIR-V too.
    ///
    /// ```
    /// let held = smolv_reload::Event::HeldBack { kept: vec!["tri.vert".into()], failed: vec!["tri.frag".into()] };
    /// assert_eq!(
    ///     held.to_string(),
    ///     "kept the previous tri.vert too: it changed in the same edit as tri.frag, which did not reload, and the \
    ///      shaders of one edit reload together"
    /// );
    /// ```
    HeldBack {
        /// The shaders that keep their previous SPIR-V.
        kept: Vec<String>,
        /// The shaders of the edit that failed or were refused.
        failed: Vec<String>,
    },
}

impl Event {
    /// One line for a window title or a status bar: the `compiled` line, or the first error.
    ///
    /// ```
    /// let done = smolv_reload::Event::Reloaded {
    ///     name: "post.frag".into(),
    ///     version: 1,
    ///     seen: std::time::Instant::now(),
    ///     elapsed: std::time::Duration::from_millis(7),
    /// };
    /// assert_eq!(done.summary(), "compiled post.frag in 7 ms");
    /// ```
    pub fn summary(&self) -> String {
        match self {
            Self::Reloaded { .. } | Self::HeldBack { .. } => self.to_string(),
            Self::Failed { errors, kept } => match errors.first() {
                Some(first) => format!("shader error: {}", first.headline()),
                None => format!("shader error in {}", kept.join(", ")),
            },
            Self::RebuildIncompatible { name, changes, .. } => match changes.first() {
                Some(first) => format!("kept the previous {name}: {first}"),
                None => format!("kept the previous {name}"),
            },
        }
    }

    /// The shaders this event says keep their previous SPIR-V.
    pub(crate) fn kept(&self) -> impl Iterator<Item = &str> {
        let names: &[String] = match self {
            Self::Reloaded { .. } => &[],
            Self::Failed { kept, .. } | Self::HeldBack { kept, .. } => kept,
            Self::RebuildIncompatible { name, .. } => std::slice::from_ref(name),
        };
        names.iter().map(String::as_str)
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reloaded { name, elapsed, .. } => write!(f, "compiled {name} in {} ms", elapsed.as_millis()),
            Self::Failed { errors, kept } => {
                for error in errors {
                    writeln!(f, "shader error: {}", error.headline())?;
                    if let Some(rendered) = &error.rendered {
                        writeln!(f, "{}", rendered.trim_end())?;
                    }
                }
                write!(f, "kept the previous {}; fix the error and save to reload", kept.join(", "))
            }
            Self::RebuildIncompatible { name, source, changes } => {
                for change in changes {
                    writeln!(f, "shader error: {}: {change}", source.display())?;
                }
                write!(
                    f,
                    "kept the previous {name}: the program was built with the old layout; undo the change, or \
                     rebuild the program to use it"
                )
            }
            Self::HeldBack { kept, failed } => write!(
                f,
                "kept the previous {} too: {} changed in the same edit as {}, which did not reload, and the shaders \
                 of one edit reload together",
                kept.join(", "),
                if kept.len() == 1 { "it" } else { "they" },
                failed.join(", ")
            ),
        }
    }
}
