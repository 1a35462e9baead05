//! Nothing a user gives Kairos is lost: outputs never replace inputs or special files, resumed
//! traces replay right, damaged traces are refused by every command.

use crate::common;

use std::path::Path;

use common::{kairos, listing, ok, tempdir, text};

fn fails_with(o: &std::process::Output, needle: &str) {
    assert_eq!(
        o.status.code(),
        Some(2),
        "stdout: {}\nstderr: {}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let err = text(&o.stderr);
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}

fn small_scene(dir: &Path) {
    ok(&kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "40",
            "--seed",
            "3",
            "--duration",
            "1",
            "-o",
            "s.toml",
        ],
        dir,
    ));
}

#[test]
fn an_output_equal_to_an_input_is_refused_before_any_work() {
    let dir = tempdir("same-file");
    small_scene(&dir);
    ok(&kairos(&["run", "s.toml", "-q", "-o", "t.ktrace"], &dir));
    ok(&kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "u.ktrace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.5",
        ],
        &dir,
    ));
    let scene = std::fs::read(dir.join("s.toml")).unwrap();
    let trace = std::fs::read(dir.join("t.ktrace")).unwrap();
    let ck = std::fs::read(dir.join("c.ck")).unwrap();
    let before = listing(&dir);
    let cases: &[&[&str]] = &[
        &["run", "s.toml", "-q", "-o", "s.toml"],
        &["run", "s.toml", "-q", "-o", "./s.toml"],
        &[
            "run",
            "s.toml",
            "-q",
            "--checkpoint",
            "s.toml",
            "--every",
            "1",
        ],
        &["run", "s.toml", "-q", "--summary-json", "s.toml"],
        &[
            "run",
            "s.toml",
            "-q",
            "--observe",
            "0.1",
            "--observables",
            "s.toml",
        ],
        &["export", "t.ktrace", "--events", "t.ktrace"],
        &["export", "t.ktrace", "--final", "t.ktrace"],
        &["frames", "t.ktrace", "--every", "0.1", "-o", "t.ktrace"],
        &["view", "t.ktrace", "-o", "t.ktrace"],
        &["snapshot", "t.ktrace", "--time", "0.5", "-o", "t.ktrace"],
        &["run", "--resume", "c.ck", "-q", "-o", "c.ck"],
    ];
    for args in cases {
        let o = kairos(args, &dir);
        fails_with(&o, "the same file as the input");
    }
    // Two outputs of one command.
    let o = kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "x",
            "--checkpoint",
            "x",
            "--every",
            "1",
        ],
        &dir,
    );
    fails_with(&o, "named by both --output and --checkpoint");
    let o = kairos(
        &[
            "export", "t.ktrace", "--events", "e.csv", "--final", "e.csv",
        ],
        &dir,
    );
    fails_with(&o, "named by both");
    // A hard link is the same file.
    std::fs::hard_link(dir.join("s.toml"), dir.join("hard.toml")).unwrap();
    let o = kairos(&["run", "s.toml", "-q", "-o", "hard.toml"], &dir);
    fails_with(&o, "the same file as the input");
    std::fs::remove_file(dir.join("hard.toml")).unwrap();
    assert_eq!(std::fs::read(dir.join("s.toml")).unwrap(), scene);
    assert_eq!(std::fs::read(dir.join("t.ktrace")).unwrap(), trace);
    assert_eq!(std::fs::read(dir.join("c.ck")).unwrap(), ck);
    assert_eq!(listing(&dir), before, "no output appeared");
    // A rolling checkpoint: resuming from c.ck and checkpointing to it again is allowed.
    ok(&kairos(
        &[
            "run",
            "--resume",
            "c.ck",
            "-q",
            "-o",
            "r.ktrace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.2",
        ],
        &dir,
    ));
    assert!(kairos::checkpoint::read(&dir.join("c.ck")).is_ok());
}

#[test]
fn every_output_is_checked_before_the_run() {
    let dir = tempdir("early");
    small_scene(&dir);
    let o = kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "t.ktrace",
            "--summary-json",
            "nodir/x.json",
        ],
        &dir,
    );
    fails_with(&o, "nodir/x.json: cannot write the output (--summary-json)");
    assert!(
        !dir.join("t.ktrace").exists(),
        "the trace was written first"
    );
    std::fs::create_dir(dir.join("adir")).unwrap();
    let o = kairos(&["run", "s.toml", "-q", "-o", "adir"], &dir);
    fails_with(&o, "is a directory");
    let o = kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "--checkpoint",
            "nodir/c.ck",
            "--every",
            "1",
        ],
        &dir,
    );
    fails_with(&o, "directory nodir does not exist");
    assert_eq!(listing(&dir), ["adir", "s.toml"]);
}

