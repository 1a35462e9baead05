//! The CSV files of the `bench` commands: every benchmark's result rows are one
//! `#[derive(Serialize, Deserialize)]` struct, written by `--csv` and read back by `--from-csv`
//! with the `csv` crate.
//!
//! The columns are the struct's fields, in order. A file is read by column name, so columns
//! added later (or reordered) do not break older readers, and a field may be left out of older
//! files when the caller says it may (`optional`, with `#[serde(default)]`). Every number in
//! these files is a measurement or a parameter of one: reading a number that is negative or not
//! finite is an error. Every error names the file and the line, and the column and its text
//! when one field is wrong.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{anyhow, Context, Result};
use serde::de::value::{Error as DeError, MapAccessDeserializer, StrDeserializer};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Serialize, Serializer};

use crate::output::write_text;
use crate::show;

/// Rows read back from a CSV file, each with the line it starts on.
pub struct CsvRows<T> {
    path: PathBuf,
    header: csv::StringRecord,
    /// (line, row), in file order.
    pub rows: Vec<(u64, T)>,
}

impl<T> CsvRows<T> {
    /// Whether the header has column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.header.iter().any(|c| c == name)
    }

    /// An error about line `line` of the file: `FILE:LINE: message`.
    pub fn error(&self, line: u64, message: impl Display) -> anyhow::Error {
        anyhow!("{}:{line}: {message}", show(&self.path))
    }

    /// The rows, or an error naming the file when there are none.
    pub fn nonempty(self) -> Result<Vec<T>> {
        anyhow::ensure!(
            !self.rows.is_empty(),
            "{}: no measurements",
            show(&self.path)
        );
        Ok(self.rows.into_iter().map(|(_, r)| r).collect())
    }
}

/// Writes `rows` to `path` (atomically), the header first even when there are no rows. Numbers
/// are written in full (reading them back gives the same numbers).
pub fn write<T: Serialize + DeserializeOwned>(path: &Path, rows: &[T]) -> Result<()> {
    let text = || -> Result<String> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(columns::<T>())?;
        for r in rows {
            w.serialize(r)?;
        }
        let bytes = w.into_inner().map_err(|e| anyhow!("{e}"))?;
        Ok(String::from_utf8(bytes)?)
    };
    let text = text().with_context(|| format!("{}: cannot write the rows", show(path)))?;
    write_text(path, &text)
}

/// Reads the rows of `path`: every column of `T` must be in the header except those named in
/// `optional`.
pub fn read<T: DeserializeOwned>(path: &Path, optional: &[&str]) -> Result<CsvRows<T>> {
    let text = kairos::input::read(path, kairos::input::MAX_TEXT)
        .with_context(|| format!("{}: cannot read", show(path)))?;
    let at = |pos: Option<&csv::Position>, message: String| match pos {
        Some(p) => anyhow!("{}:{}: {message}", show(path), line_of(&text, p)),
        None => anyhow!("{}: {message}", show(path)),
    };
    let csv_error = |e: csv::Error| match e.kind() {
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => at(
            pos.as_ref(),
            format!("{len} fields, but the header has {expected_len} columns"),
        ),
        csv::ErrorKind::Utf8 { pos, err } => at(pos.as_ref(), format!("not UTF-8 text ({err})")),
        _ => at(None, e.to_string()),
    };
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_slice());
    let header = reader.headers().map_err(csv_error)?.clone();
    anyhow::ensure!(
        !header.is_empty(),
        "{}: empty file (expected a CSV header)",
        show(path)
    );
    let required: Vec<&str> = columns::<T>()
        .iter()
        .copied()
        .filter(|c| !optional.contains(c))
        .collect();
    if let Some(missing) = required.iter().find(|c| !header.iter().any(|h| h == **c)) {
        anyhow::bail!(
            "{}:1: no column `{missing}` in the header (expected {})",
            show(path),
            required.join(",")
        );
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let pos = record.position();
        let fields = Fields {
            header: &header,
            record: &record,
            next: 0,
        };
        let row = T::deserialize(MapAccessDeserializer::new(fields))
            .map_err(|e| at(pos, e.to_string()))?;
        rows.push((pos.map_or(0, |p| line_of(&text, p)), row));
    }
    Ok(CsvRows {
        path: path.to_path_buf(),
        header,
        rows,
    })
}

/// The line (from 1) of the record at `pos` in `text`. The `csv` crate's position of a record
/// is where the previous one ended (before its line end, and before any blank lines, which it
/// skips), so its own line count is off after `\r\n` and blank lines: the record starts at the
/// first byte from there that ends no line.
fn line_of(text: &[u8], pos: &csv::Position) -> u64 {
    let from = (pos.byte() as usize).min(text.len());
    let start = from
        + text[from..]
            .iter()
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
    1 + text[..start].iter().filter(|&&b| b == b'\n').count() as u64
}

