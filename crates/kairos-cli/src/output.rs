//! Outputs: every file the command line writes goes through the library's
//! [`AtomicWriter`](kairos::atomic::AtomicWriter), and every command checks its outputs against
//! its inputs, and against each other, before doing any work. Long commands show a progress
//! bar on a terminal ([`progress_bar`]).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use kairos::atomic::{self, AtomicWriter};

use crate::show;

/// Writes to standard output (the `outln!` macro, the command line's `println!`). When standard output fails,
/// the partial outputs of every open writer are removed and the program ends: quietly with
/// 141 (128 + SIGPIPE, what a shell reports for a program a pipe closed on) when the reader
/// went away (`kairos query ... | head`), or with 2 and the error otherwise.
pub fn write_stdout(args: std::fmt::Arguments<'_>, newline: bool) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        atomic::remove_partials();
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("error: writing to standard output: {e}");
        std::process::exit(2);
    }
}

/// Starts writing `path` atomically; errors name the file.
pub fn create(path: &Path) -> Result<AtomicWriter> {
    AtomicWriter::create(path).with_context(|| format!("{}: cannot create", show(path)))
}

/// Flushes and moves a file into place; errors name the file.
pub fn commit(w: AtomicWriter, path: &Path) -> Result<()> {
    w.commit()
        .with_context(|| format!("{}: write failed", show(path)))
}

/// Writes `text` to `path` atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    let mut f = create(path)?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("{}: write failed", show(path)))?;
    commit(f, path)
}

/// The files a command reads and writes, each with the option that names it (for messages).
#[derive(Default)]
pub struct Files<'a> {
    inputs: atomic::Inputs,
    outputs: Vec<(&'static str, &'a Path)>,
    /// (output, input) pairs that may be one file.
    allowed: Vec<(&'static str, &'static str)>,
}

impl<'a> Files<'a> {
    /// No files yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// A file the command reads.
    pub fn input(mut self, what: &str, path: &Path) -> Self {
        self.inputs.add(what, path);
        self
    }

    /// The files a scene file reads besides itself (its `bodies_file`, its bodies' mesh files).
    pub fn scene_inputs(mut self, scene: &Path) -> Self {
        self.inputs.add_scene_file(scene);
        self
    }

    /// The mesh files a scene read from a trace or a checkpoint reads (its bodies' meshes).
    pub fn mesh_inputs(mut self, scene: &kairos::scene::Scene) -> Self {
        self.inputs.add_meshes(scene);
        self
    }
    /// A file the command writes, if given.
    pub fn output(mut self, what: &'static str, path: Option<&'a Path>) -> Self {
        if let Some(p) = path {
            self.outputs.push((what, p));
        }
        self
    }

    /// Lets the output named `output` be the same file as the input named `input` (a rolling
    /// checkpoint that replaces the one the run resumed from, read whole before the run).
    pub fn allow_same(mut self, output: &'static str, input: &'static str) -> Self {
        self.allowed.push((output, input));
        self
    }

    /// [`Files::check`] with `from` as an input when given (a benchmark's `--from-csv`).
    pub fn check_from(self, from: Option<&'a Path>) -> Result<()> {
        match from {
            Some(p) => self.input("--from-csv", p).check(),
            None => self.check(),
        }
    }

    /// Refuses, before any work, an output that is the same file as an input or as another
    /// output (devices and FIFOs excepted: they are sinks written through), and an output
    /// that cannot be created (a directory, a missing folder, no permission).
    pub fn check(&self) -> Result<()> {
        for (k, (what, out)) in self.outputs.iter().enumerate() {
            // `-` is not read as standard output: a file of that name would be written.
            anyhow::ensure!(
                out.as_os_str() != "-",
                "{what} -: give a file name (or /dev/stdout for standard output)"
            );
            // Charts are SVG: a `.png` would hold SVG under a name that says otherwise.
            if *what == "--plot" && !atomic::is_sink(out) {
                let ext = out
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase());
                anyhow::ensure!(
                    ext.as_deref() == Some("svg"),
                    "{}: --plot writes an SVG chart: give a name ending in .svg",
                    show(out)
                );
            }
            self.inputs.check_output(what, out, |in_what| {
                self.allowed.iter().any(|a| a.0 == *what && a.1 == in_what)
            })?;
            for (other_what, other) in &self.outputs[..k] {
                if atomic::same_file(out, other) && !atomic::is_sink(out) {
                    anyhow::bail!(
                        "{}: named by both {other_what} and {what}; give each output its own file",
                        show(out)
                    );
                }
            }
            atomic::check_writable(out)
                .with_context(|| format!("{}: cannot write the output ({what})", show(out)))?;
        }
        Ok(())
    }
}

/// A progress bar of `len` steps on stderr, drawn with `template` (indicatif's), ticking
/// while a step takes long; `None` unless stderr is a terminal.
pub fn progress_bar(len: u64, template: &str) -> Option<indicatif::ProgressBar> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    Some(bar)
}

/// Runs `work`, showing a spinner with `message` on stderr once it has taken longer than a
/// second, when `enabled` and stderr is a terminal (loading a large mesh, building a world).
pub fn while_slow<T>(message: &str, enabled: bool, work: impl FnOnce() -> T) -> T {
    use std::io::IsTerminal;
    use std::sync::mpsc;
    use std::time::Duration;
    if !enabled || !std::io::stderr().is_terminal() {
        return work();
    }
    let (done, wait) = mpsc::channel::<()>();
    let message = message.to_string();
    let spinner = std::thread::spawn(move || {
        if wait.recv_timeout(Duration::from_secs(1)) != Err(mpsc::RecvTimeoutError::Timeout) {
            return;
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            None,
            indicatif::ProgressDrawTarget::stderr_with_hz(4),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.set_message(message);
        bar.enable_steady_tick(Duration::from_millis(250));
        let _ = wait.recv();
        bar.finish_and_clear();
    });
    let out = work();
    drop(done);
    let _ = spinner.join();
    out
}
