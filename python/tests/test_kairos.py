"""The Python package: scenes from arrays, runs, states and events as numpy arrays, traces."""

import _thread
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import kairos

REPO = pathlib.Path(__file__).resolve().parents[2]


def kairos_bin():
    """The command-line program, for the tests that compare with it."""
    env = os.environ.get("KAIROS_BIN")
    if env:
        return env
    for profile in ("suite", "release"):
        p = REPO / "target" / profile / "kairos"
        if p.exists():
            return str(p)
    pytest.skip("no kairos binary: set KAIROS_BIN or build it (cargo build --profile suite)")


def test_a_relative_kairos_bin_is_taken_from_where_pytest_starts(tmp_path):
    # docs/python.md: KAIROS_BIN=target/release/kairos python -m pytest python/tests, from the
    # repository's root; the tests that run the program do so from temporary folders.
    pytest.importorskip("gsd.hoomd", reason="the test run here reads GSD files")
    # `bin/kairos` names the program from `start` and from no other folder.
    start = tmp_path / "start"
    (start / "bin").mkdir(parents=True)
    (start / "bin" / "kairos").symlink_to(pathlib.Path(kairos_bin()).resolve())
    relative = os.path.join("bin", "kairos")
    test = pathlib.Path(__file__).with_name("test_gsd_files.py")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{test}::test_balls_in_a_periodic_3d_box"],
        cwd=start,
        env={**os.environ, "KAIROS_BIN": relative},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


def two_balls(**kw):
    args = dict(
        positions=[[1.0, 1.0], [3.0, 1.0]],
        velocities=[[1.0, 0.0], [-1.0, 0.0]],
        radii=0.5,
        walls=[{"box": {"min": [0, 0], "max": [5, 5]}}],
        duration=3.0,
    )
    args.update(kw)
    return kairos.Scene(**args)


# --- scenes -----------------------------------------------------------------------------------


def test_a_scene_from_arrays_keeps_its_arrays():
    x = np.array([[1.0, 1.0, 1.0], [3.0, 1.0, 1.0], [1.0, 3.0, 1.0]])
    v = np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.5]])
    s = kairos.Scene(positions=x, velocities=v, radii=[0.5, 0.4, 0.3], box=[5, 5, 5], duration=2)
    assert (s.n, s.dim, len(s)) == (3, 3, 3)
    np.testing.assert_array_equal(s.positions, x)
    np.testing.assert_array_equal(s.velocities, v)
    np.testing.assert_array_equal(s.radii, [0.5, 0.4, 0.3])
    # Default masses: unit density.
    np.testing.assert_allclose(s.masses, 4 / 3 * np.pi * np.array([0.5, 0.4, 0.3]) ** 3)
    np.testing.assert_array_equal(s.box, [5, 5, 5])
    assert s.duration == 2 and s.restitution == 1 and not s.rigid
    assert s.positions.dtype == np.float64 and s.positions.shape == (3, 3)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(positions=[[1.0, 1.0], [1.5, 1.0]]), "body 0: overlaps body 1"),
        (dict(velocities=[[1.0, 0.0], [np.nan, 0.0]]), "body 1: `velocity` must be finite"),
        (dict(radii=[0.5, -1.0]), "body 1: `radius` must be positive"),
        (dict(masses=[1.0, 0.0]), "body 1: `mass`"),
        (dict(positions=[[1.0, 1.0], [7.0, 1.0]]), "body 1"),
        (dict(velocities=[[1.0, 0.0]]), "`velocities` must have shape (2, 2)"),
        (dict(radii=[0.5, 0.5, 0.5]), "`radii` must have shape (2,)"),
        (dict(walls=[{"box": {"min": [0, 0]}}]), "wall 0: missing field `max`"),
        (dict(walls=[{"wall": 1}]), "wall 0: unknown field `wall`"),
        (dict(walls=[{}]), "wall 0: no kind of wall given"),
        (dict(duration=-1.0), "duration"),
        (dict(restitution=1.5), "`restitution` must be in [0, 1]"),
        (dict(gravity=[0.0, -1.0, 0.0]), "`gravity` has 3 components"),
    ],
)
def test_bad_scenes_raise_a_scene_error_naming_the_item(change, message):
    with pytest.raises(kairos.SceneError) as e:
        two_balls(**change)
    assert message in str(e.value)
    assert isinstance(e.value, ValueError)


