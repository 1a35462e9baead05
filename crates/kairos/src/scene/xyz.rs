//! Bodies in extended XYZ: the compact form of a large scene's bodies.
//!
//! A scene names the file with `bodies_file = "NAME.xyz"` (beside the scene file); the file holds
//! one frame in the extended-XYZ format that `kairos frames` writes and OVITO and ASE read and
//! write: a line with the number of bodies, a comment line whose `Properties=` key names the
//! columns, then one line per body, in id order.
//!
//! Columns read (any others, such as `species:S:1`, are skipped): `pos:R:3` (required; also
//! `positions`), `radius:R:1` (required; also `radii`), `vel:R:3` (also `velo`, `velocities`;
//! zero when absent) and `mass:R:1` (also `masses`; 1 when absent). In a 2D scene the third
//! coordinate of positions and velocities must be 0. Numbers are read as `f64`, so a file
//! written with round-trip precision ([`write_bodies`]) loads bit for bit.
//!
//! Reading streams the file line by line into the scene's 64-byte bodies, so a million-body
//! scene loads in about a second with no copy of the text in memory.

use std::io::{self, BufRead, Write};

use super::{BodySpec, Item, Scene, SceneError};

/// What a column of the file is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Column {
    Pos,
    Radius,
    Vel,
    Mass,
    Skip,
}

fn invalid(item: Item, message: String) -> SceneError {
    SceneError::Invalid { item, message }
}

/// The columns of a `Properties=` value, (what, first token, count) each, and the number of
/// tokens of a line.
type Columns = (Vec<(Column, usize, usize)>, usize);

/// The columns named by a `Properties=` value.
fn columns(spec: &str) -> Result<Columns, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    if parts.len() % 3 != 0 || parts.is_empty() {
        return Err(format!(
            "`Properties={spec}` is not a list of name:type:count triples"
        ));
    }
    let mut cols = Vec::new();
    let mut at = 0;
    for t in parts.chunks(3) {
        let count: usize = t[2]
            .parse()
            .ok()
            .filter(|&c| (1..=64).contains(&c))
            .ok_or_else(|| format!("`Properties`: bad count `{}` of `{}`", t[2], t[0]))?;
        let what = match t[0].to_ascii_lowercase().as_str() {
            "pos" | "positions" => Column::Pos,
            "radius" | "radii" => Column::Radius,
            "vel" | "velo" | "velocities" => Column::Vel,
            "mass" | "masses" => Column::Mass,
            _ => Column::Skip,
        };
        let want = match what {
            Column::Pos | Column::Vel => 3,
            Column::Radius | Column::Mass => 1,
            Column::Skip => count,
        };
        if what != Column::Skip && (count != want || !t[1].eq_ignore_ascii_case("R")) {
            return Err(format!(
                "`Properties`: `{}` must be real with {want} component(s) (`{}:R:{want}`)",
                t[0], t[0]
            ));
        }
        if what != Column::Skip && cols.iter().any(|c: &(Column, usize, usize)| c.0 == what) {
            return Err(format!("`Properties`: two columns give `{}`", t[0]));
        }
        cols.push((what, at, count));
        at += count;
    }
    for (need, name) in [(Column::Pos, "pos:R:3"), (Column::Radius, "radius:R:1")] {
        if !cols.iter().any(|c| c.0 == need) {
            return Err(format!("`Properties` has no `{name}` column"));
        }
    }
    Ok((cols, at))
}

/// The value of `key=` in an extended-XYZ comment line (quoted or not).
fn comment_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = line;
    while let Some(k) = rest.find(key) {
        let before_ok = k == 0 || rest.as_bytes()[k - 1].is_ascii_whitespace();
        let after = &rest[k + key.len()..];
        if before_ok && after.starts_with('=') {
            let v = &after[1..];
            return Some(match v.strip_prefix('"') {
                Some(q) => &q[..q.find('"').unwrap_or(q.len())],
                None => v.split_whitespace().next().unwrap_or(""),
            });
        }
        rest = &rest[k + key.len()..];
    }
    None
}

