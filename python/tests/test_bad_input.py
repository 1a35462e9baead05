"""Bad input gets a Python exception naming the argument and the problem: never a crash, a
hang, a silent coercion or a file left behind."""

import glob
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kairos

SQUARE = {"shape": "box", "half_extents": [1, 1], "position": [0, 0]}
DISC = {"shape": "ball", "radius": 0.5, "position": [3, 0]}


def test_a_list_that_contains_itself_is_refused_not_a_stack_overflow():
    loop = []
    loop.append(loop)
    tag = np.empty(1, dtype=object)
    tag[0] = loop
    with pytest.raises(ValueError, match="nested more than"):
        kairos.distance({**SQUARE, "tag": tag}, DISC)


def test_observing_too_many_windows_is_refused():
    sim = kairos.Simulation(kairos.Scene.gas(50, 0.3, duration=3))
    with pytest.raises(ValueError, match="windows"):
        sim.observe(1e-300)
    for v in (0, -5, math.nan, math.inf):
        with pytest.raises(ValueError, match="volume"):
            sim.observe(0.1, volume=v)


def test_until_must_be_finite():
    sim = kairos.Simulation(kairos.Scene.gas(50, 0.3, duration=3))
    for u in (math.nan, math.inf):
        with pytest.raises(ValueError, match="finite"):
            sim.run(until=u)


def test_batches_of_poses_are_checked_like_the_dicts():
    with pytest.raises(ValueError, match="magnitude"):
        kairos.distance(SQUARE, DISC, pos_b=[[1e200, 1e200]])
    with pytest.raises(TypeError, match="real numbers"):
        kairos.distance(SQUARE, DISC, pos_b=np.zeros((2, 2)) + 0j)
    r = kairos.distance(SQUARE, DISC, pos_b=np.zeros((0, 2)))
    assert r["distance"].shape == (0,) and r["normal"].shape == (0, 2)
    r = kairos.time_of_impact(SQUARE, DISC, 1.0, pos_a=np.zeros((0, 2)), rot_a=np.zeros(0))
    assert r["time"].shape == (0,)


def test_whole_numbers_are_not_truncated():
    for bad in (dict(n=10.7), dict(seed=-1), dict(dim=True)):
        args = dict(n=100, packing=0.3) | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            kairos.Scene.gas(**args)
    sim = kairos.Simulation(kairos.Scene.gas(50, 0.3, duration=3))
    with pytest.raises(ValueError, match="events"):
        sim.run(events=1.7)


def test_a_gsd_file_takes_frames_of_its_own_kind_of_scene(tmp_path):
    two, three = kairos.Scene.gas(100, 0.2, dim=2), kairos.Scene.gas(100, 0.2, dim=3)
    w = kairos.GsdWriter(tmp_path / "x.gsd", two)
    with pytest.raises(ValueError, match="3D balls, the file's scene of 2D balls"):
        w.append(kairos.Simulation(three))
    w.close()


def test_two_writers_of_one_path_do_not_share_a_temporary_file(tmp_path):
    scene = kairos.Scene.gas(100, 0.2, dim=2)
    a = kairos.GsdWriter(tmp_path / "s.gsd", scene)
    b = kairos.GsdWriter(tmp_path / "s.gsd", scene)
    a.append(kairos.Simulation(scene))
    for _ in range(2):
        b.append(kairos.Simulation(scene))
    a.close()
    b.close()
    assert not glob.glob(str(tmp_path / ".*partial*"))
    with pytest.raises(OSError, match="empty"):
        kairos.Simulation(scene, trace="")


def test_a_sweep_refuses_its_grid_and_output_before_running(tmp_path):
    fn = lambda packing: kairos.Scene.gas(50, packing, dim=2, duration=0.1)  # noqa: E731
    with pytest.raises(ValueError, match="grid 'packing'"):
        kairos.sweep(fn, grid={"packing": [(1, 2)]}, progress=False)
    with pytest.raises(ValueError, match="is a directory"):
        kairos.sweep(fn, grid={"packing": [0.1]}, output=tmp_path, progress=False)
    with pytest.raises(ValueError, match="threads"):
        kairos.sweep(fn, grid={"packing": [0.1]}, threads=-1, progress=False)
    out = tmp_path / "o.JSON"
    kairos.sweep(fn, grid={"packing": [0.1]}, output=out, progress=False)
    assert out.read_text().lstrip().startswith("[")
    assert os.listdir(tmp_path) == ["o.JSON"]


