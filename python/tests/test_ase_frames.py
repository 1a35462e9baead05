"""ASE reads the extended-XYZ frames of `kairos frames` (README.md, docs/trace-format.md): every
frame, its periodic cell, and each body's position, radius and velocity as written, the bodies
named by ASE's dummy atom `X`."""

import subprocess

import numpy as np
import pytest

import kairos

from test_kairos import kairos_bin

try:
    import ase.io
except ImportError:
    pytest.skip("ASE is not installed (pip install ase)", allow_module_level=True)


def frames(tmp_path, scene, every):
    path, trace, xyz = tmp_path / "s.toml", tmp_path / "s.ktrace", tmp_path / "frames.xyz"
    scene.to_toml(path)
    subprocess.run([kairos_bin(), "run", str(path), "-o", str(trace), "-q"], check=True)
    subprocess.run(
        [kairos_bin(), "frames", str(trace), "--every", str(every), "-o", str(xyz)], check=True
    )
    return ase.io.read(str(xyz), index=":")


def test_ase_reads_every_frame_of_a_periodic_gas(tmp_path):
    scene = kairos.Scene.gas(n=64, packing=0.3, dim=3, seed=3, duration=2)
    atoms = frames(tmp_path, scene, 0.5)
    assert len(atoms) == 5
    sim = kairos.Simulation(scene)
    for k, a in enumerate(atoms):
        t = 0.5 * k
        sim.run(until=t, record=False)
        assert len(a) == 64
        assert set(a.get_chemical_symbols()) == {"X"}
        assert a.info["Time"] == t
        np.testing.assert_allclose(a.cell.lengths(), scene.box)
        assert a.pbc.all()
        # Unwrapped positions: the simulation's, in the box, up to whole box lengths.
        d = a.get_positions() - sim.positions
        np.testing.assert_allclose(d - scene.box * np.round(d / scene.box), 0, atol=1e-9)
        np.testing.assert_allclose(a.arrays["vel"], sim.velocities, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(a.arrays["radius"], scene.radii)


def test_ase_reads_2d_frames_between_walls(tmp_path):
    scene = kairos.Scene(
        positions=[[1.0, 1.0], [3.0, 1.2]],
        velocities=[[1.0, 0.5], [-1.0, 0.0]],
        radii=0.5,
        walls=[{"box": {"min": [0, 0], "max": [5, 5]}}],
        duration=3.0,
    )
    atoms = frames(tmp_path, scene, 1.0)
    assert len(atoms) == 4
    sim = kairos.Simulation(scene)
    for k, a in enumerate(atoms):
        sim.run(until=float(k), record=False)
        assert not a.pbc.any()
        np.testing.assert_allclose(a.get_positions()[:, :2], sim.positions, atol=1e-12)
        np.testing.assert_array_equal(a.get_positions()[:, 2], 0.0)


def test_ase_reads_the_orientations_of_rigid_bodies(tmp_path):
    scene = kairos.Scene(
        positions=[[2.0, 2.0, 2.0], [6.0, 6.0, 6.0]],
        velocities=[[1.0, 0.5, 0.0], [-1.0, 0.0, 0.3]],
        shapes={"shape": "box", "half_extents": [0.5, 0.3, 0.2]},
        angular_velocities=[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
        walls=[{"box": {"min": [0, 0, 0], "max": [10, 10, 10]}}],
        duration=2.0,
    )
    atoms = frames(tmp_path, scene, 0.5)
    assert len(atoms) == 5
    sim = kairos.Simulation(scene)
    for k, a in enumerate(atoms):
        sim.run(until=0.5 * k, record=False)
        np.testing.assert_allclose(a.get_positions(), sim.positions, atol=1e-12)
        # The quaternion in OVITO's order x y z w; the package's is w x y z.
        np.testing.assert_allclose(a.arrays["orientation"], np.roll(sim.orientations, -1, axis=1), atol=1e-12)
        np.testing.assert_allclose(a.arrays["angular_velocity"], sim.angular_velocities, atol=1e-12)
