//! The standard CCD benchmark queries (the sample queries of Wang et al., *A Large-scale
//! Benchmark and an Inclusion-based Algorithm for Continuous Collision Detection*, 2021, as in
//! `tests/data/ccd-queries/`): reading their files and checking [`kairos::ccd::linear`] against their
//! exact ground truth.
//!
//! # The file format
//!
//! A CSV file of `8 n` rows for `n` queries. Each row is one vertex position (at `t = 0` for
//! the first four rows of a query, at `t = 1` for the last four) as three rationals, each
//! written as two integer columns (numerator, denominator), and a seventh column, the exact
//! answer (`1`: the query's features touch during `[0, 1]`). The four points are `v, f0, f1,
//! f2` for a vertex–face query and `a0, a1, b0, b1` for an edge–edge query. A rational is read
//! into an [`Interval`] holding it exactly (its own float when the division is exact, as it is
//! for every value of the sample queries), so the answer is about the exact query.

use std::path::Path;

use kairos::ccd::linear::{edge_edge, vertex_face, CcdOptions, LinearPoint};
use kairos::ccd::Interval;

/// Which features a query's points are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueryKind {
    /// A vertex and a triangle.
    VertexFace,
    /// Two edges.
    EdgeEdge,
}

impl QueryKind {
    /// The kind of a file from its path: `vertex-face` or `edge-edge` in it (the sample
    /// queries' folders), `None` otherwise.
    pub fn of_path(path: &Path) -> Option<Self> {
        let p = path.to_string_lossy();
        if p.contains("vertex-face") {
            Some(Self::VertexFace)
        } else if p.contains("edge-edge") {
            Some(Self::EdgeEdge)
        } else {
            None
        }
    }
    /// `"vertex-face"` or `"edge-edge"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::VertexFace => "vertex-face",
            Self::EdgeEdge => "edge-edge",
        }
    }
}

/// One query: four moving points and the exact answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// What the points are.
    pub kind: QueryKind,
    /// The points, each at `t = 0` and `t = 1`, in the file's order.
    pub points: [LinearPoint; 4],
    /// Whether the features touch during `[0, 1]` (exact).
    pub truth: bool,
}

impl Query {
    /// The earliest time the features may touch by [`kairos::ccd::linear`] (`None`: they never do).
    pub fn solve(&self, opts: &CcdOptions) -> Option<f64> {
        let [a, b, c, d] = &self.points;
        match self.kind {
            QueryKind::VertexFace => vertex_face(a, b, c, d, opts),
            QueryKind::EdgeEdge => edge_edge(a, b, c, d, opts),
        }
    }
}

/// Why a query file was refused: the file, the line (from 1) and the problem.
#[derive(Debug, thiserror::Error)]
pub enum QueryFileError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The error.
        source: std::io::Error,
    },
    /// A line is malformed.
    #[error("{file}: line {line}: {problem}")]
    Invalid {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

/// The rational `num / den` of two integer columns as an interval that holds it.
fn rational(num: &str, den: &str) -> Result<Interval, String> {
    let parse = |s: &str| -> Result<Interval, String> {
        let s = s.trim();
        // An integer that converts back unchanged is its float; another is held by the floats
        // around it.
        if let Ok(i) = s.parse::<i128>() {
            let f = i as f64;
            return Ok(if f as i128 == i {
                Interval::point(f)
            } else {
                Interval::new(f.next_down(), f.next_up())
            });
        }
        // Longer integers: the float nearest to the digits (correctly rounded) and the floats
        // around it, while that is finite.
        let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let f: f64 = s.parse().map_err(|_| format!("`{s}` is not an integer"))?;
            if f.is_finite() && f.next_up().is_finite() && f.next_down().is_finite() {
                return Ok(Interval::new(f.next_down(), f.next_up()));
            }
            return Err(format!(
                "an integer of {} digits is out of range (at most about 1.8e308)",
                digits.len()
            ));
        }
        Err(format!("`{s}` is not an integer"))
    };
    let (n, d) = (parse(num)?, parse(den)?);
    if d.contains_zero() {
        return Err(format!("the denominator of {num}/{den} is zero"));
    }
    let q = if n.lo() == n.hi() && d.lo() == d.hi() {
        Interval::ratio(n.lo(), d.lo())
    } else {
        n / d
    };
    if q.lo().is_finite() && q.hi().is_finite() {
        Ok(q)
    } else {
        Err(format!("{num}/{den} is out of range"))
    }
}

