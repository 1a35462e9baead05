//! Helpers shared by the command-line tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `kairos` binary in `dir`.
pub fn kairos(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kairos")
}

/// The file `name` in the folder `dir`, given relative to this crate (for example
/// `"../../docs"` or `"tests/data"`), as a path string.
pub fn crate_file(dir: &str, name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
        .join(name)
        .display()
        .to_string()
}

/// A fresh, empty directory for one test (unique per test binary, test name and process).
pub fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "kairos-{}-{name}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Lossy UTF-8 of a process output.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts success, showing both output streams otherwise.
pub fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
}

/// A JSON file, parsed.
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The names of the entries of `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Writes a demo trace `t.ktrace` of 30 balls in `dir`, and two damaged copies: `cut.ktrace`
/// (its last 100 bytes cut off) and `junk.ktrace` (not a trace at all). Returns the trace's
/// bytes.
pub fn demo_trace_and_damaged_copies(dir: &Path) -> Vec<u8> {
    ok(&kairos(&["demo", "--n", "30", "-q", "-o", "t.ktrace"], dir));
    let bytes = std::fs::read(dir.join("t.ktrace")).unwrap();
    std::fs::write(dir.join("cut.ktrace"), &bytes[..bytes.len() - 100]).unwrap();
    std::fs::write(dir.join("junk.ktrace"), b"hello world, not a trace").unwrap();
    bytes
}