#[cfg(unix)]
#[test]
fn devices_fifos_and_links_are_written_through_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempdir("special");
    small_scene(&dir);
    // /dev/null as a sink, for several outputs at once.
    ok(&kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "/dev/null",
            "--summary-json",
            "/dev/null",
        ],
        &dir,
    ));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // A FIFO: the trace streams through it and the FIFO stays.
    let fifo = dir.join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    ok(&kairos(&["run", "s.toml", "-q", "-o", "pipe"], &dir));
    let streamed = reader.join().unwrap();
    assert!(streamed.starts_with(b"KAIROSTR") && streamed.len() > 1000);
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    // A symbolic link is followed and kept.
    std::os::unix::fs::symlink("target.ktrace", dir.join("link.ktrace")).unwrap();
    ok(&kairos(&["run", "s.toml", "-q", "-o", "link.ktrace"], &dir));
    assert!(std::fs::symlink_metadata(dir.join("link.ktrace"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(dir.join("target.ktrace")).unwrap(), streamed);
    // A link to the input is the input.
    std::os::unix::fs::symlink("s.toml", dir.join("scene-link.toml")).unwrap();
    let o = kairos(&["run", "s.toml", "-q", "-o", "scene-link.toml"], &dir);
    fails_with(&o, "the same file as the input");
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// A resumed run's trace is self-contained: its replay gives the uninterrupted run's states
/// bit for bit (periodic box, past a rebase of the time origin), and times before its start
/// are refused.
#[test]
fn resumed_traces_replay_to_the_uninterrupted_states() {
    let dir = tempdir("resume-replay");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "64",
            "--packing",
            "0.3",
            "--duration",
            "90",
            "-o",
            "sp.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "sp.toml",
            "-q",
            "--checkpoint",
            "sp.ck",
            "--every",
            "70",
            "-o",
            "f.ktrace",
        ],
        &dir,
    ));
    ok(&kairos(
        &["run", "--resume", "sp.ck", "-q", "-o", "r.ktrace"],
        &dir,
    ));
    for t in ["f", "r"] {
        ok(&kairos(
            &[
                "export",
                &format!("{t}.ktrace"),
                "--final",
                &format!("{t}.csv"),
            ],
            &dir,
        ));
        ok(&kairos(
            &[
                "frames",
                &format!("{t}.ktrace"),
                "--every",
                "5",
                "-o",
                &format!("{t}.xyz"),
            ],
            &dir,
        ));
    }
    assert_eq!(lines(&dir.join("f.csv")), lines(&dir.join("r.csv")));
    // Bodies stay in the 10-wide box... unwrapped, they are where the full run puts them.
    let (f, r) = (lines(&dir.join("f.xyz")), lines(&dir.join("r.xyz")));
    assert_eq!(f.len(), 19 * 66, "frames 0, 5, ..., 90");
    assert_eq!(r.len(), 4 * 66, "frames 75, 80, 85, 90");
    assert_eq!(&f[f.len() - r.len()..], &r[..]);
    assert!(r[1].contains("Time=75.0"), "{}", r[1]);
    let ck = kairos::checkpoint::read(&dir.join("sp.ck")).unwrap();
    let t = format!("{}", ck.time() - 1.0);
    let o = kairos(&["snapshot", "r.ktrace", "--time", &t, "-o", "x.svg"], &dir);
    fails_with(&o, "before its start");
    let o = kairos(
        &["snapshot", "r.ktrace", "--time", "89", "-o", "r.svg"],
        &dir,
    );
    ok(&o);
    ok(&kairos(
        &["snapshot", "f.ktrace", "--time", "89", "-o", "f.svg"],
        &dir,
    ));
    assert_eq!(
        std::fs::read(dir.join("f.svg")).unwrap(),
        std::fs::read(dir.join("r.svg")).unwrap()
    );
    ok(&kairos(&["view", "r.ktrace", "-o", "r.html"], &dir));
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(
        page.contains(&format!("\"startTime\":{}", ck.time())),
        "start time in the page"
    );
}