/// Reads the bodies of a scene of dimension `dim` from extended XYZ; errors name `name` (the
/// file), the line and the body.
pub fn read_bodies(
    input: impl BufRead,
    dim: usize,
    name: &str,
) -> Result<Vec<BodySpec>, SceneError> {
    let file_error = |line: usize, msg: String| {
        invalid(
            Item::Scene,
            format!("bodies_file {name}, line {line}: {msg}"),
        )
    };
    let mut lines = input.lines();
    let mut next = |what: &str, line: usize| -> Result<String, SceneError> {
        match lines.next() {
            Some(Ok(l)) => Ok(l),
            Some(Err(e)) => Err(file_error(line, format!("cannot read: {e}"))),
            None => Err(file_error(line, format!("the file ends before {what}"))),
        }
    };
    let first = next("the number of bodies", 1)?;
    let n: usize = first.trim().parse().map_err(|_| {
        file_error(
            1,
            format!(
                "expected the number of bodies, got `{}`",
                first.chars().take(40).collect::<String>()
            ),
        )
    })?;
    if n >= u32::MAX as usize {
        return Err(file_error(1, format!("{n} bodies is too many")));
    }
    let comment = next("the comment line", 2)?;
    let spec = comment_value(&comment, "Properties").ok_or_else(|| {
        file_error(
            2,
            "no `Properties=` key (for example Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3)"
                .into(),
        )
    })?;
    let (cols, width) = columns(spec).map_err(|e| file_error(2, e))?;
    let mut bodies = Vec::new();
    bodies
        .try_reserve_exact(n.min(1 << 28))
        .map_err(|_| file_error(1, format!("{n} bodies do not fit in memory")))?;
    let mut values = vec![0.0f64; width];
    for i in 0..n {
        let line_no = i + 3;
        let line = next(&format!("body {i} (the header says {n} bodies)"), line_no)?;
        let item = Item::Body(i);
        let body_error = |msg: String| invalid(item, format!("{name}, line {line_no}: {msg}"));
        let mut tokens = line.split_whitespace();
        for (what, at, count) in &cols {
            for k in 0..*count {
                let t = tokens.next().ok_or_else(|| {
                    body_error(format!("{width} columns expected, the line is shorter"))
                })?;
                if *what != Column::Skip {
                    values[at + k] = t
                        .parse()
                        .map_err(|_| body_error(format!("`{t}` is not a number")))?;
                }
            }
        }
        if tokens.next().is_some() {
            return Err(body_error(format!(
                "{width} columns expected, the line is longer"
            )));
        }
        let mut b = BodySpec {
            position: [0.0; 3],
            velocity: [0.0; 3],
            radius: 0.0,
            mass: 1.0,
        };
        for (what, at, _) in &cols {
            match what {
                Column::Pos => b.position.copy_from_slice(&values[*at..at + 3]),
                Column::Vel => b.velocity.copy_from_slice(&values[*at..at + 3]),
                Column::Radius => b.radius = values[*at],
                Column::Mass => b.mass = values[*at],
                Column::Skip => {}
            }
        }
        // The rules of `[[bodies]]` (z = 0 in 2D among them), with the file and line in the message.
        super::validate::body_values(dim, &b, false, item).map_err(|e| match e {
            SceneError::Invalid { message, .. } => body_error(message),
            other => other,
        })?;
        bodies.push(b);
    }
    // Only blank lines may follow: a second frame is not silently ignored.
    for (line_no, rest) in (n + 3..).zip(lines) {
        let rest = rest.map_err(|e| file_error(line_no, format!("cannot read: {e}")))?;
        if !rest.trim().is_empty() {
            return Err(file_error(
                line_no,
                format!(
                    "the file holds more than its {n} bodies (a second frame?): a bodies file holds one frame"
                ),
            ));
        }
    }
    Ok(bodies)
}

