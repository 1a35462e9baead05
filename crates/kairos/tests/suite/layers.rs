//! The layers of the library and the command line: no import circle (no top-level module uses
//! another that uses it back, directly or through others; inside a folder module no file uses a
//! sibling that uses it back), and the floors of `docs/ARCHITECTURE.md` hold: every top-level
//! module of `kairos` and `kairos-geometry` is on exactly one floor of the page, and its code
//! (tests left out) uses only modules on the floors below its own. Read from the sources'
//! `crate::` and `super::` paths (comment lines left out), so a new circle or a use that
//! climbs fails here before it settles in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The Rust files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The names that follow `prefix` in the code of `text` (comment lines left out); a brace
/// group (`prefix{a, b::c}`) gives each of its first names.
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(k) = rest.find(prefix) {
            let before = rest[..k].chars().last();
            rest = &rest[k + prefix.len()..];
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                for part in inner.split(',') {
                    let name = ident(part.trim());
                    if !name.is_empty() {
                        out.insert(name.to_string());
                    }
                }
            } else {
                let name = ident(rest);
                if !name.is_empty() {
                    out.insert(name.to_string());
                }
            }
        }
    }
    out
}

/// A circle of the directed graph `edges`, if any, as the nodes along it.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with the path on a stack: 0 unseen, 1 on the path, 2 done.
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == m).unwrap();
                    let mut c = path[start..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, edges, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut path = Vec::new();
            if let Some(c) = visit(n, edges, &mut state, &mut path) {
                return Some(c);
            }
        }
    }
    None
}

/// The module of `file` under `src` at `depth` (1: top level, 2: a folder module's file),
/// `None` for the crate root or a file not that deep.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
        parts.push(stem.to_string());
    }
    parts
}

