//! Rust names for shader names: the front end's mangling undone, then Rust's case, keywords escaped.

use super::layout::Mangling;
use crate::compile::frontend::WESL_SEPARATOR;

/// Words that need escaping as identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for",
    "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "try", "type", "unsafe", "use", "where", "while", "abstract", "become", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield",
];
/// Keywords that have no raw form.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// DXC's wrappers whose block is the wrapped type itself.
const DXC_SAME: &[&str] = &["ConstantBuffer", "PushConstant", "TextureBuffer"];
/// Slang's layout suffixes, after its `_N` suffix is gone.
const SLANG_LAYOUTS: &[&str] = &["_std140", "_std430", "_scalar", "_natural"];

/// A shader name as its source wrote it, for doc comments (WESL paths with `::` again).
pub(crate) fn as_written(name: &str) -> String {
    name.replace(WESL_SEPARATOR, "::")
}

/// The shader's name with the front end's mangling undone.
pub(crate) fn demangle(name: &str, mangling: Mangling) -> String {
    let name = name.rsplit("::").next().unwrap_or(name);
    // naga's std140 copy of an imported struct: `std140_packageːː…ːːX`.
    let std140 = mangling == Mangling::Wgsl && name.starts_with("std140_") && name.contains(WESL_SEPARATOR);
    let name = if mangling == Mangling::Wgsl { name.rsplit(WESL_SEPARATOR).next().unwrap_or(name) } else { name };
    if std140 {
        return name.to_owned();
    }
    match mangling {
        Mangling::Dxc | Mangling::None if name.starts_with("type.") => {
            let rest = &name["type.".len()..];
            match rest.split_once('.') {
                Some((kind, inner)) if DXC_SAME.contains(&kind) => inner.to_owned(),
                Some((kind, inner)) => format!("{kind}{}", upper_camel(inner)),
                None => rest.to_owned(),
            }
        }
        Mangling::Slang => {
            let mut name = name.strip_prefix("SLANG_ParameterGroup_").unwrap_or(name);
            if let Some((head, digits)) = name.rsplit_once('_')
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !head.is_empty()
            {
                name = head;
            }
            for suffix in SLANG_LAYOUTS {
                if let Some(head) = name.strip_suffix(suffix).filter(|h| !h.is_empty()) {
                    name = head;
                }
            }
            name.to_owned()
        }
        // naga's std140 copy of a struct that holds a `matCx2`.
        Mangling::Wgsl => name.strip_prefix("std140_").filter(|rest| !rest.is_empty()).unwrap_or(name).to_owned(),
        _ => name.to_owned(),
    }
}

/// The words of a name: split at non-alphanumerics and changes of case.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && previous.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `frame_data` → `FrameData`.
pub(crate) fn upper_camel(name: &str) -> String {
    // Words are ASCII and never empty.
    let joined: String =
        words(name).iter().map(|w| w[..1].to_ascii_uppercase() + &w[1..].to_ascii_lowercase()).collect();
    identifier(joined, "T")
}

/// `lightCount` → `light_count`.
pub(crate) fn snake(name: &str) -> String {
    identifier(words(name).join("_").to_ascii_lowercase(), "m")
}

/// `lightCount` → `LIGHT_COUNT`.
pub(crate) fn screaming(name: &str) -> String {
    identifier(words(name).join("_").to_ascii_uppercase(), "C")
}

/// A valid identifier: keywords escaped, `prefix` before a leading digit or for an empty name.
fn identifier(name: String, prefix: &str) -> String {
    if name.is_empty() {
        return prefix.to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("{prefix}{name}");
    }
    if NOT_RAW.contains(&name.as_str()) {
        return format!("{name}_");
    }
    if KEYWORDS.contains(&name.as_str()) {
        return format!("r#{name}");
    }
    name
}

/// Makes `name` unique among `taken` by a number after it (`Light2`), and takes it.
pub(crate) fn unique(name: String, taken: &mut std::collections::BTreeSet<String>) -> String {
    if taken.insert(name.clone()) {
        return name;
    }
    let base = name.trim_start_matches("r#");
    let separator = if base.ends_with(|c: char| c.is_ascii_digit()) { "_" } else { "" };
    (2..).map(|n| format!("{base}{separator}{n}")).find(|candidate| taken.insert(candidate.clone())).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_end_mangling_is_undone() {
        assert_eq!(demangle("type.ConstantBuffer.Frame", Mangling::Dxc), "Frame");
        assert_eq!(demangle("type.PushConstant.Push", Mangling::Dxc), "Push");
        assert_eq!(demangle("type.Globals", Mangling::Dxc), "Globals");
        assert_eq!(demangle("type.RWStructuredBuffer.Particle", Mangling::Dxc), "RWStructuredBufferParticle");
        assert_eq!(demangle("Frame_std140_0", Mangling::Slang), "Frame");
        assert_eq!(demangle("Light_0", Mangling::Slang), "Light");
        assert_eq!(demangle("SLANG_ParameterGroup_Globals_std140_0", Mangling::Slang), "Globals");
        assert_eq!(demangle("_0", Mangling::Slang), "_0", "nothing before the suffix: left alone");
        assert_eq!(demangle("lighting::Light", Mangling::Wgsl), "Light");
        assert_eq!(demangle("std140_Params", Mangling::Wgsl), "Params");
        assert_eq!(demangle("package\u{2d0}\u{2d0}lighting\u{2d0}\u{2d0}Light", Mangling::Wgsl), "Light", "WESL");
        assert_eq!(demangle("std140_noise\u{2d0}\u{2d0}Params", Mangling::Wgsl), "Params", "WESL's, in std140");
        assert_eq!(demangle("pbr_Light", Mangling::Wgsl), "pbr_Light", "an underscore is no separator");
        assert_eq!(as_written("package\u{2d0}\u{2d0}lighting\u{2d0}\u{2d0}Light"), "package::lighting::Light");
        assert_eq!(demangle("Light_0", Mangling::None), "Light_0", "GLSL names are as written");
    }

    #[test]
    fn names_take_rust_case_and_keywords_are_escaped() {
        assert_eq!(upper_camel("frame_data"), "FrameData");
        assert_eq!(upper_camel("FRAME"), "Frame");
        assert_eq!(upper_camel("HDRSettings"), "HdrSettings");
        assert_eq!(snake("lightCount"), "light_count");
        assert_eq!(snake("viewProj"), "view_proj");
        assert_eq!(snake("HDRSettings"), "hdr_settings");
        assert_eq!(snake("type"), "r#type");
        assert_eq!(snake("self"), "self_");
        assert_eq!(snake("2d"), "m2d");
        assert_eq!(snake(""), "m");
        assert_eq!(screaming("lightCount"), "LIGHT_COUNT");
        assert_eq!(snake("lit.frag@shadows"), "lit_frag_shadows", "a module's Rust module");
        assert_eq!(snake("sky.wgsl#fs_main"), "sky_wgsl_fs_main");
        assert_eq!(snake("post/blur.comp"), "post_blur_comp");
    }

    #[test]
    fn taken_names_get_a_number() {
        let mut taken = Default::default();
        assert_eq!(unique("Light".into(), &mut taken), "Light");
        assert_eq!(unique("Light".into(), &mut taken), "Light2");
        assert_eq!(unique("Light".into(), &mut taken), "Light3");
        assert_eq!(unique("Mat4".into(), &mut taken), "Mat4");
        assert_eq!(unique("Mat4".into(), &mut taken), "Mat4_2");
    }
}