/// Writes the bodies of `scene` as one extended-XYZ frame (with the periodic cell as
/// `Lattice`), every number with round-trip precision.
///
/// # Errors
///
/// An I/O error of `out`, or [`io::ErrorKind::InvalidInput`] for a scene with rigid bodies
/// (the format holds balls only).
pub fn write_bodies(scene: &Scene, out: &mut impl Write) -> io::Result<()> {
    if scene.has_rigid_bodies() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "rigid bodies (with `shape`) cannot be written to a bodies file yet: keep them in \
             the scene's [[bodies]] tables",
        ));
    }
    writeln!(out, "{}", scene.bodies.len())?;
    let lattice = match &scene.periodic {
        Some(l) => format!(
            "Lattice=\"{:?} 0 0 0 {:?} 0 0 0 {:?}\" pbc=\"T T {}\" ",
            l[0],
            l[1],
            l.get(2).copied().unwrap_or(1.0),
            if l.len() == 3 { "T" } else { "F" }
        ),
        None => "pbc=\"F F F\" ".to_string(),
    };
    writeln!(
        out,
        "{lattice}Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3:mass:R:1"
    )?;
    for b in &scene.bodies {
        let p = b.position;
        let v = b.velocity;
        writeln!(
            out,
            "X {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            p[0], p[1], p[2], b.radius, v[0], v[1], v[2], b.mass
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, dim: usize) -> Result<Vec<BodySpec>, SceneError> {
        read_bodies(text.as_bytes(), dim, "b.xyz")
    }

    #[test]
    fn reads_what_frames_writes_and_skips_other_columns() {
        let text = "2\nLattice=\"10.0 0 0 0 10.0 0 0 0 1.0\" Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3 Time=0.0\n\
                    A 1.0 2.0 0.0 0.5 0.1 -0.2 0.0\nA 4.0 2.0 0.0 0.5 0.0 0.0 0.0\n";
        let b = read(text, 2).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].position, [1.0, 2.0, 0.0]);
        assert_eq!(b[0].velocity, [0.1, -0.2, 0.0]);
        assert_eq!((b[0].radius, b[0].mass), (0.5, 1.0));
    }

    #[test]
    fn errors_name_the_line_and_the_body() {
        let head = "2\nProperties=pos:R:3:radius:R:1:mass:R:1\n";
        let e = read(&format!("{head}1 2 0 0.5 1\n1 x 0 0.5 1\n"), 2).unwrap_err();
        assert_eq!(e.to_string(), "body 1: b.xyz, line 4: `x` is not a number");
        let e = read(&format!("{head}1 2 0 0.5 1\n"), 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 4: the file ends before body 1"),
            "{e}"
        );
        let e = read(&format!("{head}1 2 0 0.5 1\n1 2 0 0.5\n"), 2).unwrap_err();
        assert!(e.to_string().contains("the line is shorter"), "{e}");
        let e = read(&format!("{head}1 2 0 0.5 1\n1 2 0 0.5 1 7\n"), 2).unwrap_err();
        assert!(e.to_string().contains("the line is longer"), "{e}");
        let e = read(&format!("{head}1 2 3 0.5 1\n1 2 0 0.5 1\n"), 2).unwrap_err();
        assert!(e.to_string().contains("z = 0"), "{e}");
        let e = read(&format!("{head}1 2 0 0.5 1\n1 2 0 0.5 1\n2\n"), 2).unwrap_err();
        assert!(e.to_string().contains("second frame"), "{e}");
        let e = read("2\nProperties=species:S:1:radius:R:1\n", 2).unwrap_err();
        assert!(e.to_string().contains("no `pos:R:3` column"), "{e}");
        let e = read("2\nTime=0\n", 2).unwrap_err();
        assert!(e.to_string().contains("no `Properties=`"), "{e}");
        let e = read("two\n", 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 1: expected the number of bodies"),
            "{e}"
        );
        let e = read("1\nProperties=pos:R:2:radius:R:1\n", 2).unwrap_err();
        assert!(e.to_string().contains("`pos:R:3`"), "{e}");
    }
}
