"""The collision queries on numpy inputs, against closed forms."""

import _thread
import threading
import time

import numpy as np
import pytest

import kairos

SQUARE = {"shape": "box", "half_extents": [1.0, 1.0], "position": [0.0, 0.0]}
DISC = {"shape": "ball", "radius": 0.5, "position": [3.0, 0.0]}


def test_the_distance_of_a_square_and_a_disc_one_and_batched():
    d = kairos.distance(SQUARE, DISC)
    assert d["distance"] == pytest.approx(1.5, abs=1e-12) and not d["intersecting"]
    np.testing.assert_allclose(d["point_a"], [1, 0], atol=1e-12)
    np.testing.assert_allclose(d["normal"], [1, 0], atol=1e-12)
    # The disc around the square: exact distances from a closed form.
    rng = np.random.default_rng(3)
    pos = rng.uniform(-4, 4, size=(200, 2))
    rot = rng.uniform(-np.pi, np.pi, size=200)
    b = kairos.distance(SQUARE, DISC, rot_a=rot, pos_b=pos)
    local = np.einsum("kij,kj->ki", np.stack([np.stack([np.cos(rot), np.sin(rot)], 1),
                                               np.stack([-np.sin(rot), np.cos(rot)], 1)], 1), pos)
    q = np.abs(local) - 1.0
    box = np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0)
    np.testing.assert_allclose(b["distance"], box - 0.5, atol=1e-9)
    np.testing.assert_array_equal(b["intersecting"], box < 0.5)
    assert b["point_a"].shape == (200, 2)


def test_3d_boxes_with_quaternion_batches():
    cube = {"shape": "box", "half_extents": [1.0, 1.0, 1.0], "position": [0, 0, 0]}
    other = dict(cube, position=[3.0, 0.0, 0.0])
    # Turned by 45 degrees about z, the first cube reaches sqrt(2) along x.
    half = np.pi / 8
    rot = np.array([[1, 0, 0, 0], [np.cos(half), 0, 0, np.sin(half)]], float)
    d = kairos.distance(cube, other, rot_a=rot)
    np.testing.assert_allclose(d["distance"], [1.0, 2.0 - np.sqrt(2)], atol=1e-9)
    with pytest.raises(ValueError, match="rot_a"):
        kairos.distance(cube, other, rot_a=[[1, 0, 0]])
    with pytest.raises(ValueError, match="orientation"):
        kairos.distance(cube, other, rot_a=[[0, 0, 0, 0]])


def test_time_of_impact_never_after_the_contact():
    moving = dict(DISC, velocity=[-1.0, 0.0])
    t = kairos.time_of_impact(SQUARE, moving, until=5.0)
    assert t["status"] == kairos.TOI_HIT
    assert 1.5 - 1e-6 < t["time"] <= 1.5
    miss = kairos.time_of_impact(SQUARE, dict(DISC, velocity=[1.0, 0.0]), until=5.0)
    assert miss["status"] == kairos.TOI_NONE and miss["time"] == np.inf
    over = kairos.time_of_impact(SQUARE, dict(DISC, position=[1.2, 0.0]), until=1.0)
    assert over["status"] == kairos.TOI_OVERLAPPING and over["time"] == 0.0
    # Batched over the disc's start: contact when the gap has closed at speed 1.
    starts = np.array([[2.0, 0.0], [3.0, 0.0], [6.0, 0.0]])
    b = kairos.time_of_impact(SQUARE, moving, until=4.0, pos_b=starts)
    np.testing.assert_array_equal(b["status"], [1, 1, 0])
    assert np.all(b["time"][:2] <= [0.5, 1.5]) and np.all(b["time"][:2] > [0.5 - 1e-6, 1.5 - 1e-6])
    # A spinning plank sweeps the disc: the rotation is part of the motion.
    plank = {"shape": "box", "half_extents": [2.0, 0.05], "position": [0, 0],
             "angular_velocity": 1.0}
    ball = {"shape": "ball", "radius": 0.1, "position": [0.0, 1.0]}
    s = kairos.time_of_impact(plank, ball, until=3.0)
    # The plank's top face reaches the ball's centre line when its angle is near pi/2 - ...
    assert s["status"] == kairos.TOI_HIT and 1.3 < s["time"] < np.pi / 2


