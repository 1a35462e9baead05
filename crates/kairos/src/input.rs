//! Input files read whole: a regular file or a pipe (`/dev/stdin`, `<(...)`), within a size
//! limit; a device that streams for ever (`/dev/zero`), a directory or a socket is refused
//! before anything is read, and a pipe that goes on past the limit is refused when it gets
//! there, so no input fills the memory.

use std::io::{self, Read};
use std::path::Path;

/// The limit of a text input read whole (a scene file, a query file, a CSV table): 1 GiB.
/// Scenes of more bodies keep them in a `bodies_file`, which is streamed.
pub const MAX_TEXT: u64 = 1 << 30;

/// The limit of a mesh file or a checkpoint read whole: 16 GiB.
pub const MAX_DATA: u64 = 1 << 34;

/// Whether `path` names something that can be read as an input: a regular file or a pipe.
pub fn check_kind(path: &Path) -> io::Result<()> {
    let m = std::fs::metadata(path)?;
    #[cfg(unix)]
    let pipe = {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_fifo()
    };
    #[cfg(not(unix))]
    let pipe = false;
    if m.is_file() || pipe {
        Ok(())
    } else if m.is_dir() {
        Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file or a pipe",
        ))
    }
}

/// The bytes of the input `path` (see [`check_kind`]), refused past `limit` bytes.
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    check_kind(path)?;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {limit} bytes"),
        ));
    }
    Ok(bytes)
}

/// The text of the input `path` (see [`read`]), which must be UTF-8.
pub fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_pipes_are_read_devices_and_large_inputs_refused() {
        let dir = std::env::temp_dir().join(format!("kairos-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.txt");
        std::fs::write(&f, "hello").unwrap();
        assert_eq!(read_to_string(&f, 5).unwrap(), "hello");
        assert!(read(&f, 4)
            .unwrap_err()
            .to_string()
            .contains("larger than 4"));
        assert!(read(&dir, 100)
            .unwrap_err()
            .to_string()
            .contains("directory"));
        #[cfg(unix)]
        assert!(read(Path::new("/dev/zero"), 100)
            .unwrap_err()
            .to_string()
            .contains("not a regular file or a pipe"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
