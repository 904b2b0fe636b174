//! # smolv-macros
//!
//! `include_shader!` and `include_shaders!`, which embed the shaders `smolv-build`
//! compiled; use them through `smolv-runtime`'s re-exports (feature `macros`).
//!
//! ## A first crate
//!
//! ```toml
//! # Cargo.toml
//! [dependencies]
//! smolv-runtime = "0.1"
//!
//! [build-dependencies]
//! smolv-build = "0.1"
//! ```
//!
//! ```text
//! // build.rs
//! fn main() {
//!     smolv_build::Config::new().shader_dir("shaders").compile();
//! }
//! ```
//!
//! ```text
//! // src/main.rs, with shaders/lit.frag and shaders/sky.wgsl
//! static LIT: &smolv_runtime::Shader = smolv_runtime::include_shader!("lit.frag");
//! smolv_runtime::include_shaders!(static ALL);
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let lit: Vec<u32> = LIT.decode()?; // SPIR-V words
//!     let sky = ALL.get("sky.wgsl#fs_main")?.decode()?; // WGSL: one shader per entry point
//!     println!("{} and {} words", lit.len(), sky.len());
//!     Ok(())
//! }
//! ```
//!
//! The macros embed the artifacts `OUT_DIR/smolv/manifest.json` lists; an unknown
//! name is a compile error listing the closest.
#![forbid(unsafe_code)]

mod check;
mod manifest;
mod types;

use proc_macro::TokenStream;
use quote::quote;
use syn::LitStr;

use manifest::Manifest;
use smolv_format::{Codec, WgslCodec};

/// Embeds one shader as a `&'static smolv_runtime::Shader`.
///
/// The name is the path below the shader directory, then `@variant` or `#entry` (WGSL):
/// `"post/blur.comp"`, `"lit.frag@shadows"`, `"sky.wgsl#fs_main"`. Not run here (needs smolv-build):
///
/// ```text
/// static LIT: &smolv_runtime::Shader = smolv_runtime::include_shader!("lit.frag");
/// static SKY: &smolv_runtime::Shader = smolv_runtime::include_shader!("sky.wgsl#fs_main");
///
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let words: Vec<u32> = LIT.decode()?;
///     println!("{}: {} words, {:?}", LIT.name(), words.len(), SKY.reflection()?.stage);
///     Ok(())
/// }
/// ```
#[proc_macro]
pub fn include_shader(input: TokenStream) -> TokenStream {
    let Ok(name) = syn::parse::<LitStr>(input) else {
        return compile_error(
            proc_macro2::Span::call_site(),
            "include_shader! takes one string literal: the shader's name, such as \"lit.frag\"",
        );
    };
    shader_tokens(&name.value()).unwrap_or_else(|message| compile_error(name.span(), &message))
}

