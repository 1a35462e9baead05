//! Files written atomically: to a temporary name beside the destination, renamed on success.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// A text or CSV output that appears at its path only when complete.
pub struct AtomicFile {
    out: BufWriter<File>,
    tmp: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<Self> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
        let file =
            File::create(&tmp).with_context(|| format!("{}: cannot create", path.display()))?;
        Ok(Self {
            out: BufWriter::new(file),
            tmp,
            dest: path.to_path_buf(),
            done: false,
        })
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.out
    }

    /// Flushes and moves the file into place.
    pub fn commit(mut self) -> Result<()> {
        let dest = self.dest.display().to_string();
        self.out
            .flush()
            .with_context(|| format!("{dest}: write failed"))?;
        self.out
            .get_ref()
            .sync_all()
            .with_context(|| format!("{dest}: write failed"))?;
        std::fs::rename(&self.tmp, &self.dest)
            .with_context(|| format!("{dest}: cannot move into place"))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `text` to `path` atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.writer()
        .write_all(text.as_bytes())
        .with_context(|| format!("{}: write failed", path.display()))?;
    f.commit()
}