/// `kairos diff` validates both traces whole before comparing: damage is exit 2, never
/// "identical" or "different".
#[test]
fn diff_refuses_damaged_traces() {
    let dir = tempdir("diff-damage");
    small_scene(&dir);
    ok(&kairos(&["run", "s.toml", "-q", "-o", "a.ktrace"], &dir));
    ok(&kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "b.ktrace",
            "--broad-phase",
            "all-pairs",
        ],
        &dir,
    ));
    ok(&kairos(&["diff", "a.ktrace", "b.ktrace"], &dir));
    let bytes = std::fs::read(dir.join("b.ktrace")).unwrap();
    let header_len = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    for (what, at) in [
        ("a record byte", header_len + 3),
        ("the scene in the header", 60),
        ("a body state", header_len - 20),
        ("the end time", bytes.len() - 2),
    ] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        std::fs::write(dir.join("bad.ktrace"), &bad).unwrap();
        for args in [["a.ktrace", "bad.ktrace"], ["bad.ktrace", "a.ktrace"]] {
            let o = kairos(&["diff", args[0], args[1]], &dir);
            assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o.stdout));
            assert!(text(&o.stderr).contains("bad.ktrace"), "{what}");
        }
        for cmd in [
            vec!["export", "bad.ktrace", "--final", "f.csv"],
            vec!["frames", "bad.ktrace", "--every", "0.5", "-o", "f.xyz"],
            vec!["view", "bad.ktrace", "-o", "f.html"],
            vec!["snapshot", "bad.ktrace", "--time", "0.5", "-o", "f.svg"],
        ] {
            let o = kairos(&cmd, &dir);
            assert_eq!(o.status.code(), Some(2), "{what}: {cmd:?}");
        }
        assert!(!dir.join("f.csv").exists() && !dir.join("f.xyz").exists());
        assert!(!dir.join("f.html").exists() && !dir.join("f.svg").exists());
    }
}

/// Runaway work is refused up front (steps, observable rows) or stopped at a documented,
/// adjustable bound (events), with a message that says how to raise it.
#[test]
fn runaway_work_is_bounded() {
    let dir = tempdir("runaway");
    small_scene(&dir);
    let o = kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "--stepper",
            "discrete",
            "--dt",
            "1e-300",
        ],
        &dir,
    );
    fails_with(&o, "--max-steps");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "16",
            "--packing",
            "0.3",
            "-o",
            "g.toml",
        ],
        &dir,
    ));
    let o = kairos(&["run", "g.toml", "-q", "--observe", "1e-300"], &dir);
    fails_with(&o, "sample less often");
    // A velocity of 1e100 in a 10-wide box.
    std::fs::write(
        dir.join("fast.toml"),
        "dim = 2\n[simulation]\nduration = 5.0\n[[walls]]\nbox = { min = [0.0, 0.0], max = [10.0, 10.0] }\n\
         [[bodies]]\nposition = [5.0, 5.0]\nvelocity = [1e100, 3e99]\nradius = 0.5\n",
    )
    .unwrap();
    let o = kairos(
        &[
            "run",
            "fast.toml",
            "-q",
            "-o",
            "fast.ktrace",
            "--max-events",
            "10000",
        ],
        &dir,
    );
    fails_with(
        &o,
        "more than --max-events 10000 events (raise it with --max-events N",
    );
    assert!(!dir.join("fast.ktrace").exists());
    let o = kairos(
        &[
            "run",
            "fast.toml",
            "-q",
            "--no-trace",
            "--max-events",
            "1000",
            "--checkpoint",
            "fast.ck",
            "--every",
            "1",
        ],
        &dir,
    );
    fails_with(&o, "continue with `kairos run --resume fast.ck`");
    let ck = kairos::checkpoint::read(&dir.join("fast.ck")).unwrap();
    assert_eq!(ck.state.counts.total(), 1001);
    let o = kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "--stepper",
            "discrete",
            "--dt",
            "0.001",
            "--max-events",
            "3",
        ],
        &dir,
    );
    fails_with(&o, "--max-events 3");
    assert_eq!(listing(&dir), ["fast.ck", "fast.toml", "g.toml", "s.toml"]);
}

