//! The layers of the library and the command line have no import circle: no top-level module
//! uses another that uses it back (directly or through others), and inside a folder module no
//! file uses a sibling that uses it back. Read from the sources' `crate::` and `super::` paths
//! (comment lines left out), so a new circle fails here before it settles in.

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

#[test]
fn the_library_has_no_import_circle() {
    assert_no_circles(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
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