/// What `include_shader!(name)` expands to.
fn shader_tokens(name: &str) -> Result<TokenStream, String> {
    let manifest = Manifest::load()?;
    let origin = origin_tokens(&manifest, name);
    if let Some(text) = manifest.wgsl_text(name) {
        let text = path_literal(text);
        return Ok(lone_shader(quote!(), quote!(wgsl #name, ::core::include_str!(#text); #origin)));
    }
    let (data, module) = manifest.module(name)?;
    let data = path_literal(&data);
    if let Some(kind) = words_codec(manifest.packing.codec) {
        let words = words_static(&quote!(::core::include_bytes!(#data)), module.spirv_bytes);
        let len = module.spirv_bytes / 4;
        let shader = quote!(#kind #name, ::smolv_runtime::__private::spirv_module(&WORDS, 0, #len); #origin);
        return Ok(lone_shader(words, shader));
    }
    let unpacker = module_unpacker(manifest.packing.codec)?;
    let dictionary = dictionary(&manifest.packing.dictionary);
    // A dictionary codec's module needs the dictionary's unpacked length
    // and check, which only the set's directory records.
    let (dictionary_len, dictionary_check) =
        if manifest.packing.dictionary.is_some() { manifest.directory()?.once } else { (0, 0) };
    let (Ok(unpacked_len), Ok(spirv_len)) = (u32::try_from(module.unpacked_bytes), u32::try_from(module.spirv_bytes))
    else {
        return Err("smolv: this shader is larger than 4 GiB".to_owned());
    };
    let check = module.check;
    let module = quote! {
        static MODULE: ::smolv_runtime::__private::EmbeddedModule = ::smolv_runtime::__private::EmbeddedModule::new(
            #name,
            #unpacker,
            ::smolv_runtime::__private::include_bytes_aligned!(4, #data),
            #dictionary,
            (#dictionary_len, #dictionary_check),
            #unpacked_len,
            #spirv_len,
            #check,
        );
    };
    Ok(lone_shader(module, quote!(alone &MODULE; #origin)))
}

/// `items`, then `static SHADER` made by `__smolv_shader!(shader)`, as a `&'static Shader`.
fn lone_shader(items: proc_macro2::TokenStream, shader: proc_macro2::TokenStream) -> TokenStream {
    quote! {
        {
            #items
            static SHADER: ::smolv_runtime::Shader = ::smolv_runtime::__smolv_shader!(#shader);
            &SHADER
        }
    }
    .into()
}

/// Embeds every shader of the crate as one `smolv_runtime::ShaderSet` (not run here, as for
/// [`include_shader!`](macro@include_shader)):
///
/// ```text
/// smolv_runtime::include_shaders!(static ALL);
///
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     for shader in ALL.shaders() {
///         println!("{}: {} words", shader.name(), shader.decode()?.len());
///     }
///     let sky = ALL.get("sky.wgsl#fs_main")?.decode()?;
///     Ok(())
/// }
/// ```
///
/// `include_shaders!(static ALL);` declares a small raw SPIR-V set as a `ShaderSet<Raw>`; any
/// other set, and `static ALL: ShaderSet = include_shaders!();`, is a `ShaderSet`.
#[proc_macro]
pub fn include_shaders(input: TokenStream) -> TokenStream {
    let span = proc_macro2::Span::call_site();
    let Ok(declared) = (!input.is_empty()).then(|| syn::parse::<Declared>(input)).transpose() else {
        return compile_error(
            span,
            "include_shaders! takes nothing (an expression for `static ALL: ShaderSet = ...`) \
             or `static NAME` (which declares it, typed by its packing)",
        );
    };
    match (Manifest::load().and_then(|manifest| set_tokens(&manifest, declared.is_some())), declared) {
        (Err(message), _) => compile_error(span, &message),
        (Ok(set), None) => set.expression.into(),
        (Ok(SetTokens { ty, expression }), Some(Declared { prefix, name })) => {
            quote!(#prefix static #name: #ty = #expression;).into()
        }
    }
}

/// `include_shaders!(static NAME)`: attributes and visibility, then `static NAME`, maybe `;`.
struct Declared {
    prefix: proc_macro2::TokenStream,
    name: syn::Ident,
}

impl syn::parse::Parse for Declared {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let mut prefix = proc_macro2::TokenStream::new();
        while !input.peek(syn::Token![static]) {
            prefix.extend([input.parse::<proc_macro2::TokenTree>()?]);
        }
        input.parse::<syn::Token![static]>()?;
        let name = input.parse()?;
        if input.peek(syn::Token![;]) {
            input.parse::<syn::Token![;]>()?;
        }
        if !input.is_empty() {
            return Err(input.error("expected the end of the macro's input"));
        }
        Ok(Self { prefix, name })
    }
}

/// A set's expression, and the type of the `static` it is declared as.
struct SetTokens {
    ty: proc_macro2::TokenStream,
    expression: proc_macro2::TokenStream,
}

/// The set `manifest` describes; with `typed`, a small raw set is a `ShaderSet<Raw>`.
fn set_tokens(manifest: &Manifest, typed: bool) -> Result<SetTokens, String> {
    let packed = quote!(::smolv_runtime::ShaderSet);
    let (directory, unpacker) = (manifest.directory()?, unpacker(manifest.packing.codec));
    let data = path_literal(&manifest.packing.data);
    let dictionary = dictionary(&manifest.packing.dictionary);
    let mut names = String::new();
    let mut entries = Vec::with_capacity(directory.entries.len());
    for entry in &directory.entries {
        names.push_str(&entry.name);
        let Ok(name_end) = u32::try_from(names.len()) else {
            return Err("smolv: the shader names are longer than 4 GiB together".to_owned());
        };
        let check::Entry { offset, packed_len: packed, unpacked_len: unpacked, spirv_len: spirv, check, .. } = entry;
        entries.push(quote! {
            ::smolv_runtime::__private::EmbeddedEntry::new(#name_end, #offset, #packed, #unpacked, #spirv, #check)
        });
    }
    let (once_len, once_check) = directory.once;
    let set = quote! {
        static SET: ::smolv_runtime::__private::EmbeddedSet = ::smolv_runtime::__private::EmbeddedSet::new(
            #unpacker,
            ::smolv_runtime::__private::include_bytes_aligned!(4, #data),
            #dictionary,
            #names,
            &[#(#entries),*],
            (#once_len, #once_check),
        );
    };
    if let Some(wgsl) = &manifest.wgsl {
        return Ok(SetTokens { ty: packed, expression: with_wgsl(manifest, wgsl, &directory, set)? });
    }
    let count = entries.len();
    // Small sets get a `static` shader per module, large ones make theirs on first access.
    let static_shaders = count <= static_shaders_up_to(&manifest.packing.goal);
    if typed && static_shaders && manifest.packing.codec == Codec::Spirv {
        let expression = words_set(manifest, &directory, &data, &quote!(raw_in_set), true)?;
        return Ok(SetTokens { ty: quote!(::smolv_runtime::ShaderSet<::smolv_runtime::shader::Raw>), expression });
    }
    if let Some(kind) = words_codec(manifest.packing.codec).filter(|_| static_shaders) {
        let expression = words_set(manifest, &directory, &data, &kind, false)?;
        return Ok(SetTokens { ty: packed, expression });
    }
    let shaders = in_set(manifest, &directory).map(|(_, shader)| shader);
    let expression = quote! {
        {
            #set
            ::smolv_runtime::__smolv_set!(#static_shaders; &SET; #count; [#(#shaders),*])
        }
    };
    Ok(SetTokens { ty: packed, expression })
}

/// A set that shipped WGSL: the SPIR-V `set` of the modules naga refused, the WGSL of the others.
fn with_wgsl(
    manifest: &Manifest,
    wgsl: &manifest::Wgsl,
    directory: &check::Directory,
    set: proc_macro2::TokenStream,
) -> Result<proc_macro2::TokenStream, String> {
    let too_large = || "smolv: the WGSL is larger than 4 GiB".to_owned();
    let mut names = String::new();
    let mut entries = Vec::with_capacity(wgsl.modules.len());
    for (name, _, offset, len) in &wgsl.modules {
        names.push_str(name);
        let name_end = u32::try_from(names.len()).map_err(|_| too_large())?;
        let offset = u32::try_from(*offset).map_err(|_| too_large())?;
        let len = u32::try_from(*len).map_err(|_| too_large())?;
        entries.push(quote!(::smolv_runtime::__private::WgslEntry::new(#name_end, #offset, #len)));
    }
    let mut shaders: Vec<(&str, proc_macro2::TokenStream)> = in_set(manifest, directory).collect();
    for (index, (name, ..)) in wgsl.modules.iter().enumerate() {
        let origin = origin_tokens(manifest, name);
        shaders.push((name, quote!(::smolv_runtime::__smolv_shader!(in_wgsl_set &WGSL_SET, #index; #origin))));
    }
    shaders.sort_by(|a, b| a.0.cmp(b.0));
    if shaders.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return Err("smolv: a module ships both as WGSL and as SPIR-V; rebuild".to_owned());
    }
    let shaders: Vec<_> = shaders.into_iter().map(|(_, tokens)| tokens).collect();
    let count = shaders.len();
    let unpacker = match wgsl.codec {
        WgslCodec::Wgsl => quote!(&::smolv_runtime::__private::WGSL),
        WgslCodec::WgslLz4 => quote!(::smolv_runtime::__smolv_lz4!(WGSL_LZ4)),
        WgslCodec::WgslZstd => quote!(::smolv_runtime::__smolv_zstd!(WGSL_ZSTD)),
    };
    let data = path_literal(&wgsl.data);
    let unpacked_len = u32::try_from(wgsl.unpacked_len).map_err(|_| too_large())?;
    let check = wgsl.check;
    Ok(quote! {
        {
            #set
            static WGSL_SET: ::smolv_runtime::__private::WgslSet = ::smolv_runtime::__private::WgslSet::new(
                #unpacker,
                ::core::include_bytes!(#data),
                #names,
                &[#(#entries),*],
                (#unpacked_len, #check),
            );
            ::smolv_runtime::__smolv_set!(true; &SET; #count; [#(#shaders),*])
        }
    })
}

/// `__smolv_shader!` of each module of the embedded `SET`, with its name.
fn in_set<'a>(
    manifest: &'a Manifest,
    directory: &'a check::Directory,
) -> impl Iterator<Item = (&'a str, proc_macro2::TokenStream)> + 'a {
    directory.entries.iter().enumerate().map(|(index, entry)| {
        let origin = origin_tokens(manifest, &entry.name);
        (entry.name.as_str(), quote!(::smolv_runtime::__smolv_shader!(in_set &SET, #index; #origin)))
    })
}

/// The kind of shader `__smolv_shader!` makes of a module whose data is words; `None` for other codecs.
fn words_codec(codec: Codec) -> Option<proc_macro2::TokenStream> {
    match codec {
        Codec::Spirv => Some(quote!(raw)),
        Codec::SpirvRelativeIds => Some(quote!(relative_ids)),
        _ => None,
    }
}

/// A small set of words: a `static` shader of `kind` per module, each a part of one `static` of
/// words, so no table, byte blob or unpacker reach the binary.
fn words_set(
    manifest: &Manifest,
    directory: &check::Directory,
    data: &str,
    kind: &proc_macro2::TokenStream,
    raw: bool,
) -> Result<proc_macro2::TokenStream, String> {
    let too_large = |what: &str| format!("smolv: {what} is too large for the compiling machine");
    let stored_len = manifest.packing.stored_bytes;
    let data_len =
        usize::try_from(manifest::file_len(&manifest.packing.data)?).map_err(|_| too_large("the shader set"))?;
    if !data_len.is_multiple_of(4) {
        return Err(format!("smolv: {} is not whole SPIR-V words; rebuild", manifest.packing.data.display()));
    }
    let mut shaders = Vec::with_capacity(directory.entries.len());
    for entry in &directory.entries {
        let start = usize::try_from(entry.offset).map_err(|_| too_large(&entry.name))? / 4;
        let len = usize::try_from(entry.spirv_len).map_err(|_| too_large(&entry.name))? / 4;
        let (name, origin) = (&entry.name, origin_tokens(manifest, &entry.name));
        shaders.push(quote! {
            ::smolv_runtime::__smolv_shader!(
                #kind #name, ::smolv_runtime::__private::spirv_module(&WORDS, #start, #len); #origin
            )
        });
    }
    let words = words_static(&quote!(::core::include_bytes!(#data)), data_len);
    let count = shaders.len();
    let (shader, set) = if raw {
        let set = quote!(::smolv_runtime::ShaderSet::<::smolv_runtime::shader::Raw>::raw(&SHADERS, #stored_len));
        (quote!(::smolv_runtime::shader::RawShader), set)
    } else {
        let codec = codec_path(manifest.packing.codec);
        (quote!(::smolv_runtime::Shader), quote!(::smolv_runtime::ShaderSet::words(&SHADERS, #stored_len, #codec)))
    };
    Ok(quote! {
        {
            #words
            static SHADERS: [#shader; #count] = [#(#shaders),*];
            #set
        }
    })
}

/// `static WORDS`: `data` (`len` bytes) as little-endian words, made at compile time.
fn words_static(data: &proc_macro2::TokenStream, len: usize) -> proc_macro2::TokenStream {
    let words = len / 4;
    quote! {
        #[allow(long_running_const_eval)]
        static WORDS: [u32; #words] = ::smolv_runtime::__private::le_words::<#len, #words>(#data);
    }
}

/// The most modules a set gets `static` shaders for (32 bytes each, against 1.2 KB of code to
/// make them on first access).
fn static_shaders_up_to(goal: &str) -> usize {
    if goal == "download" { 40 } else { 16 }
}

/// The unpacker of `codec`, or for a compressing codec the macro that names it or the feature it needs.
fn unpacker(codec: Codec) -> proc_macro2::TokenStream {
    match codec {
        Codec::Spirv => quote!(&::smolv_runtime::__private::RAW),
        Codec::SpirvRelativeIds => quote!(&::smolv_runtime::__private::RELATIVE_IDS),
        Codec::Smolv => quote!(&::smolv_runtime::__private::SMOLV),
        Codec::SmolvLz4 => quote!(::smolv_runtime::__smolv_lz4!(SMOLV_LZ4)),
        Codec::SpirvRelativeIdsLz4 => quote!(::smolv_runtime::__smolv_lz4!(RELATIVE_IDS_LZ4)),
        Codec::SmolvZstd => quote!(::smolv_runtime::__smolv_zstd!(SMOLV_ZSTD)),
        Codec::SmolvZstdDictionary => quote!(::smolv_runtime::__smolv_zstd!(SMOLV_ZSTD_DICTIONARY)),
    }
}

/// What `include_shader!` names for a lone module of `codec`.
fn module_unpacker(codec: Codec) -> Result<proc_macro2::TokenStream, String> {
    Ok(match codec {
        Codec::Spirv | Codec::SpirvRelativeIds => {
            return Err("smolv: a module of words has no unpacker; this is a smolv-macros bug".to_owned());
        }
        Codec::Smolv => quote!(&::smolv_runtime::__private::SMOLV_MODULE),
        Codec::SmolvLz4 => quote!(::smolv_runtime::__smolv_lz4!(SMOLV_LZ4_MODULE)),
        Codec::SpirvRelativeIdsLz4 => quote!(::smolv_runtime::__smolv_lz4!(RELATIVE_IDS_LZ4_MODULE)),
        Codec::SmolvZstd | Codec::SmolvZstdDictionary => quote!(::smolv_runtime::__smolv_zstd!(SMOLV_ZSTD_MODULE)),
    })
}

/// The path of `codec` in the macros' output.
fn codec_path(codec: Codec) -> proc_macro2::TokenStream {
    // `Codec`'s derived `Debug` is the variant's name.
    let variant = proc_macro2::Ident::new(&format!("{codec:?}"), proc_macro2::Span::call_site());
    quote!(::smolv_runtime::Codec::#variant)
}

/// A module's source, includes and recipe as arguments of `__smolv_shader!` (for hot reload).
fn origin_tokens(manifest: &Manifest, name: &str) -> proc_macro2::TokenStream {
    match manifest.origin(name) {
        Some(manifest::Origin { source, includes, recipe }) => quote!(#source, [#(#includes),*], #recipe),
        None => quote!(),
    }
}

fn dictionary(path: &Option<std::path::PathBuf>) -> proc_macro2::TokenStream {
    path.as_deref()
        .map(path_literal)
        .map_or_else(|| quote!(&[]), |path| quote!(::smolv_runtime::__private::include_bytes_aligned!(4, #path)))
}

/// Includes the Rust types smolv-build generated from the shaders' reflection (a `Pod` struct
/// per block, a module per shader; `cargo smolv types shaders` prints them):
///
/// ```text
/// smolv_runtime::include_types!();
///
/// let frame = lit_frag::Frame::new(time, view_proj);
/// let bytes: &[u8] = frame.as_bytes(); // the shader's layout, padding zeroed
/// ```
#[proc_macro]
pub fn include_types(input: TokenStream) -> TokenStream {
    types::include_types(input)
}

fn path_literal(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

/// `OUT_DIR/smolv`, or the error that says how to make it.
#[allow(clippy::disallowed_methods, reason = "the macros' one reader of the environment")]
fn artifact_dir() -> Result<std::path::PathBuf, &'static str> {
    let out_dir = std::env::var_os("OUT_DIR").ok_or(
        "smolv: OUT_DIR is not set; add a build.rs that runs smolv_build::Config::new().shader_dir(\"shaders\").compile()",
    )?;
    Ok(std::path::PathBuf::from(out_dir).join(smolv_format::ARTIFACT_DIR))
}

fn compile_error(span: proc_macro2::Span, message: &str) -> TokenStream {
    quote::quote_spanned!(span => ::core::compile_error!(#message)).into()
}