/// The columns of `T`: its fields' names, in order (what `deserialize_struct` is told).
fn columns<T: DeserializeOwned>() -> &'static [&'static str] {
    /// A deserializer that only records the fields asked for.
    struct Names(&'static [&'static str]);
    impl<'de> de::Deserializer<'de> for &mut Names {
        type Error = DeError;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, DeError> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, DeError> {
            self.0 = fields;
            Err(de::Error::custom("fields recorded"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut names = Names(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

/// One record as a map from column name to field, for a row's `Deserialize`; an error in a
/// field names its column and text.
struct Fields<'a> {
    header: &'a csv::StringRecord,
    record: &'a csv::StringRecord,
    next: usize,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        match self.header.get(self.next) {
            Some(name) => seed.deserialize(name.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let column = &self.header[self.next];
        let text = self.record.get(self.next).unwrap_or("");
        self.next += 1;
        seed.deserialize(Field(text))
            .map_err(|e| de::Error::custom(format!("column `{column}`: cannot read `{text}`: {e}")))
    }
}

/// The text of one field, read as the type the row asks for.
struct Field<'a>(&'a str);

impl Field<'_> {
    fn parse<T: FromStr>(&self) -> Result<T, DeError>
    where
        T::Err: Display,
    {
        self.0.parse().map_err(de::Error::custom)
    }
}

/// `deserialize_$ty` parses the text as a `$ty` and visits it with `$visit`.
macro_rules! parse_fields {
    ($($method:ident: $ty:ty => $visit:ident,)*) => {
        $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            v.$visit(self.parse::<$ty>()?)
        })*
    };
}

impl<'de> de::Deserializer<'de> for Field<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        StrDeserializer::<DeError>::new(self.0).deserialize_any(v)
    }

    /// A measurement: finite and not negative.
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        let x: f64 = self.parse()?;
        if !(x.is_finite() && x >= 0.0) {
            return Err(de::Error::custom("not a finite non-negative number"));
        }
        v.visit_f64(x)
    }

    /// Empty is `None`.
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        if self.0.is_empty() {
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    parse_fields! {
        deserialize_bool: bool => visit_bool,
        deserialize_u8: u8 => visit_u8,
        deserialize_u16: u16 => visit_u16,
        deserialize_u32: u32 => visit_u32,
        deserialize_u64: u64 => visit_u64,
        deserialize_i64: i64 => visit_i64,
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i128 u128 f32 char str string bytes byte_buf unit unit_struct newtype_struct
        seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// `#[serde(with = "by_name")]`: a kind (a broad phase, ...) as its command-line name.
pub mod by_name {
    use super::*;

    pub fn serialize<T: Display, S: Serializer>(kind: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(kind)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: de::Deserializer<'de>,
    {
        let name = <std::borrow::Cow<str> as serde::Deserialize>::deserialize(d)?;
        name.parse().map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Row {
        a: usize,
        b: String,
        c: f64,
        d: Option<f64>,
        #[serde(default)]
        e: bool,
    }

    fn file(name: &str, text: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("kairos-rows-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_by_column_name_and_writes_back() {
        let p = file("ok", "d, c,b,a\n,2.5,x,1\r\n\n4, 4,y,3\n");
        let rows = read::<Row>(&p, &["e"]).unwrap();
        assert!(!rows.has("e") && rows.has("c"));
        assert!(rows.error(4, "x").to_string().ends_with(":4: x"));
        let lines: Vec<u64> = rows.rows.iter().map(|r| r.0).collect();
        assert_eq!(lines, [2, 4]);
        let rows = rows.nonempty().unwrap();
        assert_eq!(
            rows[1],
            Row {
                a: 3,
                b: "y".into(),
                c: 4.0,
                d: Some(4.0),
                e: false
            }
        );
        write(&p, &rows).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text, "a,b,c,d,e\n1,x,2.5,,false\n3,y,4.0,4.0,false\n");
        assert_eq!(read::<Row>(&p, &[]).unwrap().nonempty().unwrap(), rows);
        write::<Row>(&p, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a,b,c,d,e\n");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let p = file("bad", "a,b,c,d\n1,x,2,\n3\n");
        let e = read::<Row>(&p, &["e"]).err().unwrap().to_string();
        assert!(
            e.ends_with(":3: 1 fields, but the header has 4 columns"),
            "{e}"
        );
        std::fs::write(&p, "a,b,c,d\r\n1,x,2,\r\n\r\n3\r\n").unwrap();
        let e = read::<Row>(&p, &["e"]).err().unwrap().to_string();
        assert!(e.contains(":4: 1 fields"), "{e}");
        for (text, needle) in [
            (
                "a,b,c,d\n1,x,2,\nx,y,1,\n",
                ":3: column `a`: cannot read `x`: invalid digit",
            ),
            (
                "a,b,c,d\n1,x,-1,\n",
                ":2: column `c`: cannot read `-1`: not a finite",
            ),
            (
                "a,b,c,d\n1,x,1,inf\n",
                ":2: column `d`: cannot read `inf`: not a finite",
            ),
            (
                "a,b,d\n1,x,1\n",
                ":1: no column `c` in the header (expected a,b,c,d)",
            ),
            ("", ": empty file"),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = read::<Row>(&p, &["e"]).err().unwrap().to_string();
            assert!(e.contains(needle), "{e}");
        }
        std::fs::write(&p, "a,b,c,d\n").unwrap();
        let e = read::<Row>(&p, &["e"]).unwrap().nonempty().unwrap_err();
        assert!(e.to_string().ends_with(": no measurements"), "{e}");
        std::fs::remove_file(&p).unwrap();
        let e = read::<Row>(&p, &[]).err().unwrap().to_string();
        assert!(e.contains("cannot read"), "{e}");
    }
}
