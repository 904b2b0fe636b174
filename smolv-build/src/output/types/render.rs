//! Rust text for one lowered struct: definition, layout assertions, `Pod` impls, constructor, `Default`, `Debug`.

use std::fmt::Write;

use super::escape;
use super::lower::{FieldTy, Role, RustStruct};

/// Where generated code finds bytemuck: through smolv-runtime.
pub(crate) const BYTEMUCK: &str = "::smolv_runtime::__private::bytemuck";

/// The lints a generated item may trip in the crate that includes it.
pub(crate) const ALLOW_UNUSED: &str = "#[allow(dead_code, unreachable_pub)]";

/// Appends `text` to `out`, each line that is not empty after `prefix`.
pub(crate) fn indent(out: &mut String, text: &str, prefix: &str) {
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str(prefix);
            out.push_str(line);
        }
        out.push('\n');
    }
}

/// The Rust type of `ty`, structs through `path`, primitives by their full path (no user alias shadows it).
pub(crate) fn type_text(ty: &FieldTy, path: &dyn Fn(usize) -> String) -> String {
    match ty {
        FieldTy::Scalar(s) => format!("::core::primitive::{}", s.rust()),
        FieldTy::Array(element, len) => format!("[{}; {len}]", type_text(element, path)),
        FieldTy::Struct(index) => path(*index),
        FieldTy::Bytes(n) => format!("[::core::primitive::u8; {n}]"),
    }
}

