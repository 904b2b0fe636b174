//! Minifying the WGSL naga writes: short names in the module, then no whitespace.

use naga::{Module, TypeInner, UniqueArena};

/// Short names (`a`, `b`, …, `aa`, …; letters only, as naga appends `_` after a digit) for everything
/// but entry points and overrides.
pub(crate) fn shorten_names(module: &mut Module) {
    let mut names = ShortNames::default();
    let old = std::mem::take(&mut module.types);
    let mut types = UniqueArena::new();
    // If a renamed type did not keep its handle, the module keeps the names.
    let kept_handles = old.iter().all(|(handle, ty)| {
        let mut ty = ty.clone();
        // A struct without a name would be written `type_<index>`.
        let is_struct = matches!(ty.inner, TypeInner::Struct { .. });
        ty.name = (ty.name.is_some() || is_struct).then(|| names.next());
        if let TypeInner::Struct { members, .. } = &mut ty.inner {
            members.iter_mut().for_each(|m| m.name = Some(names.next()));
        }
        types.insert(ty, old.get_span(handle)) == handle
    });
    module.types = if kept_handles { types } else { old };
    module.constants.iter_mut().for_each(|(_, c)| c.name = Some(names.next()));
    module.global_variables.iter_mut().for_each(|(_, g)| g.name = Some(names.next()));
    let functions = module.functions.iter_mut().map(|(_, f)| (f, true));
    let entry_points = module.entry_points.iter_mut().map(|e| (&mut e.function, false));
    for (function, rename) in functions.chain(entry_points) {
        if rename {
            function.name = Some(names.next());
        }
        function.arguments.iter_mut().for_each(|a| a.name = Some(names.next()));
        function.local_variables.iter_mut().for_each(|(_, l)| l.name = Some(names.next()));
        // Unnamed, naga names what it binds with `let` `_e<index>`.
        function.named_expressions.clear();
    }
}

/// `a`…`z`, `A`…`Z`, `aa`, `ab`, …: unique names of letters.
#[derive(Default)]
struct ShortNames {
    next: usize,
}

impl ShortNames {
    fn next(&mut self) -> String {
        const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let count = LETTERS.len();
        let digits = std::iter::successors(Some(self.next), |&n| (n >= count).then(|| n / count - 1));
        let mut name: Vec<char> = digits.map(|n| char::from(LETTERS[n % count])).collect();
        self.next += 1;
        name.reverse();
        name.into_iter().collect()
    }
}

/// WGSL without comments and needless whitespace; naga's `_e<index>` names become short ones.
pub(crate) fn squeeze(text: &str) -> String {
    let renamed = rename_baked(text);
    let mut out = String::with_capacity(renamed.len());
    let mut pending_space = false;
    let mut chars = renamed.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '/' && chars.peek() == Some(&'/') {
            chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
            pending_space = true;
            continue;
        }
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space
            && let Some(last) = out.chars().next_back()
            && ((word(last) && word(c)) || (operator(last) && operator(c)))
        {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

fn word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn operator(c: char) -> bool {
    "+-*/%&|^<>=!~".contains(c)
}

/// Replaces naga's `_e<digits>` names with `_` and letters.
fn rename_baked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut names = std::collections::HashMap::new();
    let mut short = ShortNames::default();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let starts_word = i == 0 || !word(char::from(bytes[i - 1]));
        if starts_word && text[i..].starts_with("_e") {
            let digits = text[i + 2..].bytes().take_while(u8::is_ascii_digit).count();
            let end = i + 2 + digits;
            if digits > 0 && !text[end..].starts_with(|c: char| word(c)) {
                out.push_str(names.entry(&text[i..end]).or_insert_with(|| format!("_{}", short.next())));
                i = end;
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeeze_keeps_only_the_spaces_tokens_need() {
        let text = "// naga\n@group(0) @binding(1)\nvar<uniform> a: vec4<f32>;\n\nfn b() -> f32 {\n    let _e12 = a.x - -1f;\n    return (_e12 + _e3);\n}\n";
        assert_eq!(
            squeeze(text),
            "@group(0)@binding(1)var<uniform>a:vec4<f32>;fn b()->f32{let _a=a.x- -1f;return(_a+_b);}"
        );
    }

    #[test]
    fn short_names_are_letters_and_unique() {
        let mut names = ShortNames::default();
        let all: Vec<String> = (0..3000).map(|_| names.next()).collect();
        assert_eq!((&all[0][..], &all[51][..], &all[52][..], &all[53][..]), ("a", "Z", "aa", "ab"));
        assert!(all.iter().all(|n| n.chars().all(|c| c.is_ascii_alphabetic())));
        let unique: std::collections::BTreeSet<&String> = all.iter().collect();
        assert_eq!(unique.len(), all.len());
    }
}
