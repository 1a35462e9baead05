"""Sweeps: on all cores and on a Dask cluster of separate processes, the same table."""

import json
import pickle

import numpy as np
import pytest

import kairos


def gas(packing, seed):
    return kairos.Scene.gas(n=300, packing=packing, seed=seed, duration=4)


GRID = {"packing": [0.1, 0.3], "seed": [0, 1, 2]}


def same_results(a, b):
    assert list(a) == list(b)
    for k in a:
        if k == "wall_seconds":
            continue
        if a[k].dtype.kind == "f":
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        else:
            assert np.array_equal(a[k], b[k]), k


def test_a_sweep_gives_one_table_whatever_the_threads(tmp_path):
    one = kairos.sweep(gas, GRID, observe=1.0, skip=1, threads=1, progress=False)
    many = kairos.sweep(gas, GRID, observe=1.0, skip=1, output=tmp_path / "t.csv")
    same_results(one, many)
    assert list(one)[:2] == ["packing", "seed"]
    np.testing.assert_array_equal(one["packing"], [0.1] * 3 + [0.3] * 3)
    np.testing.assert_array_equal(one["seed"], [0, 1, 2] * 2)
    assert one["seed"].dtype == np.int64 and one["broad_phase"].dtype.kind == "U"
    # Each row is the run of that scene alone.
    sim = kairos.Simulation(gas(0.3, 2))
    sim.run(record=False)
    assert one["body_body"][5] == sim.counts()["body_body"]
    z = one["compressibility"].reshape(2, 3).mean(axis=1)
    np.testing.assert_allclose(z, [1.52, 3.97], rtol=0.05)
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert lines[0].startswith("packing,seed,n,dim") and len(lines) == 7


def test_a_sweep_of_scenes_without_observables_and_as_json(tmp_path):
    scenes = [gas(0.2, 0), gas(0.2, 1)]
    t = kairos.sweep(scenes, output=tmp_path / "t.json")
    assert list(t["index"]) == [0, 1]
    assert np.isnan(t["compressibility"]).all() and (t["windows"] == 0).all()
    rows = json.loads((tmp_path / "t.json").read_text())
    assert rows[0]["compressibility"] is None and rows[1]["index"] == 1
    with pytest.raises(kairos.SceneError, match="periodic box"):
        walls = kairos.Scene(
            positions=[[1.0, 1.0]], velocities=[[1.0, 0.0]], radii=0.5,
            walls=[{"box": {"min": [0, 0], "max": [5, 5]}}],
        )
        kairos.sweep([walls], observe=1.0)
    with pytest.raises(ValueError, match="grid"):
        kairos.sweep(gas)


def test_scenes_pickle_bit_for_bit():
    s = gas(0.3, 4)
    t = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(s.positions, t.positions)
    np.testing.assert_array_equal(s.velocities, t.velocities)
    np.testing.assert_array_equal(kairos.Simulation(s).run(), kairos.Simulation(t).run())


def test_a_sweep_on_a_dask_cluster_of_processes_gives_the_same_table():
    distributed = pytest.importorskip("distributed")
    serial = kairos.sweep(gas, GRID, observe=1.0, skip=1, threads=1, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        spread = kairos.sweep(gas, GRID, observe=1.0, skip=1, client=client)
        scenes = [gas(0.1, 0), gas(0.3, 2)]
        listed = kairos.sweep(scenes, observe=1.0, skip=1, client=client)
    same_results(serial, spread)
    np.testing.assert_array_equal(listed["compressibility"], serial["compressibility"][[0, 5]])