/// Appends the struct, its assertions and impls to `out`, with `doc`'s lines.
pub(crate) fn render_struct(out: &mut String, rust: &RustStruct, doc: &[String], path: &dyn Fn(usize) -> String) {
    let name = &rust.name;
    for line in doc {
        let _ = writeln!(out, "/// {}", escape::doc(line));
    }
    let _ = writeln!(
        out,
        "#[repr(C)]\n#[derive(::core::clone::Clone, ::core::marker::Copy)]\n{ALLOW_UNUSED}\npub struct {name} {{"
    );
    for field in &rust.fields {
        let ty = type_text(&field.ty, path);
        if field.padding {
            let _ = writeln!(out, "    {}: {ty},", field.name);
            continue;
        }
        let _ = write!(out, "    /// Offset {}.", field.offset);
        if let Some(note) = &field.note {
            let _ = write!(out, " {}", escape::doc(note));
        }
        let _ = writeln!(out, "\n    pub {}: {ty},", field.name);
    }
    let _ = writeln!(out, "}}\n");

    // What makes the `Pod` impls sound: each field at its offset, and no padding of Rust's.
    let _ = writeln!(out, "const _: () = {{");
    let _ = writeln!(out, "    ::core::assert!(::core::mem::size_of::<{name}>() == {});", rust.size);
    let sum: Vec<String> =
        rust.fields.iter().map(|f| format!("::core::mem::size_of::<{}>()", type_text(&f.ty, path))).collect();
    let sum = if sum.is_empty() { "0".to_owned() } else { sum.join(" + ") };
    let _ = writeln!(out, "    ::core::assert!(::core::mem::size_of::<{name}>() == {sum});");
    for field in &rust.fields {
        let _ =
            writeln!(out, "    ::core::assert!(::core::mem::offset_of!({name}, {}) == {});", field.name, field.offset);
    }
    if let Role::Head { element, stride, .. } = &rust.role {
        let _ =
            writeln!(out, "    ::core::assert!(::core::mem::size_of::<{}>() == {stride});", type_text(element, path));
    }
    let _ = writeln!(out, "}};\n");
    let _ = writeln!(
        out,
        "// SAFETY: every field is `Pod`, and the assertions above show that the\n\
         // fields cover every byte: the struct has no padding of Rust's own.\n\
         #[allow(unsafe_code)]\n\
         unsafe impl {BYTEMUCK}::Zeroable for {name} {{}}\n\
         // SAFETY: as for `Zeroable`.\n\
         #[allow(unsafe_code)]\n\
         unsafe impl {BYTEMUCK}::Pod for {name} {{}}\n"
    );

    let real: Vec<_> = rust.fields.iter().filter(|f| !f.padding).collect();
    let _ = writeln!(out, "{ALLOW_UNUSED}\nimpl {name} {{");
    let _ = writeln!(
        out,
        "    /// Bytes the shader's layout takes.\n    pub const SIZE: ::core::primitive::usize = {};\n",
        rust.size
    );
    let parameters: Vec<String> = real.iter().map(|f| format!("{}: {}", f.name, type_text(&f.ty, path))).collect();
    let values: Vec<String> = rust
        .fields
        .iter()
        .map(|f| match (&f.ty, f.padding) {
            (FieldTy::Bytes(n), true) => format!("{}: [0; {n}]", f.name),
            _ => f.name.clone(),
        })
        .collect();
    let _ = writeln!(
        out,
        "    /// A value from its fields; the padding is zero.\n    #[allow(clippy::too_many_arguments)]\n    \
         pub const fn new({}) -> Self {{\n        Self {{ {} }}\n    }}",
        parameters.join(", "),
        values.join(", ")
    );
    let _ = writeln!(
        out,
        "\n    /// The bytes to upload: the shader's layout.\n    pub fn as_bytes(&self) -> &[::core::primitive::u8] {{\n        \
         {BYTEMUCK}::bytes_of(self)\n    }}"
    );
    if let Role::Head { offset, stride, .. } = &rust.role {
        let _ = writeln!(
            out,
            "\n    /// Where the runtime-sized array's first element starts.\n    \
             pub const ELEMENT_OFFSET: ::core::primitive::usize = {offset};\n    \
             /// Bytes from one element to the next.\n    pub const ELEMENT_STRIDE: ::core::primitive::usize = {stride};\n\n    \
             /// Bytes of a buffer that holds the head and `n` elements.\n    \
             pub const fn buffer_size(n: ::core::primitive::usize) -> ::core::primitive::usize {{\n        \
             Self::ELEMENT_OFFSET.saturating_add(n.saturating_mul(Self::ELEMENT_STRIDE))\n    }}"
        );
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(
        out,
        "impl ::core::default::Default for {name} {{\n    fn default() -> Self {{\n        {BYTEMUCK}::Zeroable::zeroed()\n    }}\n}}\n"
    );
    let fields: String =
        real.iter().map(|f| format!(".field(\"{}\", &self.{})", f.name.trim_start_matches("r#"), f.name)).collect();
    // By hand, over the public fields: a derive would compare the padding.
    let compared: Vec<String> = real.iter().map(|f| format!("self.{0} == other.{0}", f.name)).collect();
    let (other, compared) =
        if compared.is_empty() { ("_other", "true".to_owned()) } else { ("other", compared.join("\n            && ")) };
    let _ = writeln!(
        out,
        "impl ::core::cmp::PartialEq for {name} {{\n    fn eq(&self, {other}: &Self) -> ::core::primitive::bool {{\n        \
         {compared}\n    }}\n}}\n"
    );
    let _ = writeln!(
        out,
        "impl ::core::fmt::Debug for {name} {{\n    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {{\n        \
         f.debug_struct(\"{name}\"){fields}.finish()\n    }}\n}}\n"
    );
    if let (Role::Padded, [value, ..]) = (&rust.role, rust.fields.as_slice()) {
        let ty = type_text(&value.ty, path);
        let _ = writeln!(
            out,
            "impl ::core::convert::From<{ty}> for {name} {{\n    fn from(value: {ty}) -> Self {{\n        Self::new(value)\n    }}\n}}\n"
        );
    }
    if let Role::Head { element, .. } = &rust.role {
        let _ = writeln!(
            out,
            "/// One element of [`{name}`]'s runtime-sized array.\n{ALLOW_UNUSED}\npub type {name}Element = {};\n",
            type_text(element, path)
        );
    }
}
