//! What a worker and its parent say to each other: the worker's [`HELLO`]
//! (anything before it is skipped), then frames (a little-endian `u32`
//! length and that many bytes) of JSON; a translation's answer is
//! [`write_answer`](crate::compile::translate::write_answer)'s.

use std::io::{Read, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::compile::frontend::Compiled;
#[cfg(feature = "optimizer")]
use crate::compile::optimize::{Failure, Once, Recipe};
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::source::Job;

pub(super) const VERSION: &str = "4";
/// The worker's greeting, which carries the protocol's version.
pub(super) const HELLO: &[u8] = b"\nsmolv-build worker 4\n";
/// The most bytes skipped while looking for [`HELLO`].
pub(super) const MAX_BEFORE_HELLO: usize = 1 << 20;
/// The largest frame either side accepts.
const MAX_FRAME: u32 = 256 << 20;

#[derive(Serialize, Deserialize)]
#[allow(clippy::large_enum_variant, reason = "one request at a time, made to be sent at once")]
pub(super) enum Request {
    Compile {
        job: Job,
        settings: Settings,
        source: String,
    },
    Translate {
        spirv: Vec<u32>,
    },
    #[cfg(feature = "optimizer")]
    Optimize {
        spirv: Vec<u32>,
        recipe: Recipe,
    },
}

pub(super) fn write_frame(out: &mut impl Write, payload: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|&len| len <= MAX_FRAME)
        .ok_or_else(|| std::io::Error::other(format!("a {} B message is too large for a worker", payload.len())))?;
    // One write, so that the reader wakes once.
    let mut frame = Vec::with_capacity(4 + payload.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(payload);
    out.write_all(&frame)?;
    out.flush()
}

/// Reads one frame; `Ok(None)` at a clean end of input.
pub(super) fn read_frame(input: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(std::io::Error::other(format!("a frame of {len} B is over the {MAX_FRAME} B limit")));
    }
    let mut payload = vec![0; len as usize];
    input.read_exact(&mut payload)?;
    Ok(Some(payload))
}

/// Reads until [`HELLO`], skipping at most [`MAX_BEFORE_HELLO`] bytes.
pub(super) fn wait_for_hello(input: &mut impl std::io::BufRead) -> std::io::Result<()> {
    let mut seen = std::collections::VecDeque::with_capacity(HELLO.len());
    for byte in input.bytes().take(MAX_BEFORE_HELLO + HELLO.len()) {
        if seen.len() == HELLO.len() {
            seen.pop_front();
        }
        seen.push_back(byte?);
        if seen.iter().eq(HELLO) {
            return Ok(());
        }
    }
    Err(std::io::Error::other("the worker printed too much before greeting"))
}

/// A [`Diagnostic`]'s fields, as a response carries it.
type DiagnosticFields = (PathBuf, u32, u32, String, Option<String>);

/// A response to [`Request::Compile`]: what the frontend made of the job.
pub(super) fn encode_compiled(result: &Result<Compiled, Vec<Diagnostic>>) -> Option<Vec<u8>> {
    let fields = |d: &Diagnostic| (d.path.clone(), d.line, d.column, d.message.clone(), d.rendered.clone());
    serde_json::to_vec(&result.as_ref().map_err(|errors| errors.iter().map(fields).collect::<Vec<_>>())).ok()
}

/// Reads a response back; `None` if it is malformed.
pub(super) fn decode_compiled(body: &[u8]) -> Option<Result<Compiled, Vec<Diagnostic>>> {
    let response: Result<Compiled, Vec<DiagnosticFields>> = serde_json::from_slice(body).ok()?;
    let diagnostic = |(path, line, column, message, rendered)| Diagnostic { path, line, column, message, rendered };
    Some(response.map_err(|errors| errors.into_iter().map(diagnostic).collect()))
}

/// A response to [`Request::Optimize`]: the module, or why there is none.
#[cfg(feature = "optimizer")]
pub(super) fn encode_optimized(result: &Result<Vec<u32>, Failure>) -> Option<Vec<u8>> {
    serde_json::to_vec(result).ok()
}