def test_toml_round_trip(tmp_path):
    s = kairos.Scene.gas(n=200, packing=0.2, dim=3, seed=3, duration=2)
    path = tmp_path / "gas.toml"
    s.to_toml(path)
    t = kairos.Scene.from_toml(path)
    np.testing.assert_array_equal(s.positions, t.positions)
    np.testing.assert_array_equal(s.velocities, t.velocities)
    np.testing.assert_array_equal(s.box, t.box)
    a, b = kairos.Simulation(s).run(), kairos.Simulation(t).run()
    np.testing.assert_array_equal(a, b)
    assert kairos.Scene.from_toml_str(path.read_text()).n == 200


def test_a_scene_file_error_names_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("dim = 2\n[simulation]\nduration = 1\n[[bodies]]\nposition = [0, 0]\n")
    with pytest.raises(kairos.SceneError, match="bad.toml: body 0"):
        kairos.Scene.from_toml(bad)
    with pytest.raises(kairos.SceneError, match="missing.toml"):
        kairos.Scene.from_toml(tmp_path / "missing.toml")


# --- runs -------------------------------------------------------------------------------------


def test_a_run_returns_its_collisions_and_the_state_at_its_end():
    sim = kairos.Simulation(two_balls())
    ev = sim.run()
    assert ev.dtype == kairos.EVENT_DTYPE
    # Head-on at t = 0.5, then each ball off its wall, and so on.
    assert ev[0]["time"] == 0.5 and ev[0]["kind"] == kairos.BODY_BODY
    assert (ev[0]["a"], ev[0]["b"]) == (0, 1)
    assert np.all(np.diff(ev["time"]) >= 0)
    assert sim.time == sim.end_time == 3.0
    assert sim.positions.shape == (2, 2) and sim.velocities.shape == (2, 2)
    np.testing.assert_allclose(sim.positions, [[2.0, 1.0], [4.0, 1.0]])
    c = sim.counts()
    assert c["body_body"] + c["body_wall"] == len(ev)


def test_the_same_events_whatever_the_broad_phase_and_however_the_run_is_cut():
    s = kairos.Scene.gas(n=500, packing=0.35, dim=3, seed=7, duration=2)
    whole = kairos.Simulation(s, broad_phase="calendar")
    ref = whole.run()
    assert len(ref) > 1000
    for bp in ("auto", "calendar-lists", "sap", "kaya-bvh", "grid"):
        sim = kairos.Simulation(s, broad_phase=bp)
        parts = [sim.run(until=0.37), sim.run(events=123), sim.run(until=1.5), sim.run()]
        np.testing.assert_array_equal(np.concatenate(parts), ref, err_msg=bp)
        np.testing.assert_array_equal(sim.positions, whole.positions, err_msg=bp)
        np.testing.assert_array_equal(sim.velocities, whole.velocities, err_msg=bp)


def test_the_state_between_events_and_in_the_box():
    s = kairos.Scene.gas(n=300, packing=0.3, dim=2, seed=1, duration=5)
    sim = kairos.Simulation(s)
    sim.run(until=2.5)
    assert sim.time == 2.5
    x = sim.positions
    assert np.all(x >= 0) and np.all(x <= s.box)
    assert abs(sim.energy_drift) < 1e-12
    ke = 0.5 * np.sum(s.masses[:, None] * sim.velocities**2)
    assert ke == pytest.approx(sim.kinetic_energy, rel=1e-12)
    # Momentum stays zero.
    assert np.abs((s.masses[:, None] * sim.velocities).sum(axis=0)).max() < 1e-10


def test_runs_only_go_forward_and_stay_within_the_duration():
    sim = kairos.Simulation(two_balls())
    sim.run(until=1.0)
    with pytest.raises(ValueError, match="before"):
        sim.run(until=0.5)
    with pytest.raises(ValueError, match="past the scene's duration"):
        sim.run(until=10.0)
    with pytest.raises(ValueError, match="broad_phase"):
        kairos.Simulation(two_balls(), broad_phase="quadtree")
    assert sim.run(record=False) is None


