//! How imported names are written in the linked WGSL: by their path, with
//! each `::` written as two U+02D0 (`ː`, a letter that looks like a colon),
//! so that the name is a WGSL identifier that still reads as the path:
//! `package::lighting::Light` is `packageːːlightingːːLight`. This is the
//! scheme of the wesl crate's `UnicodeMangler`, whose 0.4.0 release writes
//! ASCII `::` instead, which naga rejects. `output::types::names` undoes it.

use wesl::ModulePath;
use wesl::syntax::PathOrigin;

use crate::compile::frontend::WESL_SEPARATOR;

/// The mangler the build links WESL with.
pub(super) struct PathMangler;

impl wesl::Mangler for PathMangler {
    fn mangle(&self, path: &ModulePath, item: &str) -> String {
        let mut parts: Vec<&str> = match &path.origin {
            PathOrigin::Absolute => vec!["package"],
            PathOrigin::Relative(0) => vec!["self"],
            PathOrigin::Relative(n) => vec!["super"; *n],
            PathOrigin::Package(name) => vec![name.as_str()],
        };
        parts.extend(path.components.iter().map(String::as_str));
        parts.push(item);
        parts.join(WESL_SEPARATOR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wesl::Mangler;

    #[test]
    fn a_path_is_written_with_letters_that_look_like_colons() {
        let path: ModulePath = "package::lighting".parse().unwrap();
        assert_eq!(PathMangler.mangle(&path, "Light"), "package\u{2d0}\u{2d0}lighting\u{2d0}\u{2d0}Light");
        let package: ModulePath = "noise::hash".parse().unwrap();
        assert_eq!(PathMangler.mangle(&package, "pcg"), "noiseːːhashːːpcg");
    }
}
