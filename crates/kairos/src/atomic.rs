//! Output files that appear complete or not at all, and never destroy what they replace by
//! mistake.
//!
//! Every file Kairos writes (traces, checkpoints, GSD, CSV, JSON, SVG and HTML) goes through
//! [`AtomicWriter`], which follows these rules:
//!
//! * **A regular file (or a new one)** is written under a temporary name beside it,
//!   `.NAME.partial-PID-K` (`K` counts the process's writers, so two writers of one path never
//!   share it), flushed, synced and renamed over the destination only by
//!   [`AtomicWriter::commit`]. Until then the previous file, if any, is intact; a writer dropped
//!   without a commit removes its temporary file.
//! * **A symbolic link** is followed: the file it points to is the destination (replaced as
//!   above when it is a regular file), and the link itself is kept.
//! * **Anything else that exists** (a character device such as `/dev/null`, a FIFO, a socket)
//!   is written through, never replaced: these are sinks, not files to keep.
//! * **A directory** is refused.
//!
//! [`same_file`] tells whether two paths name one file (by device and inode where the file
//! exists, by canonical path otherwise), so a command can refuse an output that would
//! overwrite one of its inputs before doing any work ([`Inputs`] holds the files something was
//! made from and checks an output against them); [`check_writable`] checks that an output
//! can be created at all. [`remove_partials`] removes the temporary files of every writer still
//! open, for a process that is interrupted (the command-line tool calls it on SIGINT and
//! SIGTERM).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files of the writers not yet committed or dropped.
static PARTIALS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn partials() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PARTIALS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the temporary file of every [`AtomicWriter`] still open (for an interrupted
/// process, which will not run their destructors). Returns how many were removed.
pub fn remove_partials() -> usize {
    let mut list = partials();
    let n = list
        .drain(..)
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count();
    n
}

/// Where a path leads once symbolic links are followed: the file it names when that exists
/// (canonical path), else the end of its chain of links (relative targets are taken from the
/// link's folder; at most 40 links are followed, as the kernel does).
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    if path.as_os_str().is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path is empty",
        ));
    }
    if let Ok(c) = std::fs::canonicalize(path) {
        return Ok(c);
    }
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The canonical form of a path that may not exist yet: its folder canonicalised, then its
/// name.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(path) {
        return c;
    }
    let path = resolve(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    match path.file_name() {
        Some(name) => dir.join(name),
        None => dir,
    }
}

/// True when `a` and `b` name the same file: the same device and inode when both exist
/// (through symbolic links and hard links alike), the same canonical path otherwise.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(ma), Ok(mb)) => same_inode(&ma, &mb).unwrap_or_else(|| canonical(a) == canonical(b)),
        (Err(_), Err(_)) => canonical(a) == canonical(b),
        _ => false,
    }
}

#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    Some(a.dev() == b.dev() && a.ino() == b.ino())
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &std::fs::Metadata) -> Option<bool> {
    None
}

/// True when `path` exists and is something other than a regular file or a directory (a
/// device, a FIFO, a socket), after following symbolic links: such an output is written
/// through.
pub fn is_sink(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Why an output cannot be written, found before any work: a directory, a folder that does
/// not exist, or one where a file cannot be created.
pub fn check_writable(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ))
        }
        Ok(m) if !m.is_file() => return Ok(()),
        _ => {}
    }
    let dest = resolve(path)?;
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ))
        }
        Err(_) => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("directory {} does not exist", dir.display()),
            ))
        }
    }
    // Creating (and removing) the temporary file is the only sure test of permissions.
    let tmp = partial_name(&dest);
    File::create(&tmp)?;
    std::fs::remove_file(&tmp)
}

/// A temporary name beside `dest` that no other writer of this process has used.
fn partial_name(dest: &Path) -> PathBuf {
    static WRITERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let k = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.partial-{}-{k}", std::process::id()))
}

/// A buffered output that appears at its path only when complete; see the
/// [module documentation](self) for the rules it follows.
pub struct AtomicWriter {
    out: BufWriter<File>,
    /// The temporary file and the destination it is renamed to; `None` when writing through.
    rename: Option<(PathBuf, PathBuf)>,
    done: bool,
}

impl AtomicWriter {
    /// Starts writing `path` with a buffer of 64 KiB.
    pub fn create(path: &Path) -> io::Result<Self> {
        Self::with_capacity(1 << 16, path)
    }