fn wait_for_partial(dir: &Path, min_bytes: u64) {
    for _ in 0..2000 {
        let grown = std::fs::read_dir(dir).unwrap().any(|e| {
            let e = e.unwrap();
            e.file_name().to_string_lossy().contains(".partial-")
                && e.metadata().map(|m| m.len() >= min_bytes).unwrap_or(false)
        });
        if grown {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the run never started writing");
}

fn signal(child: &std::process::Child, sig: &str) {
    assert!(std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

/// SIGINT or SIGTERM during a run: no partial file is left, the exit code is 130 or 143, and
/// with --checkpoint a last checkpoint is written at the interruption, from which the run
/// resumes to the uninterrupted run's event log.
#[cfg(unix)]
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn an_interrupted_run_cleans_up_and_resumes_to_the_same_events() {
    use kairos::trace::TraceReader;
    let dir = tempdir("interrupt");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "3",
            "--n",
            "4000",
            "--packing",
            "0.3",
            "--duration",
            "30",
            "-o",
            "g.toml",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "g.toml", "-q", "-o", "full.ktrace"], &dir));
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::copy(dir.join("g.toml"), work.join("g.toml")).unwrap();
    let spawn = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(args)
            .current_dir(&work)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // SIGTERM without a checkpoint: nothing is kept.
    let child = spawn(&["run", "g.toml", "-q", "-o", "cut.ktrace"]);
    wait_for_partial(&work, 1 << 20);
    signal(&child, "-TERM");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("interrupted (SIGTERM): stopped at t = "));
    assert_eq!(listing(&work), ["g.toml"], "partial files left");
    // SIGINT with a checkpoint.
    let child = spawn(&[
        "run",
        "g.toml",
        "-q",
        "-o",
        "cut.ktrace",
        "--checkpoint",
        "c.ck",
        "--every",
        "1000",
    ]);
    wait_for_partial(&work, 1 << 20);
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("continue with `kairos run --resume c.ck`"));
    assert_eq!(listing(&work), ["c.ck", "g.toml"], "partial files left");
    ok(&kairos(
        &["run", "--resume", "c.ck", "-q", "-o", "rest.ktrace"],
        &work,
    ));
    let (_, full) = TraceReader::open(&dir.join("full.ktrace"))
        .unwrap()
        .read_all()
        .unwrap();
    let (_, rest) = TraceReader::open(&work.join("rest.ktrace"))
        .unwrap()
        .read_all()
        .unwrap();
    let done = kairos::checkpoint::read(&work.join("c.ck"))
        .unwrap()
        .state
        .counts
        .total() as usize;
    assert!(done > 1000 && !rest.is_empty(), "{done} / {}", rest.len());
    assert_eq!(full.len(), done + rest.len());
    assert!(full[done..].iter().zip(&rest).all(|(x, y)| x.same_event(y)));
    for (t, d) in [("full", &dir), ("rest", &work)] {
        ok(&kairos(
            &["export", &format!("{t}.ktrace"), "--final", "final.csv"],
            d,
        ));
    }
    assert_eq!(
        std::fs::read(dir.join("final.csv")).unwrap(),
        std::fs::read(work.join("final.csv")).unwrap()
    );
}

/// Random damage to the files the command line reads, through the binary: a damaged trace or
/// checkpoint is always exit 2 with a message naming the file; a damaged scene is exit 2 or a
/// valid run, never a panic (exit 101).
#[test]
fn damaged_inputs_exit_2_through_the_command_line() {
    let dir = tempdir("cli-fuzz");
    small_scene(&dir);
    ok(&kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "t.ktrace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.5",
        ],
        &dir,
    ));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n.max(1)
    };
    for (file, args) in [
        ("t.ktrace", vec!["export", "bad", "--final", "out.csv"]),
        ("t.ktrace", vec!["diff", "bad", "t.ktrace"]),
        (
            "c.ck",
            vec!["run", "--resume", "bad", "-q", "-o", "out.ktrace"],
        ),
        ("s.toml", vec!["run", "bad", "-q", "-o", "out.ktrace"]),
    ] {
        let good = std::fs::read(dir.join(file)).unwrap();
        for case in 0..24 {
            let mut bad = good.clone();
            match case % 3 {
                0 => {
                    let k = rand(bad.len());
                    bad[k] ^= 1 << rand(8);
                }
                1 => bad.truncate(rand(bad.len())),
                _ => {
                    let k = rand(bad.len());
                    let b = rand(256) as u8;
                    bad.insert(k, b);
                }
            }
            if bad == good {
                continue;
            }
            std::fs::write(dir.join("bad"), &bad).unwrap();
            let o = kairos(&args, &dir);
            let code = o.status.code();
            if file == "s.toml" {
                assert!(
                    matches!(code, Some(0) | Some(2)),
                    "{args:?} case {case}: {code:?}"
                );
            } else {
                assert_eq!(code, Some(2), "{file} case {case} accepted");
                assert!(text(&o.stderr).contains("bad:"), "{}", text(&o.stderr));
            }
            assert!(!text(&o.stderr).contains("panicked"));
            let _ = std::fs::remove_file(dir.join("out.csv"));
            let _ = std::fs::remove_file(dir.join("out.ktrace"));
        }
    }
}
