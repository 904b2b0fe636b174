//! One module's SPIR-V → minified WGSL through naga, for wgpu targets (feature `wgpu`).

use crate::cache::{BodyReader, BodyWriter};

#[cfg(feature = "wgpu")]
mod minify;
#[cfg(feature = "wgpu")]
mod wgsl;

/// Why a module ships as SPIR-V in a build for wgpu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) step: String,
    pub(crate) reason: String,
}

impl Refused {
    pub(crate) fn new(step: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { step: step.into(), reason: reason.into() }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reason.lines().find(|l| !l.trim().is_empty()) {
            Some(reason) => write!(f, "{}: {}", self.step, reason.trim()),
            None => f.write_str(&self.step),
        }
    }
}

/// An answer as bytes, for a worker's response and a cache entry.
pub(crate) fn write_answer(answer: &Result<String, Refused>) -> Option<Vec<u8>> {
    let mut w = BodyWriter::default();
    match answer {
        Ok(text) => w.u32(0).text(text),
        Err(refused) => w.u32(1).text(&refused.step).text(&refused.reason),
    };
    w.finish()
}

/// An answer back from [`write_answer`]'s bytes; `None` if damaged.
pub(crate) fn read_answer(body: &[u8]) -> Option<Result<String, Refused>> {
    let mut r = BodyReader::new(body);
    let answer = match r.u32()? {
        0 => Ok(r.text()?),
        1 => Err(Refused::new(r.text()?, r.text()?)),
        _ => return None,
    };
    r.is_empty().then_some(answer)
}

/// Whether this smolv-build can translate (its `wgpu` feature).
pub(crate) const AVAILABLE: bool = cfg!(feature = "wgpu");

/// What translates, for cache keys: naga's version.
pub(crate) fn identity() -> String {
    if AVAILABLE { format!("naga {}", super::NAGA_VERSION) } else { "none".to_owned() }
}

/// The minified WGSL of `spirv`, or why not; in this process.
#[cfg(feature = "wgpu")]
pub(crate) use wgsl::to_wgsl;

/// Without the `wgpu` feature, every module is refused.
#[cfg(not(feature = "wgpu"))]
pub(crate) fn to_wgsl(_: &[u32]) -> Result<String, Refused> {
    Err(Refused::new("smolv-build was built without its `wgpu` feature", ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip_and_damage_is_refused() {
        for answer in [Ok("@fragment fn main(){}".to_owned()), Err(Refused::new("naga cannot validate it", "why"))] {
            let body = write_answer(&answer).unwrap();
            assert_eq!(read_answer(&body), Some(answer));
            assert_eq!(read_answer(&body[..body.len() - 1]), None);
        }
        assert_eq!(read_answer(&[7, 0, 0, 0]), None);
    }

    #[test]
    fn a_refusal_reads_as_one_line() {
        let refused = Refused::new("naga cannot validate it", "\n  first line\nsecond line");
        assert_eq!(refused.to_string(), "naga cannot validate it: first line");
        assert_eq!(Refused::new("step", "").to_string(), "step");
    }
}