    /// Starts writing `path` with a buffer of `capacity` bytes.
    pub fn with_capacity(capacity: usize, path: &Path) -> io::Result<Self> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )),
            Ok(m) if !m.is_file() => {
                // Opened by the path given: `/dev/stdout` leads to a pipe with no name.
                let file = OpenOptions::new().write(true).open(path)?;
                Ok(Self {
                    out: BufWriter::with_capacity(capacity, file),
                    rename: None,
                    done: false,
                })
            }
            _ => {
                let dest = resolve(path)?;
                let tmp = partial_name(&dest);
                let file = File::create(&tmp)?;
                partials().push(tmp.clone());
                Ok(Self {
                    out: BufWriter::with_capacity(capacity, file),
                    rename: Some((tmp, dest)),
                    done: false,
                })
            }
        }
    }

    /// Flushes, syncs and moves the file into place (or, for a sink, flushes it).
    pub fn commit(mut self) -> io::Result<()> {
        self.out.flush()?;
        if let Some((tmp, dest)) = &self.rename {
            self.out.get_ref().sync_all()?;
            std::fs::rename(tmp, dest)?;
            partials().retain(|p| p != tmp);
        }
        self.done = true;
        Ok(())
    }

    /// True when the output is written through to an existing device, FIFO or socket.
    pub fn is_sink(&self) -> bool {
        self.rename.is_none()
    }
}

impl Write for AtomicWriter {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Seeking flushes the buffer first: formats that go back to update a header or an index
/// (GSD) write through it as through a file. A sink that cannot seek (a pipe) refuses.
impl Seek for AtomicWriter {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.out.seek(pos)
    }
}

impl Drop for AtomicWriter {
    fn drop(&mut self) {
        if let (false, Some((tmp, _))) = (self.done, &self.rename) {
            let _ = std::fs::remove_file(tmp);
            partials().retain(|p| p != tmp);
        }
    }
}

/// Writes `bytes` to `path` with an [`AtomicWriter`].
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut w = AtomicWriter::create(path)?;
    w.write_all(bytes)?;
    w.commit()
}

/// The files something was made from (a scene file, its bodies file and meshes, a trace),
/// each with how messages name it, so that an output can be refused before it is written
/// when it would replace one of them ([`Inputs::check_output`]). The command line and the
/// Python package check their outputs against them by the same rules.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// What names the file, the path as given (for messages), and the path made absolute when
    /// added (for comparing after a change of working directory).
    files: Vec<(String, PathBuf, PathBuf)>,
}

/// An output that is the same file as an input: writing it would destroy the input.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: the output ({what}) is the same file as the input ({input_what}) {}; writing it would \
     destroy the input: choose another output",
    output.display(),
    input.display()
)]
pub struct OverwritesInput {
    /// The output's path, as given.
    pub output: PathBuf,
    /// What names the output (`--output`, `trace`).
    pub what: String,
    /// The input's path, as given.
    pub input: PathBuf,
    /// What names the input (`the scene`, `the mesh of body 3`).
    pub input_what: String,
}

impl Inputs {
    /// No files yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the file at `path`, named `what` in messages. A relative path is taken from the
    /// working directory of the moment.
    pub fn add(&mut self, what: impl Into<String>, path: &Path) {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.files.push((what.into(), path.to_path_buf(), abs));
    }

    /// Adds the files the scene file at `path` reads besides itself: its `bodies_file` and
    /// its mesh files ([`Scene::files_named`](crate::scene::Scene::files_named)).
    pub fn add_scene_file(&mut self, path: &Path) {
        for (what, file) in crate::scene::Scene::files_named(path) {
            self.add(input_name(&what), &file);
        }
    }

    /// Adds the mesh files `scene`'s bodies and walls read
    /// ([`Scene::mesh_files`](crate::scene::Scene::mesh_files)).
    pub fn add_meshes(&mut self, scene: &crate::scene::Scene) {
        for (item, file) in scene.mesh_files() {
            self.add(input_name(&item.to_string()), &file);
        }
    }

    /// Every file: what names it and its path as given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Path)> {
        self.files.iter().map(|(w, p, _)| (w.as_str(), p.as_path()))
    }

    /// Refuses `output` (named `what`) when it is the same file as an input, by path,
    /// symbolic link or hard link ([`same_file`]), unless `allowed` says that input may be
    /// replaced (a rolling checkpoint) or `output` is a sink (a device, a FIFO: written
    /// through, nothing replaced).
    pub fn check_output(
        &self,
        what: &str,
        output: &Path,
        allowed: impl Fn(&str) -> bool,
    ) -> Result<(), OverwritesInput> {
        if is_sink(output) {
            return Ok(());
        }
        match (self.files.iter()).find(|(w, _, abs)| same_file(output, abs) && !allowed(w)) {
            Some((input_what, input, _)) => Err(OverwritesInput {
                output: output.to_path_buf(),
                what: what.to_string(),
                input: input.clone(),
                input_what: input_what.clone(),
            }),
            None => Ok(()),
        }
    }
}

