//! # smolv-macros
//!
//! `include_shader!` and `include_shaders!`, which embed the shaders that
//! `smolv-build` compiled in `build.rs`. Use them through `smolv-runtime`,
//! which re-exports them (feature `macros`, on by default):
//!
//! ```text
//! static LIT: &smolv_runtime::Shader = smolv_runtime::include_shader!("lit.frag");
//! static ALL: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
//! ```
//!
//! The macros read `OUT_DIR/smolv/manifest.json` at compile time, check the
//! artifact, and embed it 4-byte aligned with `include_bytes!`, so a rebuilt
//! shader recompiles the crate that embeds it. A name that does not exist
//! is a compile error that lists the closest names.
#![forbid(unsafe_code)]

mod manifest;

use proc_macro::TokenStream;
use quote::quote;
use syn::LitStr;

use manifest::Manifest;

/// Embeds one shader as a `&'static smolv_runtime::Shader`.
///
/// The name is the module's: its path below the shader directory, then
/// `@variant` for a variant or `#entry` for a WGSL entry point, as in
/// `"lit.frag"`, `"post/blur.comp"`, `"lit.frag@shadows"` or
/// `"sky.wgsl#fs_main"`.
#[proc_macro]
pub fn include_shader(input: TokenStream) -> TokenStream {
    let name = match syn::parse::<LitStr>(input) {
        Ok(name) => name,
        Err(_) => {
            return compile_error(
                proc_macro2::Span::call_site(),
                "include_shader! takes one string literal: the shader's name, such as \"lit.frag\"",
            );
        }
    };
    let manifest = match Manifest::load() {
        Ok(manifest) => manifest,
        Err(message) => return compile_error(name.span(), &message),
    };
    let module = match manifest.module(&name.value()) {
        Ok(module) => module,
        Err(message) => return compile_error(name.span(), &message),
    };
    let container = module.artifact_path.to_string_lossy().into_owned();
    let dictionary = match &manifest.dictionary {
        Some(path) => {
            let path = path.to_string_lossy().into_owned();
            quote!(::core::option::Option::Some(::smolv_runtime::__private::include_bytes_aligned!(4, #path)))
        }
        None => quote!(::core::option::Option::None),
    };
    let shader_name = module.name;
    quote! {
        {
            static SHADER: ::smolv_runtime::Shader = ::smolv_runtime::Shader::from_static(
                #shader_name,
                ::smolv_runtime::__private::include_bytes_aligned!(4, #container),
                #dictionary,
            );
            &SHADER
        }
    }
    .into()
}

/// Embeds every shader of the crate as one `smolv_runtime::ShaderSet`: a
/// bundle whose shaders share one zstd dictionary.
#[proc_macro]
pub fn include_shaders(input: TokenStream) -> TokenStream {
    if !input.is_empty() {
        return compile_error(proc_macro2::Span::call_site(), "include_shaders! takes no arguments");
    }
    let manifest = match Manifest::load() {
        Ok(manifest) => manifest,
        Err(message) => return compile_error(proc_macro2::Span::call_site(), &message),
    };
    let bundle = manifest.bundle.to_string_lossy().into_owned();
    quote! {
        ::smolv_runtime::ShaderSet::from_static(::smolv_runtime::__private::include_bytes_aligned!(4, #bundle))
    }
    .into()
}

fn compile_error(span: proc_macro2::Span, message: &str) -> TokenStream {
    quote::quote_spanned!(span => ::core::compile_error!(#message)).into()
}