def test_bad_bodies_are_named():
    with pytest.raises(kairos.SceneError, match="body 1: shape: unknown shape `blob`"):
        kairos.distance(SQUARE, {"shape": "blob", "position": [0, 0]})
    with pytest.raises(kairos.SceneError, match="body 0"):
        kairos.distance(dict(SQUARE, half_extents=[-1, 1]), DISC)
    with pytest.raises(ValueError, match="until must be a time"):
        kairos.time_of_impact(SQUARE, DISC, until=-1)


def test_vertex_face_and_edge_edge_never_miss():
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float)
    start = np.vstack([[0.2, 0.2, 1.0], tri])
    end = np.vstack([[0.2, 0.2, -1.0], tri])
    t = kairos.vertex_face(start, end)
    assert 0.5 - 1e-9 <= t <= 0.5
    outside = start.copy(), end.copy()
    outside[0][0, :2] = outside[1][0, :2] = [0.8, 0.8]
    assert kairos.vertex_face(*outside) == np.inf
    batch = kairos.vertex_face(np.stack([start, outside[0]]), np.stack([end, outside[1]]))
    assert batch.shape == (2,) and batch[1] == np.inf
    # Two edges crossing at t = 0.25.
    a = np.array([[-1, 0, 1], [1, 0, 1], [0, -1, 0], [0, 1, 0]], float)
    b = a.copy()
    b[:2, 2] = -3.0
    e = kairos.edge_edge(a, b)
    assert 0.25 - 1e-9 <= e <= 0.25
    with pytest.raises(ValueError, match=r"\(k, 4, 3\)"):
        kairos.edge_edge(a[:3], b[:3])
    with pytest.raises(ValueError, match="finite"):
        kairos.edge_edge(np.full((4, 3), np.nan), b)


def cube(centre, half=0.5):
    c = np.array(centre, float)
    v = np.array([[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)])
    # Outward, counter-clockwise seen from outside.
    t = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return {"vertices": v + c, "triangles": np.array(t)}


def test_mesh_contact_of_two_cubes():
    a = cube([0, 0, 0])
    b = dict(cube([3, 0.2, 0.1]), velocity=[-1, 0, 0])
    c = kairos.mesh_contact(a, b, until=5.0)
    assert c is not None
    # The faces meet when the gap of 2 has closed at speed 1.
    assert 2.0 - 1e-6 < c["first"] <= 2.0 and c["time"] <= c["first"]
    # The faces meet flat: the faces' normal, along which they approach at speed 1, whatever
    # features the root finder names (parallel edges of the faces, a corner on a rim).
    np.testing.assert_allclose(c["normal"], [1, 0, 0], atol=1e-12)
    assert c["approach_speed"] == pytest.approx(1.0)
    assert 0.5 - 1e-6 <= c["point"][0] <= 0.5 + 1e-6
    assert c["kind"] in ("vertex-face", "edge-edge")
    assert kairos.mesh_contact(a, b, until=1.5) is None
    # Spinning about z while it comes: the corner reaches first, earlier than 2.
    spin = dict(b, angular_velocity=[0, 0, 2.0])
    s = kairos.mesh_contact(a, spin, until=5.0)
    assert s is not None and s["first"] < 2.0
    with pytest.raises(ValueError, match="mesh b: triangle index 9"):
        kairos.mesh_contact(a, dict(b, triangles=[[0, 1, 9]]), until=1.0)


def sheet(n, z):
    """A flat square of side 1 at height ``z``, ``n`` by ``n`` squares of two triangles."""
    x = np.linspace(0.0, 1.0, n + 1)
    gx, gy = np.meshgrid(x, x, indexing="ij")
    v = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)
    i = (np.arange(n)[:, None] * (n + 1) + np.arange(n)[None, :]).ravel()
    t = np.concatenate([np.stack([i, i + n + 1, i + n + 2], 1), np.stack([i, i + n + 2, i + 1], 1)])
    return {"vertices": v, "triangles": t}


def test_ctrl_c_stops_a_long_mesh_contact_quickly():
    # Two sheets of 12,800 triangles sliding over each other a thousandth apart: every
    # triangle passes close to some hundred of the other's, and the query takes a minute.
    a = sheet(80, 0.0)
    b = dict(sheet(80, 1e-3), velocity=[0.5, 0.3, 0.0])
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            kairos.mesh_contact(a, b, until=1.0)
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 0.3 + 1.0
    # Not left stopped: a small query after it runs to its end.
    assert kairos.mesh_contact(sheet(4, 0.0), dict(sheet(4, 1e-3), velocity=[0.5, 0.3, 0.0]),
                               until=1.0) is None