/// Reads the queries of `path`, of kind `kind` (see the [module docs](self)).
///
/// # Errors
///
/// [`QueryFileError`] naming the file, the line and the problem: a row without 7 columns, a
/// column that is not an integer, a zero denominator, a truth other than 0 or 1 or not the
/// same on a query's 8 rows, or a row count that is not a multiple of 8. An empty file has no
/// queries.
pub fn read_queries(path: &Path, kind: QueryKind) -> Result<Vec<Query>, QueryFileError> {
    let file = path.display().to_string();
    let text = kairos::input::read_to_string(path, kairos::input::MAX_TEXT).map_err(|source| {
        QueryFileError::Io {
            file: file.clone(),
            source,
        }
    })?;
    let bad = |line: usize, problem: String| QueryFileError::Invalid {
        file: file.clone(),
        line,
        problem,
    };
    let mut rows: Vec<(usize, [Interval; 3], bool)> = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line_no = k + 1;
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split(',').collect();
        if cols.len() != 7 {
            return Err(bad(
                line_no,
                format!("expected 7 columns, got {}", cols.len()),
            ));
        }
        let mut p = [Interval::ZERO; 3];
        for (axis, x) in p.iter_mut().enumerate() {
            *x = rational(cols[2 * axis], cols[2 * axis + 1]).map_err(|e| bad(line_no, e))?;
        }
        let truth = match cols[6].trim() {
            "0" => false,
            "1" => true,
            other => {
                return Err(bad(
                    line_no,
                    format!("the truth must be 0 or 1, got `{other}`"),
                ))
            }
        };
        rows.push((line_no, p, truth));
    }
    if rows.len() % 8 != 0 {
        let line = rows.last().map_or(1, |r| r.0);
        return Err(bad(
            line,
            format!(
                "{} rows: a query has 8, so the count must be a multiple of 8",
                rows.len()
            ),
        ));
    }
    rows.chunks(8)
        .map(|q| {
            let truth = q[0].2;
            if let Some(r) = q.iter().find(|r| r.2 != truth) {
                return Err(bad(r.0, "the truth differs within one query".into()));
            }
            let points = [0, 1, 2, 3].map(|i| [q[i].1, q[i + 4].1]);
            Ok(Query {
                kind,
                points,
                truth,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rationals_are_held_exactly() {
        let x = rational("6004799503160661", "36028797018963968").unwrap();
        assert_eq!(x, Interval::point(6004799503160661.0 / 36028797018963968.0));
        let third = rational("1", "3").unwrap();
        assert!(third.lo() < third.hi());
        let big = rational("123456789012345678901", "1").unwrap();
        assert!(big.lo() <= 123456789012345678901.0 && big.hi() >= 123456789012345678901.0);
        assert!(rational("1", "0").unwrap_err().contains("zero"));
        assert!(rational("x", "1").unwrap_err().contains("not an integer"));
    }

    #[test]
    fn bad_files_are_refused_with_file_and_line() {
        let dir = std::env::temp_dir().join(format!("kairos-ccd-q-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("q.csv");
        let row = "1,2,3,4,5,6,0\n";
        std::fs::write(&f, row.repeat(7)).unwrap();
        let e = read_queries(&f, QueryKind::VertexFace)
            .unwrap_err()
            .to_string();
        assert!(e.contains("q.csv") && e.contains("multiple of 8"), "{e}");
        std::fs::write(&f, format!("{}1,2,3,4,5\n", row.repeat(3))).unwrap();
        let e = read_queries(&f, QueryKind::VertexFace)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 4") && e.contains("7 columns"), "{e}");
        std::fs::write(&f, format!("{}1,2,3,4,5,6,1\n", row.repeat(7))).unwrap();
        let e = read_queries(&f, QueryKind::EdgeEdge)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 8") && e.contains("truth differs"), "{e}");
        std::fs::write(&f, row.repeat(16)).unwrap();
        assert_eq!(read_queries(&f, QueryKind::EdgeEdge).unwrap().len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
