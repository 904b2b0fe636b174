//! What a worker and its parent say: after the worker's [`HELLO`] (what precedes it is skipped), frames
//! of a little-endian `u32` length and that many bytes: a JSON [`Request`], a [`BodyWriter`] response.

use std::io::{Read, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::cache::{BodyReader, BodyWriter};
use crate::compile::frontend::{Compiled, CompiledModule};
#[cfg(feature = "optimizer")]
use crate::compile::optimize::{Failure, Once, Recipe};
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::source::Job;

/// The protocol's version, which a worker is started with.
pub(super) const VERSION: &str = "3";
/// The worker's greeting, which carries the protocol's version.
pub(super) const HELLO: &[u8] = b"\nsmolv-build worker 3\n";
/// The most bytes skipped while looking for [`HELLO`].
pub(super) const MAX_BEFORE_HELLO: usize = 1 << 20;
/// The largest frame either side accepts: a bound on what a damaged length can allocate.
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
    // One write for the whole frame: the reader wakes once.
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
pub(super) fn wait_for_hello(input: &mut impl Read) -> std::io::Result<()> {
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    for _ in 0..MAX_BEFORE_HELLO + HELLO.len() {
        if input.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        seen.push(byte[0]);
        if seen.ends_with(HELLO) {
            return Ok(());
        }
    }
    Err(std::io::Error::other("the worker printed too much before greeting"))
}

/// A response to [`Request::Compile`]: what the frontend made of the job.
pub(super) fn encode_compiled(result: &Result<Compiled, Vec<Diagnostic>>) -> Option<Vec<u8>> {
    let mut w = BodyWriter::default();
    match result {
        Ok(compiled) => {
            w.u32(0).list(&compiled.modules, |w, module| module.write(w));
            w.list(&compiled.dependencies, |w, (path, hash)| w.text(&path.to_string_lossy()).bytes(hash));
            w.list(&compiled.missing, |w, path| w.text(&path.to_string_lossy()));
            w.list(&compiled.warnings, |w, warning| w.text(warning));
        }
        Err(diagnostics) => {
            w.u32(1).list(diagnostics, |w, d| {
                w.text(&d.path.to_string_lossy()).u32(d.line).u32(d.column).text(&d.message);
                match &d.rendered {
                    Some(rendered) => w.u32(1).text(rendered),
                    None => w.u32(0),
                }
            });
        }
    }
    w.finish()
}

/// Reads a response back; `None` if it is malformed.
pub(super) fn decode_compiled(body: &[u8]) -> Option<Result<Compiled, Vec<Diagnostic>>> {
    let mut r = BodyReader::new(body);
    let result = match r.u32()? {
        0 => {
            let modules = r.list(CompiledModule::read)?;
            let dependencies = r.list(|r| Some((PathBuf::from(r.text()?), r.bytes()?.try_into().ok()?)))?;
            let missing = r.list(|r| r.text().map(PathBuf::from))?;
            let warnings = r.list(BodyReader::text)?;
            Ok(Compiled { modules, dependencies, missing, warnings })
        }
        1 => Err(r.list(|r| {
            let (path, line, column, message) = (PathBuf::from(r.text()?), r.u32()?, r.u32()?, r.text()?);
            let rendered = if r.u32()? == 1 { Some(r.text()?) } else { None };
            Some(Diagnostic { path, line, column, message, rendered })
        })?),
        _ => return None,
    };
    r.is_empty().then_some(result)
}

/// A response to [`Request::Optimize`]: the module, or why there is none.
#[cfg(feature = "optimizer")]
pub(super) fn encode_optimized(result: &Result<Vec<u32>, Failure>) -> Option<Vec<u8>> {
    let mut w = BodyWriter::default();
    match result {
        Ok(words) => w.u32(0).words(words),
        Err(Failure::Refused(why)) => w.u32(1).text(why),
        Err(Failure::Transient(why)) => w.u32(2).text(why),
        Err(Failure::Unavailable) => w.u32(3),
    };
    w.finish()
}

/// Reads an [`encode_optimized`] response back; `None` if it is malformed.
#[cfg(feature = "optimizer")]
pub(super) fn decode_optimized(body: &[u8]) -> Option<Result<Vec<u32>, Once>> {
    let mut r = BodyReader::new(body);
    let result = match r.u32()? {
        0 => Ok(r.words()?),
        1 => Err(Once::Failed(Failure::Refused(r.text()?))),
        2 => Err(Once::Failed(Failure::Transient(r.text()?))),
        3 => Err(Once::Failed(Failure::Unavailable)),
        _ => return None,
    };
    r.is_empty().then_some(result)
}

#[cfg(test)]
mod tests {
    use super::*;
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
