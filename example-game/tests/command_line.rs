//! Usage errors and missing Vulkan: the game says what is wrong and what
//! to do, with distinct exit codes.

mod common;

use common::{game, run};

#[test]
fn bad_command_line_input_is_a_usage_error() {
    let cases: &[&[&str]] = &[
        &["--frames", "abc"],
        &["--frames", "0"],
        &["--size", "640"],
        &["--size", "0x0"],
        &["--post", "sepia"],
        &["--headless", "--window"],
        &["--validation", "--no-validation"],
        &["--bogus"],
        &["extra-argument"],
    ];
    for args in cases {
        let output = run(game().args(*args));
        assert_eq!(output.status.code(), Some(2), "{args:?} should be a usage error");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("Usage: example-game"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

#[test]
fn help_lists_the_options() {
    let output = run(game().arg("--help"));
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for option in ["--headless", "--window", "--frames", "--screenshot", "--post", "--validation", "--monolithic"] {
        assert!(stdout.contains(option), "--help lacks {option}");
    }
}

#[test]
fn without_a_vulkan_device_it_says_what_to_install() {
    // A loader that finds no driver.
    let output = run(game()
        .args(["--headless", "--frames", "1"])
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json"));
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no Vulkan device"), "{stderr}");
    assert!(stderr.contains("apt-get install mesa-vulkan-drivers"), "{stderr}");
}

#[test]
fn an_unwritable_screenshot_path_is_reported() {
    let output =
        run(game().args(["--headless", "--frames", "1", "--size", "64x64", "--screenshot", "/nonexistent/dir/x.png"]));
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot write the screenshot /nonexistent/dir/x.png"), "{stderr}");
}
