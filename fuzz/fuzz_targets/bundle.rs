//! Any bytes as a shader bundle: the index, every entry and the shader-set
//! API end in `Ok` or `Err`, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_runtime::ShaderSet;
use smolv_runtime::DecodeOptions;
use smolv_runtime::container::Bundle;

fuzz_target!(|data: &[u8]| {
    if let Ok(bundle) = Bundle::parse(data) {
        let names: Vec<String> = bundle.names().map(str::to_owned).collect();
        for name in &names {
            let _ = bundle.get(name).map(|c| c.reflection());
            let _ = bundle.decode(name);
        }
        let _ = bundle.get("missing shader");
    }
    if let Ok(set) = ShaderSet::from_vec(data.to_vec()) {
        let settings = DecodeOptions::new().max_decoded_len(1 << 24);
        let mut out = Vec::new();
        for shader in set.iter() {
            let _ = shader.reflection();
            let _ = shader.decode_with(&settings, &mut out);
        }
    }
});