def test_the_equation_of_state_of_a_hard_sphere_gas():
    eta = 0.3
    s = kairos.Scene.gas(n=1000, packing=eta, dim=3, seed=2, duration=6)
    sim = kairos.Simulation(s)
    sim.observe(1.0)
    sim.run()
    obs = sim.observables()
    assert len(obs["time"]) == 6
    z = obs["compressibility"][1:].mean()  # the first window relaxes from the lattice
    cs = (1 + eta + eta**2 - eta**3) / (1 - eta) ** 3
    assert z == pytest.approx(cs, rel=0.04)
    assert np.all(obs["max_overlap"] < 1e-9)


def test_the_gil_is_released_while_a_simulation_runs():
    s = kairos.Scene.gas(n=4000, packing=0.4, dim=3, seed=1, duration=3)
    sim = kairos.Simulation(s)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = len(ticks)
    sim.run(record=False)
    during = len(ticks) - start
    done.set()
    t.join()
    assert during > 10, "the other thread did not run during the simulation"


def test_ctrl_c_stops_a_long_run_quickly_and_leaves_it_consistent():
    s = kairos.Scene.gas(n=20000, packing=0.45, dim=3, seed=1, duration=1000)
    sim = kairos.Simulation(s)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        sim.run(record=False)
    assert time.monotonic() - t0 < 0.3 + 1.0
    stopped = sim.time
    assert 0 < stopped < 1000
    # Going on gives the uninterrupted run's events.
    rest = sim.run(events=500)
    ref = kairos.Simulation(s)
    ref.run(until=stopped, record=False)
    np.testing.assert_array_equal(rest, ref.run(events=500))


# --- traces -----------------------------------------------------------------------------------


def test_a_trace_of_the_command_line_holds_the_packages_events(tmp_path):
    s = kairos.Scene.gas(n=200, packing=0.3, dim=3, seed=5, duration=1)
    scene = tmp_path / "gas.toml"
    s.to_toml(scene)
    trace = tmp_path / "gas.ktrace"
    subprocess.run(
        [kairos_bin(), "run", str(scene), "-o", str(trace), "--broad-phase", "calendar", "-q"],
        check=True,
    )
    tr = kairos.read_trace(trace)
    assert (tr.dim, tr.version, tr.rigid) == (3, 2, False)
    assert tr.records.dtype == kairos.RECORD_DTYPE and tr.bodies.dtype == kairos.BODY_DTYPE
    np.testing.assert_array_equal(tr.bodies["pos"], s.positions)
    ev = kairos.Simulation(s).run()
    np.testing.assert_array_equal(tr.records["time"], ev["time"])
    np.testing.assert_array_equal(tr.records["a"], ev["a"])
    np.testing.assert_array_equal(tr.records["b"], ev["b"])
    np.testing.assert_array_equal(tr.records["kind"], ev["kind"])
    assert tr.end_time == 1.0 and len(tr) == len(ev)
    # The same bytes numpy reads straight from the file (docs/trace-format.md).
    raw = trace.read_bytes()
    header_len = int(np.frombuffer(raw, "<u8", 1, 16)[0])
    count = int(np.frombuffer(raw, "<u8", 1, len(raw) - 24)[0])
    direct = np.frombuffer(raw, kairos.RECORD_DTYPE, count, header_len)
    np.testing.assert_array_equal(direct, tr.records)


