//! Cache keys, local and remote: blake3 over length-prefixed fields, starting with smolv-build's identity.

/// A cache key: blake3 over length-prefixed fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key([u8; 32]);

impl Key {
    /// Hex form, used as the file name.
    pub(crate) fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// blake3 over smolv-build's source files (from its build script): another smolv-build's entries are never read.
pub(crate) const SMOLV_BUILD_IDENTITY: &str = env!("SMOLV_BUILD_SOURCE_HASH");

pub(crate) struct KeyBuilder(blake3::Hasher);

impl KeyBuilder {
    /// A key in `domain` (what kind of entry it is), of this smolv-build.
    pub(crate) fn new(domain: &str) -> Self {
        Self::of_build(domain, SMOLV_BUILD_IDENTITY)
    }

    /// A key in `domain` of the smolv-build identified by `build`.
    pub(super) fn of_build(domain: &str, build: &str) -> Self {
        let mut key = Self(blake3::Hasher::new_derive_key(domain));
        key.text(build);
        key
    }

    pub(crate) fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub(crate) fn text(&mut self, text: &str) -> &mut Self {
        self.field(text.as_bytes())
    }

    pub(crate) fn finish(&self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}