/// Reads an [`encode_optimized`] response back; `None` if it is malformed.
#[cfg(feature = "optimizer")]
pub(super) fn decode_optimized(body: &[u8]) -> Option<Result<Vec<u32>, Once>> {
    serde_json::from_slice::<Result<Vec<u32>, Failure>>(body).ok().map(|result| result.map_err(Once::Failed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::frontend::CompiledModule;
    use smolv_format::reflect::ShaderStage;

    #[test]
    fn responses_round_trip_and_damage_is_refused() {
        let compiled = Compiled {
            modules: vec![CompiledModule {
                name: "a.frag".into(),
                stage: ShaderStage::Fragment,
                entry_point: "main".into(),
                spirv: vec![0x0723_0203, 1, 2],
                optimized: Some(vec![0x0723_0203]),
                needs_legalization: true,
            }],
            dependencies: vec![(PathBuf::from("shaders/common.glsl"), [7; 32])],
            missing: vec![PathBuf::from("include/common.glsl")],
            warnings: vec!["a warning".into()],
        };
        let body = encode_compiled(&Ok(compiled)).unwrap();
        let back = decode_compiled(&body).unwrap().unwrap();
        assert_eq!(back.modules[0].spirv, [0x0723_0203, 1, 2]);
        assert_eq!(back.modules[0].optimized.as_deref(), Some(&[0x0723_0203][..]));
        assert!(back.modules[0].needs_legalization, "the optimizer learns that HLSL needs legalizing");
        assert_eq!(back.dependencies, [(PathBuf::from("shaders/common.glsl"), [7; 32])]);
        assert_eq!((back.missing.len(), back.warnings.len()), (1, 1));
        assert!(decode_compiled(&body[..body.len() - 1]).is_none(), "a truncated response is refused");

        let error = Diagnostic {
            path: "a.frag".into(),
            line: 3,
            column: 28,
            message: "'tint' : undeclared identifier".into(),
            rendered: Some("  |\n3 | tint".into()),
        };
        let body = encode_compiled(&Err(vec![error.clone()])).unwrap();
        assert_eq!(decode_compiled(&body).unwrap().unwrap_err(), [error]);
    }

    #[test]
    fn frames_are_length_prefixed_and_the_greeting_skips_what_came_before() {
        let mut pipe = b"cargo:warning=printed by build.rs before compile()\n".to_vec();
        pipe.extend_from_slice(HELLO);
        write_frame(&mut pipe, b"one").unwrap();
        write_frame(&mut pipe, b"").unwrap();
        let mut input = &pipe[..];
        wait_for_hello(&mut input).unwrap();
        assert_eq!(read_frame(&mut input).unwrap().unwrap(), b"one");
        assert_eq!(read_frame(&mut input).unwrap().unwrap(), b"");
        assert!(read_frame(&mut input).unwrap().is_none(), "the end of input is a clean end");
        let huge = (MAX_FRAME + 1).to_le_bytes();
        assert!(read_frame(&mut &huge[..]).is_err(), "a length over the limit allocates nothing");
        assert!(wait_for_hello(&mut &b"no greeting"[..]).is_err());
    }

    #[cfg(feature = "optimizer")]
    #[test]
    fn optimizer_answers_round_trip() {
        let answers = [
            Ok(vec![0x0723_0203, 1, 2]),
            Err(Failure::Refused("invalid".into())),
            Err(Failure::Transient("no module".into())),
            Err(Failure::Unavailable),
        ];
        for answer in answers {
            let body = encode_optimized(&answer).unwrap();
            let back = decode_optimized(&body).unwrap();
            match (&answer, back) {
                (Ok(words), Ok(back)) => assert_eq!(*words, back),
                (Err(failure), Err(Once::Failed(back))) => assert_eq!(*failure, back),
                (answer, back) => panic!("{answer:?} came back as {back:?}"),
            }
            assert!(decode_optimized(&body[..body.len() - 1]).is_none(), "a truncated answer is refused");
        }
    }
}