def test_a_damaged_trace_raises_a_trace_error(tmp_path):
    s = kairos.Scene.gas(n=50, packing=0.2, dim=2, seed=1, duration=1)
    scene, trace = tmp_path / "g.toml", tmp_path / "g.ktrace"
    s.to_toml(scene)
    subprocess.run([kairos_bin(), "run", str(scene), "-o", str(trace), "-q"], check=True)
    raw = bytearray(trace.read_bytes())
    cut = tmp_path / "cut.ktrace"
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(kairos.TraceError, match="cut.ktrace"):
        kairos.read_trace(cut)
    raw[len(raw) // 2] ^= 0xFF
    flipped = tmp_path / "flipped.ktrace"
    flipped.write_bytes(bytes(raw))
    with pytest.raises(kairos.TraceError, match="flipped.ktrace"):
        kairos.read_trace(flipped)
    with pytest.raises(kairos.TraceError):
        kairos.read_trace(tmp_path / "none.ktrace")


def test_rigid_scenes_from_files_run(tmp_path):
    scene = tmp_path / "polygons.toml"
    subprocess.run(
        [kairos_bin(), "generate", "polygons", "--n", "20", "--duration", "2", "-o", str(scene)],
        check=True,
    )
    s = kairos.Scene.from_toml(scene)
    assert s.rigid and s.dim == 2
    sim = kairos.Simulation(s)
    ev = sim.run()
    assert len(ev) > 0 and sim.positions.shape == (20, 2)
    assert abs(sim.energy_drift) < 1e-9


def test_rigid_bodies_from_arrays():
    n = 12
    rng = np.random.default_rng(4)
    x = np.array([[2.0 + 3 * (i % 4), 2.0 + 3 * (i // 4)] for i in range(n)])
    theta = rng.uniform(0, np.pi, n)
    omega = rng.normal(size=n)
    shapes = [{"shape": "box", "half_extents": [0.5, 0.3]}] * (n - 1) + [
        {"shape": "polygon", "vertices": [[0, 0], [1, 0], [0, 1]]}
    ]
    s = kairos.Scene(
        positions=x, velocities=rng.normal(size=(n, 2)), shapes=shapes, orientations=theta,
        angular_velocities=omega, walls=[{"box": {"min": [0, 0], "max": [13, 10]}}], duration=3,
    )
    assert s.rigid and s.n == n
    sim = kairos.Simulation(s)
    assert sim.orientations.shape == (n,) and sim.angular_velocities.shape == (n,)
    np.testing.assert_allclose(sim.orientations[:-1], theta[:-1], atol=1e-15)
    np.testing.assert_allclose(sim.angular_velocities, omega, atol=1e-15)
    ev = sim.run()
    assert len(ev) > 0 and abs(sim.energy_drift) < 1e-9
    assert not np.allclose(sim.orientations, theta)
    # The same scene through its TOML text: the same events.
    again = kairos.Simulation(kairos.Scene.from_toml_str(s.to_toml_str()))
    np.testing.assert_array_equal(again.run(), ev)
    # A scene of balls has no orientations.
    assert kairos.Simulation(two_balls()).orientations is None


def test_3d_rigid_bodies_from_arrays_and_their_errors():
    cube = {"shape": "box", "half_extents": [0.5, 0.5, 0.5]}
    q = [[1, 0, 0, 0], [np.cos(0.3), 0, np.sin(0.3), 0]]
    s = kairos.Scene(
        positions=[[1, 1, 1], [4, 1, 1]], velocities=[[1, 0, 0], [-1, 0, 0]],
        shapes=[cube, {"shape": "ball", "radius": 0.5}], orientations=q,
        angular_velocities=[[0, 0, 1], [0, 0, 0]], masses=[2.0, 1.0],
        walls=[{"box": {"min": [-1, -1, -1], "max": [6, 4, 4]}}], duration=2,
    )
    np.testing.assert_array_equal(s.masses, [2.0, 1.0])
    sim = kairos.Simulation(s)
    assert sim.orientations.shape == (2, 4) and sim.angular_velocities.shape == (2, 3)
    sim.run()
    assert abs(np.linalg.norm(sim.orientations, axis=1) - 1).max() < 1e-12
    with pytest.raises(kairos.SceneError, match="body 1: half_extents"):
        kairos.Scene(positions=[[0, 0], [3, 0]], shapes=[{"shape": "box", "half_extents": [1, 1]},
                                                        {"shape": "box", "half_extents": [1, -1]}],
                     walls=[{"box": {"min": [-5, -5], "max": [5, 5]}}])
    with pytest.raises(kairos.SceneError, match="body 0: overlaps body 1"):
        kairos.Scene(positions=[[0, 0], [0.5, 0]], shapes={"shape": "box", "half_extents": [1, 1]},
                     walls=[{"box": {"min": [-5, -5], "max": [5, 5]}}])
    with pytest.raises(kairos.SceneError, match=r"`orientations` must have shape \(2, 4\)"):
        kairos.Scene(positions=[[1, 1, 1], [4, 1, 1]], shapes=cube, orientations=[0.1, 0.2])
    with pytest.raises(kairos.SceneError, match="not both"):
        kairos.Scene(positions=[[1, 1]], radii=0.5, shapes=cube)


def test_reading_a_simulation_another_thread_runs_waits_without_deadlock():
    s = kairos.Scene.gas(n=4000, packing=0.4, dim=3, seed=1, duration=2)
    sim = kairos.Simulation(s)
    t = threading.Thread(target=lambda: sim.run(record=False))
    t.start()
    time.sleep(0.05)
    # Waits for the run (which releases the GIL and takes it back between slices).
    assert sim.time in (0.0, 2.0)
    t.join(timeout=60)
    assert not t.is_alive()
    assert sim.time == 2.0 and sim.positions.shape == (4000, 3)


def test_a_reader_waits_for_one_run_of_a_loop_of_runs_not_for_the_loop():
    s = kairos.Scene.gas(n=300, packing=0.3, dim=3, seed=4, duration=10)
    sim = kairos.Simulation(s)
    runs, total = [0], 400
    started = threading.Event()

    def loop():
        for k in range(total):
            sim.run(until=(k + 1) * s.duration / total, record=False)
            runs[0] = k + 1
            if k == 4:
                started.set()

    t = threading.Thread(target=loop)
    t.start()
    started.wait()
    waited = []
    for _ in range(5):
        # Each read waits for the run under way at most.
        before = runs[0]
        assert 0 <= sim.time <= s.duration
        assert sim.positions.shape == (300, 3)
        waited.append(runs[0] - before)
    t.join(timeout=60)
    assert not t.is_alive()
    assert max(waited) <= 2, f"runs completed while one read waited: {waited} (of {total})"
    assert sim.time == s.duration


def test_a_signal_handler_reading_the_running_simulation_raises_not_hangs():
    import signal

    s = kairos.Scene.gas(n=20000, packing=0.45, dim=3, seed=1, duration=1000)
    sim = kairos.Simulation(s)
    previous = signal.signal(signal.SIGALRM, lambda *_: sim.time)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(RuntimeError, match="being run by this thread"):
            sim.run(record=False)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert 0 < sim.time < 1000


def test_a_trace_written_from_python_is_the_command_lines(tmp_path):
    s = kairos.Scene.gas(n=300, packing=0.3, dim=3, seed=8, duration=1)
    scene = tmp_path / "g.toml"
    s.to_toml(scene)
    cli_trace, summary = tmp_path / "cli.ktrace", tmp_path / "s.json"
    subprocess.run(
        [kairos_bin(), "run", str(scene), "-o", str(cli_trace), "-q", "--summary-json", str(summary)],
        check=True,
    )
    import json

    expected = json.loads(summary.read_text())["trace_hash"]
    path = tmp_path / "py.ktrace"
    sim = kairos.Simulation(s, trace=path)
    sim.run(until=0.4)
    assert not path.exists()  # written only when finished
    sim.run()
    assert path.exists() and sim.trace_hash == expected
    np.testing.assert_array_equal(kairos.read_trace(path).records, kairos.read_trace(cli_trace).records)
    # Stopped early: finished by hand at the time reached.
    early = tmp_path / "early.ktrace"
    e = kairos.Simulation(s, trace=early)
    e.run(until=0.5)
    e.finish_trace()
    tr = kairos.read_trace(early)
    assert tr.end_time == 0.5 and 0 < len(tr) < len(kairos.read_trace(path))
    with pytest.raises(OSError, match="cannot create the trace"):
        kairos.Simulation(s, trace=tmp_path / "no" / "such" / "t.ktrace")
