//! `kairos ccd DIR`: the continuous collision detection of triangle features on every query
//! file of the standard benchmark's format under a folder, with the false negatives and
//! false positives against the files' exact answers, per folder.

mod queries;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use kairos::ccd::linear::RootFinder;
use kairos::ccd::CcdOptions;
use queries::{read_queries, QueryKind};

use crate::show;

/// Arguments of `kairos ccd`.
#[derive(Args)]
pub struct CcdArgs {
    /// A folder searched recursively for CSV query files (8 rows a query: see
    /// docs/ccd-queries.md); a file's queries are vertex-face when its path contains
    /// `vertex-face`, edge-edge when it contains `edge-edge`.
    pub dir: PathBuf,
    /// Print a JSON list of objects (folder, kind, queries, false_negatives, false_positives,
    /// seconds_per_query) instead of a table, then one per kind with `folder` null: the totals.
    #[arg(long)]
    pub json: bool,
    /// Time tolerance of the root finder: an interval of time this short that no test
    /// excludes is reported as a contact.
    #[arg(long, default_value_t = CcdOptions::default().time_tolerance)]
    pub tolerance: f64,
    /// The root finder: `hybrid` (bisection after the second-order root-domain cut, the
    /// seed's HRFOI) or `bisection` (the seed's BBOI).
    #[arg(long, value_enum, default_value = "hybrid")]
    pub root_finder: Finder,
    /// Solve each file's queries this many times and report the mean time (warm caches;
    /// the answers are the same every time).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
}

/// `--root-finder`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Finder {
    /// Bisection after the second-order root-domain cut (HRFOI).
    Hybrid,
    /// Bisection alone (BBOI).
    Bisection,
}

/// The counts of one folder.
#[derive(Default)]
struct Tally {
    queries: usize,
    false_negatives: usize,
    false_positives: usize,
    seconds: f64,
}

/// Every CSV file under `dir` (the extension in any case), sorted. A folder reached again (by
/// a link back up the tree, or a second link to it) is read once.
fn csv_files(dir: &Path, seen: &mut HashSet<PathBuf>, out: &mut Vec<PathBuf>) -> Result<()> {
    let real = std::fs::canonicalize(dir)
        .with_context(|| format!("{}: cannot read the folder", show(dir)))?;
    if !seen.insert(real) {
        return Ok(());
    }
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot read the folder", show(dir)))?;
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("{}: cannot read the folder", show(dir)))?;
    paths.sort();
    for p in paths {
        if p.is_dir() {
            csv_files(&p, seen, out)?;
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
            out.push(p);
        }
    }
    Ok(())
}

pub fn ccd(a: CcdArgs) -> Result<ExitCode> {
    anyhow::ensure!(
        a.tolerance > 0.0 && a.tolerance.is_finite(),
        "--tolerance must be positive and finite, got {}",
        kairos::num::Num(a.tolerance)
    );
    let opts = CcdOptions {
        time_tolerance: a.tolerance,
        root_finder: match a.root_finder {
            Finder::Hybrid => RootFinder::Hybrid,
            Finder::Bisection => RootFinder::Bisection,
        },
        ..Default::default()
    };
    let mut files = Vec::new();
    csv_files(&a.dir, &mut HashSet::new(), &mut files)?;
    anyhow::ensure!(
        !files.is_empty(),
        "{}: no CSV query files under this folder",
        show(&a.dir)
    );
    let mut tallies: BTreeMap<(String, QueryKind), Tally> = BTreeMap::new();
    for file in &files {
        let Some(kind) = QueryKind::of_path(file) else {
            eprintln!(
                "skipped {}: its path names neither vertex-face nor edge-edge",
                show(file)
            );
            continue;
        };
        let queries = read_queries(file, kind)?;
        let folder = file
            .parent()
            .and_then(|p| p.strip_prefix(&a.dir).ok())
            .map(|p| p.display().to_string())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| ".".into());
        let tally = tallies.entry((folder, kind)).or_default();
        let start = Instant::now();
        let mut answers: Vec<bool> = Vec::new();
        for _ in 0..a.repeat {
            answers = queries
                .iter()
                .map(|q| std::hint::black_box(q).solve(&opts).is_some())
                .collect();
        }
        tally.seconds += start.elapsed().as_secs_f64() / f64::from(a.repeat);
        for (q, hit) in queries.iter().zip(answers) {
            tally.queries += 1;
            tally.false_negatives += usize::from(q.truth && !hit);
            tally.false_positives += usize::from(!q.truth && hit);
        }
    }
    let per_query = |t: &Tally| t.seconds / t.queries.max(1) as f64;
    let mut totals: BTreeMap<QueryKind, Tally> = BTreeMap::new();
    for ((_, kind), t) in &tallies {
        let all = totals.entry(*kind).or_default();
        all.queries += t.queries;
        all.false_negatives += t.false_negatives;
        all.false_positives += t.false_positives;
        all.seconds += t.seconds;
    }
    if a.json {
        let row = |folder: Option<&str>, kind: &QueryKind, t: &Tally| {
            serde_json::json!({
                "folder": folder,
                "kind": kind.name(),
                "queries": t.queries,
                "false_negatives": t.false_negatives,
                "false_positives": t.false_positives,
                "seconds_per_query": per_query(t),
            })
        };
        let rows: Vec<serde_json::Value> = tallies
            .iter()
            .map(|((folder, kind), t)| row(Some(folder.as_str()), kind, t))
            .chain(totals.iter().map(|(kind, t)| row(None, kind, t)))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("| folder | kind | queries | false negatives | false positives | µs per query |");
    outln!("|---|---|---:|---:|---:|---:|");
    for ((folder, kind), t) in &tallies {
        outln!(
            "| {folder} | {} | {} | {} | {} | {:.2} |",
            kind.name(),
            t.queries,
            t.false_negatives,
            t.false_positives,
            1e6 * per_query(t)
        );
    }
    for (kind, t) in &totals {
        outln!(
            "| **all** | {} | {} | {} | {} | {:.2} |",
            kind.name(),
            t.queries,
            t.false_negatives,
            t.false_positives,
            1e6 * per_query(t)
        );
    }
    Ok(ExitCode::SUCCESS)
}
