//! Reading back the CSV files that the `bench` commands write with `--csv` (for `--from-csv`).
//!
//! The format is the one they write: a header line of column names, then one record per line,
//! fields separated by commas, no quoting. Columns are found by name, so columns added later
//! (or reordered) do not break older readers. Every error names the file and the line.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{anyhow, Context, Result};

/// A CSV file read whole.
pub struct CsvFile {
    path: PathBuf,
    columns: Vec<String>,
    records: Vec<(usize, Vec<String>)>,
}

/// One record (line) of a [`CsvFile`].
pub struct Record<'a> {
    file: &'a CsvFile,
    line: usize,
    fields: &'a [String],
}

impl CsvFile {
    /// Reads `path`, checking that every record has as many fields as the header.
    pub fn read(path: &Path) -> Result<CsvFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| anyhow!("{}: empty file (expected a CSV header)", path.display()))?;
        let split =
            |l: &str| -> Vec<String> { l.split(',').map(|f| f.trim().to_string()).collect() };
        let columns = split(header);
        let mut records = Vec::new();
        for (line, l) in lines {
            let fields = split(l);
            if fields.len() != columns.len() {
                return Err(anyhow!(
                    "{}:{line}: {} fields, but the header has {} columns",
                    path.display(),
                    fields.len(),
                    columns.len()
                ));
            }
            records.push((line, fields));
        }
        Ok(CsvFile {
            path: path.to_path_buf(),
            columns,
            records,
        })
    }

    /// Fails, naming the first missing one, unless every column in `names` is present.
    pub fn require(&self, names: &[&str]) -> Result<()> {
        match names.iter().find(|n| !self.has(n)) {
            None => Ok(()),
            Some(n) => Err(anyhow!(
                "{}:1: no column `{n}` in the header (expected {})",
                self.path.display(),
                names.join(",")
            )),
        }
    }

    /// Whether the header has column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c == name)
    }

    /// The records in file order.
    pub fn records(&self) -> impl Iterator<Item = Record<'_>> {
        self.records.iter().map(move |(line, fields)| Record {
            file: self,
            line: *line,
            fields,
        })
    }

    /// The file's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Record<'_> {
    /// An error about this record: `FILE:LINE: message`.
    pub fn error(&self, message: impl Display) -> anyhow::Error {
        anyhow!("{}:{}: {message}", self.file.path.display(), self.line)
    }

    /// The text of column `name`.
    pub fn text(&self, name: &str) -> Result<&str> {
        let i = self
            .file
            .columns
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| self.error(format!("no column `{name}`")))?;
        Ok(&self.fields[i])
    }

    /// Column `name` parsed as a `T`.
    pub fn parse<T: FromStr>(&self, name: &str) -> Result<T>
    where
        T::Err: Display,
    {
        let s = self.text(name)?;
        s.parse()
            .map_err(|e| self.error(format!("column `{name}`: cannot read `{s}`: {e}")))
    }

    /// Column `name` as a finite, non-negative number.
    pub fn amount(&self, name: &str) -> Result<f64> {
        let v: f64 = self.parse(name)?;
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(self.error(format!(
                "column `{name}`: `{v}` is not a finite non-negative number"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("kairos-csv-in-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_by_column_name() {
        let p = file("ok", "a,b,c\n1,x,2.5\r\n\n3,y,4\n");
        let f = CsvFile::read(&p).unwrap();
        f.require(&["c", "a"]).unwrap();
        let r: Vec<_> = f.records().collect();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].parse::<usize>("a").unwrap(), 1);
        assert_eq!(r[0].text("b").unwrap(), "x");
        assert_eq!(r[1].amount("c").unwrap(), 4.0);
        assert!(r[1].error("x").to_string().ends_with(":4: x"));
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn errors_name_file_and_line() {
        let p = file("bad", "a,b\n1,2\n3\n");
        let e = CsvFile::read(&p).err().unwrap().to_string();
        assert!(
            e.ends_with(":3: 1 fields, but the header has 2 columns"),
            "{e}"
        );
        std::fs::write(&p, "a,b\n1,2\nx,-1\n").unwrap();
        let f = CsvFile::read(&p).unwrap();
        let r: Vec<_> = f.records().collect();
        let e = r[1].parse::<usize>("a").unwrap_err().to_string();
        assert!(e.contains(":3: column `a`: cannot read `x`"), "{e}");
        let e = r[1].amount("b").unwrap_err().to_string();
        assert!(e.contains(":3: column `b`"), "{e}");
        let e = f.require(&["a", "z"]).unwrap_err().to_string();
        assert!(e.contains(":1: no column `z`"), "{e}");
        std::fs::write(&p, "\n").unwrap();
        assert!(CsvFile::read(&p).is_err());
        std::fs::remove_file(&p).unwrap();
        let e = CsvFile::read(&p).err().unwrap().to_string();
        assert!(e.contains("cannot read"), "{e}");
    }
}
