"""freud reads Kairos's GSD frames: the radial distribution function of a hard-sphere gas from
a GSD frame matches the one from Kairos's own arrays, and has the contact value of the
equation of state."""

import subprocess

import numpy as np
import pytest

import kairos

from test_kairos import kairos_bin

freud = pytest.importorskip("freud")
gsd_hoomd = pytest.importorskip("gsd.hoomd")


def test_the_rdf_of_a_gsd_frame_is_the_rdf_of_the_simulation(tmp_path):
    eta = 0.3
    scene = kairos.Scene.gas(n=4000, packing=eta, seed=2, duration=3)
    path, trace, traj = tmp_path / "gas.toml", tmp_path / "gas.ktrace", tmp_path / "gas.gsd"
    scene.to_toml(path)
    binary = kairos_bin()
    subprocess.run([binary, "run", str(path), "-o", str(trace), "-q"], check=True)
    subprocess.run(
        [binary, "frames", str(trace), "--every", "1", "--format", "gsd", "-o", str(traj)],
        check=True,
    )
    with gsd_hoomd.open(str(traj), "r") as f:
        assert len(f) == 4
        frame = f[3]
    box = freud.box.Box.from_box(frame.configuration.box)
    np.testing.assert_allclose(box.L, scene.box, rtol=1e-6)

    sim = kairos.Simulation(scene)
    sim.run(until=3.0, record=False)
    # Kairos's box is [0, L); HOOMD's is centred on the origin.
    own = sim.positions - scene.box / 2
    own = own - scene.box * np.round(own / scene.box)

    def rdf(points):
        r = freud.density.RDF(bins=100, r_max=3.0)
        r.compute(system=(box, np.asarray(points, dtype=np.float32)))
        return r

    from_gsd, from_arrays = rdf(frame.particles.position), rdf(own)
    np.testing.assert_allclose(from_gsd.bin_centers, from_arrays.bin_centers)
    # float32 positions move a few pairs across bin edges at most.
    np.testing.assert_allclose(from_gsd.rdf, from_arrays.rdf, atol=0.02)
    # No pair closer than a diameter, and the contact value of the equation of state:
    # g(1+) = (Z - 1) / (4 eta) with Carnahan-Starling's Z, 2.48 at eta = 0.3.
    inside = from_gsd.bin_centers < 0.985
    assert np.all(from_gsd.rdf[inside] == 0)
    z = (1 + eta + eta**2 - eta**3) / (1 - eta) ** 3
    contact = (z - 1) / (4 * eta)
    # The first bin wholly past contact, [1.02, 1.05): g falls from its contact value there.
    first = from_gsd.rdf[np.argmax(from_gsd.bin_edges[:-1] >= 1.0)]
    assert contact * 0.8 < first < contact, (first, contact)
    # Far away, the gas is uniform.
    assert abs(from_gsd.rdf[-10:].mean() - 1.0) < 0.03


def test_gsd_frames_written_from_python(tmp_path):
    eta = 0.3
    scene = kairos.Scene.gas(n=1000, packing=eta, seed=3, duration=2)
    sim = kairos.Simulation(scene)
    path = tmp_path / "traj.gsd"
    states = []
    with kairos.GsdWriter(path, scene) as w:
        for t in (0.0, 0.5, 1.0, 2.0):
            sim.run(until=t, record=False)
            w.append(sim)
            states.append((sim.time, sim.positions.copy(), sim.velocities.copy()))
        assert w.frames == 4
    with gsd_hoomd.open(str(path), "r") as f:
        assert len(f) == 4
        for frame, (t, x, v) in zip(f, states):
            assert frame.log["kairos/time"][0] == t
            L = np.asarray(frame.configuration.box[:3], dtype=np.float64)
            np.testing.assert_allclose(L, scene.box, rtol=1e-6)
            # position + image * L is Kairos's unwrapped position; its own positions are those
            # wrapped into [0, L).
            unwrapped = frame.particles.position + frame.particles.image * L
            d = (unwrapped - x) / L
            np.testing.assert_allclose(d - np.round(d), 0, atol=1e-5)
            np.testing.assert_allclose(frame.particles.velocity, v, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(frame.particles.diameter, 2 * scene.radii, rtol=1e-6)
    # An error inside the block: no file.
    bad = tmp_path / "bad.gsd"
    with pytest.raises(RuntimeError):
        with kairos.GsdWriter(bad, scene) as w:
            w.append(sim)
            raise RuntimeError("stop")
    assert not bad.exists()
    other = kairos.Simulation(kairos.Scene.gas(n=500, packing=eta, seed=3, duration=2))
    with pytest.raises(ValueError, match="500 bodies"):
        with kairos.GsdWriter(tmp_path / "x.gsd", scene) as w:
            w.append(other)


def test_rigid_frames_written_from_python(tmp_path):
    n = 6
    x = np.array([[2.0 + 3 * i, 2.0] for i in range(n)])
    theta = np.linspace(0, 1, n)
    scene = kairos.Scene(
        positions=x, velocities=np.ones((n, 2)), shapes={"shape": "box", "half_extents": [0.5, 0.3]},
        orientations=theta, angular_velocities=np.full(n, 0.7),
        walls=[{"box": {"min": [0, 0], "max": [20, 6]}}], duration=1,
    )
    sim = kairos.Simulation(scene)
    with kairos.GsdWriter(tmp_path / "r.gsd", scene) as w:
        w.append(sim)
        sim.run(record=False)
        w.append(sim)
    with gsd_hoomd.open(str(tmp_path / "r.gsd"), "r") as f:
        q = f[1].particles.orientation
        angle = 2 * np.arctan2(q[:, 3], q[:, 0])
        d = angle - sim.orientations
        np.testing.assert_allclose(np.angle(np.exp(1j * d)), 0, atol=1e-6)
        shapes = f[0].particles.type_shapes
        assert shapes[0]["type"] == "Polygon"
