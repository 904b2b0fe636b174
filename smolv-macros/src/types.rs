//! `include_types!`: `include!` of `OUT_DIR/smolv/types.rs`.

use proc_macro::TokenStream;
use quote::quote;

/// `include!` of the generated file, or a compile error that says how to make it.
pub(crate) fn include_types(input: TokenStream) -> TokenStream {
    let span = proc_macro2::Span::call_site();
    if !input.is_empty() {
        return super::compile_error(span, "include_types! takes no arguments: it includes every shader's types");
    }
    let path = match super::artifact_dir() {
        Ok(dir) => dir.join(smolv_format::TYPES_FILE),
        Err(message) => return super::compile_error(span, message),
    };
    if !path.is_file() {
        let message = format!(
            "smolv: {} does not exist; build the shaders with a smolv-build that generates types (0.1 with issue 29), \
             in build.rs",
            path.display()
        );
        return super::compile_error(span, &message);
    }
    let path = super::path_literal(&path);
    // `include!` makes Cargo rebuild the crate when the file changes.
    quote!(::core::include!(#path);).into()
}
