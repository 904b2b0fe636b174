//! # smolv-macros
//!
//! `include_shader!` and `include_shaders!`, which embed the shaders that
//! `smolv-build` compiled in `build.rs`. Use them through `smolv-runtime`,
//! which re-exports them (feature `macros`, on by default); a crate never
//! depends on this one directly.
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
//! (`text`, as the macros need the build script's output to expand.)
//!
//! The macros read `OUT_DIR/smolv/manifest.json` at compile time, check the
//! artifacts, and embed them 4-byte aligned with `include_bytes!`, so a
//! rebuilt shader recompiles the crate that embeds it. The generated code
//! names only the decoder of the packing smolv-build chose, so a binary
//! links nothing else. A name that does not exist is a compile error that
//! lists the closest names.
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
/// The name is the module's: its path below the shader directory, then
/// `@variant` for a variant or `#entry` for a WGSL entry point, as in
/// `"lit.frag"`, `"post/blur.comp"`, `"lit.frag@shadows"` or
/// `"sky.wgsl#fs_main"`.
///
/// In a crate whose `build.rs` runs smolv-build (a doctest has no such
/// build, so this one is not run; the smolv repository's
/// `tests/tests/readme.rs` builds the same code in a new crate):
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
    if let Some(text) = manifest.wgsl_text(&name.value()) {
        let (origin, text, shader_name) = (origin_tokens(&manifest, &name.value()), path_literal(text), name.value());
        return quote! {
            {
                static SHADER: ::smolv_runtime::Shader = ::smolv_runtime::__smolv_shader!(
                    wgsl #shader_name, ::core::include_str!(#text); #origin
                );
                &SHADER
            }
        }
        .into();
    }
    let module = match manifest.module(&name.value()) {
        Ok(module) => module,
        Err(message) => return compile_error(name.span(), &message),
    };
    if let Some(kind) = words_codec(manifest.packing.codec) {
        let origin = origin_tokens(&manifest, &module.name);
        let spirv_len = module.spirv_len;
        let data = path_literal(&module.data);
        let words = words_static(&quote!(::core::include_bytes!(#data)), spirv_len);
        let (shader_name, len) = (module.name, spirv_len / 4);
        return quote! {
            {
                #words
                static SHADER: ::smolv_runtime::Shader = ::smolv_runtime::__smolv_shader!(
                    #kind #shader_name, ::smolv_runtime::__private::spirv_module(&WORDS, 0, #len); #origin
                );
                &SHADER
            }
        }
        .into();
    }
    let unpacker = match module_unpacker(manifest.packing.codec) {
        Ok(unpacker) => unpacker,
        Err(message) => return compile_error(name.span(), &message),
    };
    let data = path_literal(&module.data);
    let dictionary = dictionary(&manifest.packing.dictionary);
    // A dictionary codec's module needs the dictionary's unpacked length
    // and check, which only the set's directory records.
    let packed_dictionary = match manifest.packing.dictionary {
        None => (0, 0),
        Some(_) => match manifest.directory() {
            Ok(directory) => directory.once,
            Err(message) => return compile_error(name.span(), &message),
        },
    };
    let (dictionary_len, dictionary_check) = packed_dictionary;
    let (Ok(unpacked_len), Ok(spirv_len)) = (u32::try_from(module.unpacked_len), u32::try_from(module.spirv_len))
    else {
        return compile_error(name.span(), "smolv: this shader is larger than 4 GiB");
    };
    let origin = origin_tokens(&manifest, &module.name);
    let (shader_name, check) = (module.name, module.check);
    quote! {
        {
            static MODULE: ::smolv_runtime::__private::EmbeddedModule = ::smolv_runtime::__private::EmbeddedModule::new(
                #shader_name,
                #unpacker,
                ::smolv_runtime::__private::include_bytes_aligned!(4, #data),
                #dictionary,
                (#dictionary_len, #dictionary_check),
                #unpacked_len,
                #spirv_len,
                #check,
            );
            static SHADER: ::smolv_runtime::Shader = ::smolv_runtime::__smolv_shader!(alone &MODULE; #origin);
            &SHADER
        }
    }
    .into()
}

/// Embeds every shader of the crate as one `smolv_runtime::ShaderSet`,
/// packed the way smolv-build chose (raw SPIR-V, SPIR-V with relative ids,
/// alone or + LZ4, SMOL-V, or SMOL-V + LZ4 or zstd). Only the decoders of
/// that packing are linked. Meant for a `static`: a set packed as one
/// stream (or with a dictionary) unpacks it on its first decode and keeps
/// it for the rest of the program.
///
/// In a crate whose `build.rs` runs smolv-build (not run here, as for
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
/// `include_shaders!(static ALL);` declares `ALL` (attributes and a
/// visibility may come before `static`) as a `ShaderSet<Raw>` when the
/// build ships a small set as raw SPIR-V: its shaders are a name and words,
/// decoding one cannot fail, and the binary links what a table of
/// `include_bytes!` would. Any other set, and the expression form
/// `static ALL: ShaderSet = include_shaders!();`, is a `ShaderSet`.
#[proc_macro]
pub fn include_shaders(input: TokenStream) -> TokenStream {
    let span = proc_macro2::Span::call_site();
    let declared = if input.is_empty() {
        None
    } else {
        match syn::parse::<Declared>(input) {
            Ok(declared) => Some(declared),
            Err(_) => {
                return compile_error(
                    span,
                    "include_shaders! takes nothing (an expression for `static ALL: ShaderSet = ...`) \
                     or `static NAME` (which declares it, typed by its packing)",
                );
            }
        }
    };
    let manifest = match Manifest::load() {
        Ok(manifest) => manifest,
        Err(message) => return compile_error(span, &message),
    };
    let set = match set_tokens(&manifest, declared.is_some()) {
        Ok(set) => set,
        Err(message) => return compile_error(span, &message),
    };
    match declared {
        None => set.expression.into(),
        Some(Declared { prefix, name }) => {
            let (ty, expression) = (set.ty, set.expression);
            quote!(#prefix static #name: #ty = #expression;).into()
        }
    }
}

/// What `include_shaders!(static NAME)` declares: what comes before
/// `static` (attributes, visibility) is kept as written, and a trailing `;`
/// is allowed.
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

/// The set `manifest` describes. With `typed`, a small raw set is a
/// `ShaderSet<Raw>` (`raw_set`); otherwise every set is a `ShaderSet`.
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
        let (offset, packed, unpacked, spirv, check) =
            (entry.offset, entry.packed_len, entry.unpacked_len, entry.spirv_len, entry.check);
        entries.push(quote! {
            ::smolv_runtime::__private::EmbeddedEntry::new(#name_end, #offset, #packed, #unpacked, #spirv, #check)
        });
    }
    let (once_len, once_check) = directory.once;
    if let Some(wgsl) = &manifest.wgsl {
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
        return Ok(SetTokens { ty: packed, expression: with_wgsl(manifest, wgsl, &directory, set)? });
    }
    let count = entries.len();
    // Small sets get a `static` shader per module, large ones make theirs
    // on first access (see `static_shaders_up_to`); smolv-runtime's
    // `__smolv_set!` decides, as a hot-reload build needs statics.
    let static_shaders = count <= static_shaders_up_to(&manifest.packing.goal);
    if typed && static_shaders && manifest.packing.codec == Codec::Spirv {
        let expression = words_set(manifest, &directory, &data, &quote!(raw_in_set), true)?;
        return Ok(SetTokens { ty: quote!(::smolv_runtime::ShaderSet<::smolv_runtime::shader::Raw>), expression });
    }
    if let Some(kind) = words_codec(manifest.packing.codec).filter(|_| static_shaders) {
        let expression = words_set(manifest, &directory, &data, &kind, false)?;
        return Ok(SetTokens { ty: packed, expression });
    }
    let shaders = directory.entries.iter().enumerate().map(|(index, entry)| {
        let origin = origin_tokens(manifest, &entry.name);
        quote!(::smolv_runtime::__smolv_shader!(in_set &SET, #index; #origin))
    });
    let expression = quote! {
        {
            static SET: ::smolv_runtime::__private::EmbeddedSet = ::smolv_runtime::__private::EmbeddedSet::new(
                #unpacker,
                ::smolv_runtime::__private::include_bytes_aligned!(4, #data),
                #dictionary,
                #names,
                &[#(#entries),*],
                (#once_len, #once_check),
            );
            ::smolv_runtime::__smolv_set!(#static_shaders; &SET; #count; [#(#shaders),*])
        }
    };
    Ok(SetTokens { ty: packed, expression })
}

/// A set of a build for wgpu that shipped WGSL: the SPIR-V `set` of the
/// modules naga refused (made by the caller, maybe empty), the WGSL set of
/// the others, and a `static` shader per module, all sorted by name, as
/// `ShaderSet::get` searches them.
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
    let mut shaders: Vec<(&str, proc_macro2::TokenStream)> = Vec::new();
    for (index, entry) in directory.entries.iter().enumerate() {
        let origin = origin_tokens(manifest, &entry.name);
        shaders.push((&entry.name, quote!(::smolv_runtime::__smolv_shader!(in_set &SET, #index; #origin))));
    }
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

/// For the codecs whose data is words (raw SPIR-V, and SPIR-V with
/// relative ids), the kind of shader `__smolv_shader!` makes of a module;
/// `None` for every other codec.
fn words_codec(codec: Codec) -> Option<proc_macro2::TokenStream> {
    match codec {
        Codec::Spirv => Some(quote!(raw)),
        Codec::SpirvRelativeIds => Some(quote!(relative_ids)),
        _ => None,
    }
}

/// A small set of words (raw SPIR-V, or SPIR-V with relative ids) with a
/// `static` shader per module, each holding its module's part of the
/// set's words (one `static`, made at compile time from the data, in the
/// data's order), of `kind` (`raw` or `relative_ids`): no table, no byte
/// blob and no unpacker reach the binary. Its stored length is the build
/// report's (the words and names, and 24 bytes per module that stand for
/// the table the shader replaces), so that every layout counts alike.
fn words_set(
    manifest: &Manifest,
    directory: &check::Directory,
    data: &str,
    kind: &proc_macro2::TokenStream,
    raw: bool,
) -> Result<proc_macro2::TokenStream, String> {
    let too_large = |what: &str| format!("smolv: {what} is too large for the compiling machine");
    let stored_len = manifest.packing.stored_bytes;
    let data_len = std::fs::metadata(&manifest.packing.data)
        .map_err(|e| format!("smolv: cannot read {} ({e}); rebuild", manifest.packing.data.display()))?
        .len();
    let data_len = usize::try_from(data_len).map_err(|_| too_large("the shader set"))?;
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
    if raw {
        return Ok(quote! {
            {
                #words
                static SHADERS: [::smolv_runtime::shader::RawShader; #count] =
                    [#(#shaders),*];
                ::smolv_runtime::ShaderSet::<::smolv_runtime::shader::Raw>::raw(&SHADERS, #stored_len)
            }
        });
    }
    let codec = codec_path(manifest.packing.codec);
    Ok(quote! {
        {
            #words
            static SHADERS: [::smolv_runtime::Shader; #count] = [#(#shaders),*];
            ::smolv_runtime::ShaderSet::words(&SHADERS, #stored_len, #codec)
        }
    })
}

/// `static WORDS`: `data` (a byte-array expression of `len` bytes) as
/// little-endian words, made at compile time. (On big-endian targets each
/// word is swapped there, which for hundreds of kilobytes the compiler
/// reports as long-running.)
fn words_static(data: &proc_macro2::TokenStream, len: usize) -> proc_macro2::TokenStream {
    let words = len / 4;
    quote! {
        #[allow(long_running_const_eval)]
        static WORDS: [u32; #words] = ::smolv_runtime::__private::le_words::<#len, #words>(#data);
    }
}

/// The most modules a set gets `static` shaders for. A static shader is 32
/// bytes and one or two 24-byte relocations (a set's shader points at the
/// set; a raw one at its name and its words; one with relative ids at a
/// `static` module of about 72 bytes and three relocations more), which xz
/// shrinks several times; making them on first access costs a fixed 1.2 KB
/// of code (about 600 bytes after xz). So statics pay up to about 16
/// modules for the installed size, and up to about 40 for the download
/// size (where relative ids, the download goal's codec, ship).
fn static_shaders_up_to(goal: &str) -> usize {
    if goal == "download" { 40 } else { 16 }
}

/// The unpacker of `codec`: a path to it, or, for the compressing codecs,
/// a smolv-runtime macro that names it or says which feature to turn on.
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
        // Raw modules, and modules with relative ids, are embedded as words
        // (`words_static`), with no unpacker.
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
    let variant = match codec {
        Codec::Spirv => quote!(Spirv),
        Codec::SpirvRelativeIds => quote!(SpirvRelativeIds),
        Codec::SpirvRelativeIdsLz4 => quote!(SpirvRelativeIdsLz4),
        Codec::Smolv => quote!(Smolv),
        Codec::SmolvLz4 => quote!(SmolvLz4),
        Codec::SmolvZstd => quote!(SmolvZstd),
        Codec::SmolvZstdDictionary => quote!(SmolvZstdDictionary),
    };
    quote!(::smolv_runtime::Codec::#variant)
}

/// A module's origin as the arguments of `__smolv_shader!`: source, includes
/// and recipe, which smolv-runtime keeps only with its `hot-reload` feature;
/// nothing for a manifest without recipes.
fn origin_tokens(manifest: &Manifest, name: &str) -> proc_macro2::TokenStream {
    match manifest.origin(name) {
        Some(manifest::Origin { source, includes, recipe }) => quote!(#source, [#(#includes),*], #recipe),
        None => quote!(),
    }
}

fn dictionary(path: &Option<std::path::PathBuf>) -> proc_macro2::TokenStream {
    match path {
        Some(path) => {
            let path = path_literal(path);
            quote!(::smolv_runtime::__private::include_bytes_aligned!(4, #path))
        }
        None => quote!(&[]),
    }
}

/// Includes the Rust types smolv-build generated from the shaders'
/// reflection: a `#[repr(C)]`, `Pod` struct for every uniform, storage and
/// push-constant block, and a module per shader with its bindings,
/// push constants, workgroup size, spec constants and vertex inputs.
///
/// In a crate whose `build.rs` runs smolv-build (`cargo smolv types
/// shaders` prints the same code):
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

/// `OUT_DIR/smolv`, where smolv-build writes what the macros read, or the
/// error that says how to make it.
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