/// Fails naming the circle if the crate at `src` has one, between top-level modules or
/// between the files of one folder module.
fn assert_no_circles(src: &Path) {
    let files = rust_files(src);
    let modules: Vec<(Vec<String>, String)> = files
        .iter()
        .map(|f| (module_path(src, f), std::fs::read_to_string(f).unwrap()))
        .collect();
    let top: BTreeSet<String> = modules
        .iter()
        .filter_map(|(m, _)| m.first().cloned())
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in &modules {
        let Some(from) = m.first() else { continue };
        for to in names_after(text, "crate::") {
            if top.contains(&to) && &to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    if let Some(c) = circle(&edges) {
        panic!(
            "{}: top-level modules in a circle: {}",
            src.display(),
            c.join(" -> ")
        );
    }
    // Inside each folder module: its files' uses of their siblings.
    for folder in &top {
        let children: BTreeSet<String> = modules
            .iter()
            .filter(|(m, _)| m.len() >= 2 && &m[0] == folder)
            .map(|(m, _)| m[1].clone())
            .collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, text) in modules
            .iter()
            .filter(|(m, _)| m.len() == 2 && &m[0] == folder)
        {
            let from = &m[1];
            let mut used = names_after(text, "super::");
            used.extend(names_after(text, &format!("crate::{folder}::")));
            for to in used {
                if children.contains(&to) && &to != from {
                    edges.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        if let Some(c) = circle(&edges) {
            panic!(
                "{}: files of `{folder}` in a circle: {}",
                src.display(),
                c.join(" -> ")
            );
        }
    }
}

/// Whether `file` is a test module of its crate (`tests.rs`, `..._tests.rs`).
fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The code of a source file without its tests: a `#[cfg(test)]` item that is a block (a
/// `mod tests { ... }`, at the end of the file by convention) ends it, and one that is a line
/// (`mod tests;`) is left out.
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            match lines.peek() {
                Some(next) if next.trim_end().ends_with(';') => {
                    lines.next();
                    continue;
                }
                _ => break,
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The width of the label column of the layer drawing.
const LABEL: usize = 12;

/// The floors of crate `name` in the layer drawing of `page` (the block under `## Layers`),
/// top floor first: the rows between the rule naming the crate (`═══ name ═══`) and the next
/// rule, each a row of module names after the label column (the first [`LABEL`] characters).
fn floors(page: &str, name: &str, modules: &BTreeSet<String>) -> Vec<Vec<String>> {
    let block = page
        .split("## Layers")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("a ```-block under `## Layers`");
    let mut out = Vec::new();
    let mut inside = false;
    for line in block.lines() {
        if line.contains("═══") {
            inside = line.split_whitespace().any(|w| w == name);
            continue;
        }
        if !inside || line.trim().is_empty() {
            continue;
        }
        // Columns 1 to 11 hold the floor's label, if any; the modules follow.
        let words: Vec<&str> = line.get(LABEL..).unwrap_or("").split_whitespace().collect();
        for w in &words {
            assert!(
                modules.contains(*w),
                "docs/ARCHITECTURE.md lists `{w}` on a floor of {name}, which has no such module"
            );
        }
        out.push(words.iter().map(|w| w.to_string()).collect());
    }
    out
}

/// Fails naming the module and the use if a module of the crate at `src` uses one on its own
/// floor or above, by the floors `floors` (top first); and if a module is on no floor or two.
fn assert_floors(src: &Path, floors: &[Vec<String>]) {
    let mut floor_of: BTreeMap<String, usize> = BTreeMap::new();
    for (k, row) in floors.iter().enumerate() {
        for m in row {
            let level = floors.len() - k;
            assert!(
                floor_of.insert(m.clone(), level).is_none(),
                "{}: `{m}` is on two floors",
                src.display()
            );
        }
    }
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let m = module_path(src, &file);
        let Some(from) = m.first() else { continue };
        if is_test_file(&file) {
            continue;
        }
        let text = without_tests(&std::fs::read_to_string(&file).unwrap());
        uses.entry(from.clone())
            .or_default()
            .extend(names_after(&text, "crate::"));
    }
    for (from, used) in &uses {
        let Some(&level) = floor_of.get(from) else {
            panic!(
                "{}: `{from}` is on no floor of docs/ARCHITECTURE.md",
                src.display()
            );
        };
        for to in used {
            if let Some(&other) = floor_of.get(to) {
                assert!(
                    to == from || other < level,
                    "{}: `{from}` (floor {level}) uses `{to}` (floor {other}): a module may use \
                     only the floors below its own (docs/ARCHITECTURE.md)",
                    src.display()
                );
            }
        }
    }
}

/// The top-level modules of the crate at `src`.
fn top_modules(src: &Path) -> BTreeSet<String> {
    rust_files(src)
        .iter()
        .filter_map(|f| module_path(src, f).first().cloned())
        .collect()
}

#[test]
fn every_module_uses_only_the_floors_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let page = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    for (name, dir) in [
        ("kairos", "crates/kairos/src"),
        ("kairos-geometry", "crates/kairos-geometry/src"),
    ] {
        let src = root.join(dir);
        let modules = top_modules(&src);
        let rows = floors(&page, name, &modules);
        assert!(
            rows.len() > 2,
            "no floors of {name} in docs/ARCHITECTURE.md"
        );
        assert_floors(&src, &rows);
    }
}

#[test]
fn a_use_that_climbs_is_found_and_named() {
    let dir = std::env::temp_dir().join(format!("kairos-floors-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\npub mod c;\n").unwrap();
    std::fs::write(dir.join("a.rs"), "use crate::b::x;\n").unwrap();
    std::fs::write(
        dir.join("b/mod.rs"),
        "pub fn x() {}\n#[cfg(test)]\nmod tests;\n",
    )
    .unwrap();
    // Tests may reach up.
    std::fs::write(dir.join("b/tests.rs"), "use crate::a;\n").unwrap();
    std::fs::write(
        dir.join("c.rs"),
        "#[cfg(test)]\nmod t {\n    use crate::a;\n}\n",
    )
    .unwrap();
    let page =
        "## Layers\n\n```\n ═══ demo ═══\n a          a\n            b  c\n ═══ other ═══\n```\n";
    let modules = top_modules(&dir);
    let rows = floors(page, "demo", &modules);
    assert_eq!(rows, [vec!["a".to_string()], vec!["b".into(), "c".into()]]);
    assert_floors(&dir, &rows);
    // A use sideways, on the same floor.
    std::fs::write(dir.join("c.rs"), "use crate::b;\n").unwrap();
    let e = std::panic::catch_unwind(|| assert_floors(&dir, &rows)).unwrap_err();
    let e = e.downcast_ref::<String>().unwrap().clone();
    assert!(e.contains("`c` (floor 1) uses `b` (floor 1)"), "{e}");
    // A use upwards.
    std::fs::write(dir.join("c.rs"), "pub fn f() { crate::a::g() }\n").unwrap();
    let e = std::panic::catch_unwind(|| assert_floors(&dir, &rows)).unwrap_err();
    let e = e.downcast_ref::<String>().unwrap().clone();
    assert!(e.contains("`c` (floor 1) uses `a` (floor 2)"), "{e}");
    // A module the page does not place.
    let e = std::panic::catch_unwind(|| assert_floors(&dir, &rows[..1])).unwrap_err();
    let e = e.downcast_ref::<String>().unwrap().clone();
    assert!(e.contains("is on no floor"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_library_has_no_import_circle() {
    assert_no_circles(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
}

#[test]
fn the_geometry_has_no_import_circle() {
    assert_no_circles(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../kairos-geometry/src"));
}

#[test]
fn the_command_line_has_no_import_circle() {
    assert_no_circles(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../kairos-cli/src"));
}

#[test]
fn a_circle_is_found_and_named() {
    let dir = std::env::temp_dir().join(format!("kairos-layers-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(
        dir.join("a.rs"),
        "use crate::b::x;\n// crate::c in a comment\n",
    )
    .unwrap();
    std::fs::write(dir.join("b/mod.rs"), "mod x;\nmod y;\n").unwrap();
    std::fs::write(dir.join("b/x.rs"), "use super::y::f;\n").unwrap();
    std::fs::write(dir.join("b/y.rs"), "pub fn f() {}\n").unwrap();
    assert_no_circles(&dir);
    // A file of `b` using `a`, which uses `b`: a circle of top-level modules.
    std::fs::write(dir.join("b/y.rs"), "use crate::{a, b};\npub fn f() {}\n").unwrap();
    let top = std::panic::catch_unwind(|| assert_no_circles(&dir)).unwrap_err();
    let top = top.downcast_ref::<String>().unwrap().clone();
    assert!(
        top.contains("a -> b -> a") || top.contains("b -> a -> b"),
        "{top}"
    );
    // Two files of `b` using each other.
    std::fs::write(dir.join("b/y.rs"), "use crate::b::x;\npub fn f() {}\n").unwrap();
    let inner = std::panic::catch_unwind(|| assert_no_circles(&dir)).unwrap_err();
    let inner = inner.downcast_ref::<String>().unwrap().clone();
    assert!(
        inner.contains("files of `b`") && inner.contains("x -> y -> x"),
        "{inner}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