def test_meshes_are_refused_with_their_problem():
    tri = {"vertices": np.eye(3), "triangles": [[0, 1, 2]]}
    with pytest.raises(ValueError, match="n > 0"):
        kairos.mesh_contact({"vertices": np.zeros((0, 3)), "triangles": [[0, 1, 2]]}, tri, 1.0)
    with pytest.raises(ValueError, match="no `triangles`"):
        kairos.mesh_contact({"vertices": np.eye(3)}, tri, 1.0)
    with pytest.raises(TypeError, match="whole vertex indices"):
        kairos.mesh_contact({"vertices": np.eye(3), "triangles": [[0.7, 1, 2]]}, tri, 1.0)


def test_feature_queries_of_any_size_give_the_unit_answers():
    start = np.array([[0.2, 0.2, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0]])
    end = start.copy()
    end[0, 2] = -1
    for k in (1.0, 1e-300, 1e100, 1e308):
        assert kairos.edge_edge(start * k, end * k) == math.inf
        assert 0.5 - 1e-8 <= kairos.vertex_face(start * k, end * k) <= 0.5


def test_a_rigid_body_larger_than_its_box_room_is_refused():
    with pytest.raises(kairos.SceneError, match="does not fit in the box"):
        kairos.Scene(
            positions=[[5.0, 5]],
            velocities=[[0.0, 1]],
            shapes={"shape": "box", "half_extents": [1e12, 0.3]},
            walls=[{"box": {"min": [0, 0], "max": [10, 10]}}],
            duration=10,
        )


def test_a_mesh_query_is_refused_past_what_it_resolves():
    tetra = {
        "vertices": np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]),
        "triangles": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    }
    other = dict(tetra, vertices=tetra["vertices"] + [3.0, 0, 0])
    with pytest.raises(ValueError, match="would turn"):
        kairos.mesh_contact(dict(tetra, angular_velocity=[0, 0, 1e300]), other, 1.0)
    with pytest.raises(ValueError, match="magnitude"):
        kairos.mesh_contact(dict(tetra, velocity=[-1e300, 0, 0]), other, 1.0)
    c = kairos.mesh_contact(tetra, dict(other, velocity=[-1.0, 0, 0]), 5.0)
    assert c is not None and math.isfinite(c["point"][0])


def test_walls_that_are_not_a_list_of_dicts_say_what_a_wall_is():
    balls = dict(positions=[[1.0, 1.0]], radii=0.5)
    for bad in ("box", {"box": {"min": [0, 0], "max": [5, 5]}}, 3):
        with pytest.raises(kairos.SceneError, match=r"`walls` must be a list of walls") as e:
            kairos.Scene(**balls, walls=bad)
        assert "{'box': {'min': [...], 'max': [...]}}" in str(e.value)
        assert "dictionary update sequence" not in str(e.value)
    with pytest.raises(kairos.SceneError, match="wall 1 must be a dict .* got 'box'"):
        kairos.Scene(**balls, walls=[{"box": {"min": [0, 0], "max": [5, 5]}}, "box"])
    square = {"shape": "box", "half_extents": [0.5, 0.5]}
    with pytest.raises(kairos.SceneError, match=r"`walls` must be a list of walls"):
        kairos.Scene(positions=[[1.0, 1.0]], shapes=square, walls="box")


def test_a_sweep_says_what_its_scene_function_returned():
    with pytest.raises(TypeError, match=r"must return a kairos.Scene .* at packing=0.1 it returned int 5"):
        kairos.sweep(lambda packing: 5, grid={"packing": [0.1, 0.2]}, progress=False)
    with pytest.raises(TypeError, match="scene 1 of the list is str 'gas.toml', not a kairos.Scene"):
        kairos.sweep([kairos.Scene.gas(20, 0.2, duration=0.1), "gas.toml"], progress=False)


@pytest.mark.skipif(
    not os.path.exists("/proc/self/status"), reason="reads the address space's size in /proc"
)
def test_a_gas_beyond_the_memory_limit_raises_memory_error():
    # In a process of its own: an allocation that fails in Rust ends the process.
    code = textwrap.dedent(
        """
        import resource
        import kairos

        def address_space():
            for line in open("/proc/self/status"):
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024

        limit = address_space() + (1 << 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        assert kairos.Scene.gas(1000, 0.3).n == 1000
        try:
            kairos.Scene.gas(30_000_000, 0.3)
        except MemoryError as e:
            print("MemoryError:", e)
        assert kairos.Scene.gas(1000, 0.3, dim=2).n == 1000
        print("still running")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr}"
    assert "MemoryError: gas: 30000000 balls need about" in done.stdout, done.stdout
    assert "still running" in done.stdout
