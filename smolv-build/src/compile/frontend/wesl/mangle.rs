//! Imported names in the linked WGSL: their path with each `::` as [`WESL_SEPARATOR`]
//! (wesl 0.4.0's `UnicodeMangler` writes ASCII `::`, which naga rejects).

use wesl::ModulePath;
use wesl::syntax::PathOrigin;

use crate::compile::frontend::WESL_SEPARATOR;

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