/// How a file a scene names is called in messages: `the scene's bodies_file`, `the mesh of
/// body 3`.
fn input_name(what: &str) -> String {
    match what {
        "bodies_file" => "the scene's bodies_file".to_string(),
        item => format!("the mesh of {item}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kairos-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn replaces_a_regular_file_only_on_commit() {
        let d = tempdir("regular");
        let p = d.join("out.txt");
        std::fs::write(&p, "old").unwrap();
        let mut w = AtomicWriter::create(&p).unwrap();
        w.write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        drop(w);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1, "no partial left");
        write(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert!(partials().iter().all(|q| !q.starts_with(&d)));
    }

    #[cfg(unix)]
    #[test]
    fn follows_symbolic_links_and_keeps_them() {
        let d = tempdir("link");
        let target = d.join("target.txt");
        std::fs::write(&target, "old").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink("target.txt", &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert!(same_file(&link, &target));
        // A dangling link creates its target.
        let dangling = d.join("dangling.txt");
        std::os::unix::fs::symlink("new.txt", &dangling).unwrap();
        write(&dangling, b"x").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("new.txt")).unwrap(), "x");
        assert!(std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_to_dev_null() {
        let p = Path::new("/dev/null");
        let mut w = AtomicWriter::create(p).unwrap();
        assert!(w.is_sink());
        w.write_all(b"nothing").unwrap();
        w.commit().unwrap();
        assert!(is_sink(p));
        assert!(check_writable(p).is_ok());
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(p).unwrap().file_type().is_char_device());
    }

    #[test]
    fn same_file_by_inode_and_by_path() {
        let d = tempdir("same");
        let a = d.join("a.txt");
        std::fs::write(&a, "x").unwrap();
        let via_dot = d.join(".").join("a.txt");
        assert!(same_file(&a, &via_dot));
        assert!(!same_file(&a, &d.join("b.txt")));
        assert!(same_file(&d.join("b.txt"), &d.join("./b.txt")));
        std::fs::hard_link(&a, d.join("hard.txt")).unwrap();
        assert!(same_file(&a, &d.join("hard.txt")));
    }

    #[cfg(unix)]
    #[test]
    fn an_output_that_is_an_input_is_refused_by_path_and_by_links() {
        let d = tempdir("inputs");
        let scene = d.join("in.toml");
        std::fs::write(&scene, "x").unwrap();
        std::os::unix::fs::symlink("in.toml", d.join("link.toml")).unwrap();
        std::fs::hard_link(&scene, d.join("hard.toml")).unwrap();
        let mut inputs = Inputs::new();
        inputs.add("the scene", &scene);
        for out in ["in.toml", "link.toml", "hard.toml", "./in.toml"] {
            let e = inputs
                .check_output("--output", &d.join(out), |_| false)
                .unwrap_err();
            assert_eq!(e.input_what, "the scene");
            let message = e.to_string();
            assert!(
                message.contains("the output (--output) is the same file as the input (the scene)")
                    && message.contains(&scene.display().to_string()),
                "{message}"
            );
        }
        assert!(inputs
            .check_output("--output", &d.join("other.toml"), |_| false)
            .is_ok());
        assert!(inputs
            .check_output("--output", &scene, |what| what == "the scene")
            .is_ok());
        assert!(inputs
            .check_output("--output", Path::new("/dev/null"), |_| false)
            .is_ok());
        assert_eq!(
            inputs.iter().collect::<Vec<_>>(),
            [("the scene", scene.as_path())]
        );
    }

    #[test]
    fn check_writable_names_the_problem() {
        let d = tempdir("check");
        assert!(check_writable(&d.join("ok.txt")).is_ok());
        assert!(!d.join("ok.txt").exists());
        let e = check_writable(&d.join("missing/x.txt")).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = check_writable(&d).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        assert!(AtomicWriter::create(&d).is_err());
    }

    #[test]
    fn open_writers_are_listed_for_remove_partials() {
        // `remove_partials` itself is tested through the command line (an interrupted run),
        // since it would remove the files of other tests running in this process.
        let d = tempdir("partials");
        let w = AtomicWriter::create(&d.join("big.bin")).unwrap();
        let tmp = w.rename.as_ref().unwrap().0.clone();
        assert!(tmp.exists());
        assert!(partials().contains(&tmp));
        drop(w);
        assert!(!tmp.exists());
        assert!(!partials().contains(&tmp));
    }
}
