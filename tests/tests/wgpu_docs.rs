//! docs/wgpu.md's "From `cargo new` to a checked frame", copied into a new
//! crate outside the workspace, builds and runs: it draws its triangle in
//! the top half of an offscreen target, fills a storage buffer with its
//! compute shader, reads both back and checks them. The files come from
//! the Markdown itself (every code block of the section names its file on
//! its first line), so the docs cannot drift from what works.
//!
//! The program runs as written (`src/main.rs`, which the crate also builds
//! on its own) inside a harness binary, `src/bin/checked.rs`, that first
//! installs example-wgpu's message collector (`example-wgpu/src/validation.rs`,
//! included by path): the program's debug build turns on wgpu's validation
//! and the Khronos layer, whose messages wgpu-hal logs, and the run fails on
//! any of them, and on a missing layer. wgpu's own validation errors panic
//! (its default handler). smolv's crates come through `[patch.crates-io]`.

use smolv_tests::markdown::{code_blocks, file_name, write_crate};
use smolv_tests::outside::{cargo, succeed, workspace, write};

const SECTION: &str = "From `cargo new` to a checked frame";

/// The binary that runs the docs' `main` under the collector and fails on
/// any message it collected.
fn harness() -> String {
    format!(
        r#"//! The docs' program, under the validation collector.
#[path = {validation:?}]
mod validation;

mod program {{
    include!("../main.rs");

    pub(crate) fn run() -> Result<(), Box<dyn std::error::Error>> {{
        main()
    }}
}}

fn main() -> std::process::ExitCode {{
    validation::install();
    let outcome = program::run();
    let messages = validation::take();
    for message in &messages {{
        eprintln!("validation: {{message}}");
    }}
    match outcome {{
        Ok(()) if messages.is_empty() => std::process::ExitCode::SUCCESS,
        Ok(()) => {{
            eprintln!("{{}} validation messages", messages.len());
            std::process::ExitCode::FAILURE
        }}
        Err(error) => {{
            eprintln!("error: {{error}}");
            std::process::ExitCode::FAILURE
        }}
    }}
}}
"#,
        validation = workspace().join("example-wgpu/src/validation.rs").display().to_string()
    )
}

/// The words that make a line descriptor, bind-group or pipeline code:
/// a layout, a pipeline's state, a pipeline, a bind group, or setting one.
const DESCRIPTOR_WORDS: [&str; 6] =
    ["create_layout", "RenderState", "render_pipeline", "compute_pipeline", "BindGroup", "set_bind_groups"];

/// The lines of `main` that are descriptor, bind-group or pipeline code
/// (not the `use` lines, nor comments).
fn descriptor_lines(main: &str) -> Vec<&str> {
    main.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("use ") && !line.starts_with("//"))
        .filter(|line| DESCRIPTOR_WORDS.iter().any(|word| line.contains(word)))
        .collect()
}

#[test]
fn the_wgpu_docs_program_draws_and_checks_its_frame_under_validation() {
    let docs = std::fs::read_to_string(workspace().join("docs/wgpu.md")).unwrap();
    let blocks = code_blocks(&docs, SECTION);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("frame");

    let files = write_crate(&root, "frame", &blocks, "[dependencies.log]\nversion = \"0.4\"\n\n");
    assert_eq!(files, ["Cargo.toml", "build.rs", "shaders/fill.comp", "shaders/triangle.wgsl", "src/main.rs"]);

    let (_, main) = blocks.iter().find(|(_, body)| file_name(body) == Some("src/main.rs")).expect("main.rs");
    // Ten lines or fewer of descriptor, bind-group and pipeline code, each
    // a generated item or smolv-runtime's `RenderState`: every word is used,
    // and no descriptor is written by hand.
    let lines = descriptor_lines(main);
    assert!(lines.len() <= 10, "{} lines of descriptor code:\n{}", lines.len(), lines.join("\n"));
    for word in DESCRIPTOR_WORDS {
        assert!(lines.iter().any(|line| line.contains(word)), "the program uses {word}");
    }
    for hand_made in
        ["create_bind_group", "BindGroupDescriptor", "BindGroupLayoutDescriptor", "PipelineLayoutDescriptor"]
    {
        assert!(!main.contains(hand_made), "the program makes its own {hand_made}");
    }
    // Shaders by their generated, compile-time-checked names.
    assert!(!main.contains(".get(\""), "a shader named by a string literal:\n{main}");
    assert!(main.contains("Tint::new(") && main.contains("SquaresElement"), "the generated types");

    write(&root.join("src/bin/checked.rs"), &harness());
    // Both binaries: the program as written, and under the collector.
    succeed(&mut cargo(&root, &["build", "--quiet", "--bins"]));
    let stdout = succeed(&mut cargo(&root, &["run", "--quiet", "--bin", "checked"]));
    assert!(stdout.contains("frame ok: triangle in the top half, 256 squares, on "), "{stdout}");
}

#[test]
fn descriptor_lines_are_counted_by_their_words() {
    let main = "use smolv_runtime::wgpu::RenderState;\n    // a RenderState\n    \
                let state = RenderState { ..Default::default() };\n    let view = target.create_view(&x);\n    \
                shaders::fill::wgpu::set_bind_groups(&mut pass, &group);\n";
    assert_eq!(
        descriptor_lines(main),
        [
            "let state = RenderState { ..Default::default() };",
            "shaders::fill::wgpu::set_bind_groups(&mut pass, &group);"
        ]
    );
}
