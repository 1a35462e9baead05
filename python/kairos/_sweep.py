"""Sweeps: grids of independent runs, on all cores (rayon) or on a Dask cluster."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import reprlib
from typing import Callable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _kairos
from ._args import _whole

#: The result columns of every run, after the grid's own.
RESULT_COLUMNS = (
    "n",
    "dim",
    "packing",
    "duration",
    "broad_phase",
    "body_body",
    "body_wall",
    "energy_drift",
    "windows",
    "pressure",
    "pressure_sem",
    "compressibility",
    "compressibility_sem",
    "collision_rate",
    "collision_rate_sem",
    "max_overlap",
    "wall_seconds",
)


def _scene_of(scene_fn: Callable, point: Mapping):
    """The scene `scene_fn` makes at `point`, or a TypeError saying what it returned."""
    from . import Scene

    scene = scene_fn(**point)
    if not isinstance(scene, Scene):
        at = ", ".join(f"{k}={v!r}" for k, v in point.items())
        raise TypeError(
            f"sweep: the scene function must return a kairos.Scene (kairos.Scene.gas(...), "
            f"kairos.Scene(...), kairos.Scene.from_toml(...)), but at {at} it returned "
            f"{type(scene).__name__} {reprlib.repr(scene)}"
        )
    return scene


def _check_scenes(scenes: list) -> None:
    """Refuses a list of scenes that holds anything but kairos.Scene objects."""
    from . import Scene

    for i, s in enumerate(scenes):
        if not isinstance(s, Scene):
            raise TypeError(
                f"sweep: scene {i} of the list is {type(s).__name__} {reprlib.repr(s)}, "
                "not a kairos.Scene: give kairos.Scene objects (or a function that makes one)"
            )


def _run_point(scene_fn: Callable, point: Mapping, observe, skip, broad_phase) -> dict:
    """One run of a sweep: a Dask task. Builds its scene where it runs."""
    scene = _scene_of(scene_fn, point)
    return _kairos.run_one(scene._inner, observe, skip, broad_phase)


def _column(values: list) -> np.ndarray:
    if all(isinstance(v, str) for v in values):
        return np.array(values)
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    # Floats; a quantity not observed (None) is NaN in the table.
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _check_output(path) -> str:
    """The output's path, refused before any run when it cannot be written."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ValueError(f"sweep: output {path!r} is a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ValueError(f"sweep: output {path!r}: directory {parent!r} does not exist")
    return path


def _json_value(v):
    """A table's value as JSON has it: NaN (not observed) and infinities as null."""
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _write(path: str, table: dict) -> None:
    names = list(table)
    rows = list(zip(*(table[k].tolist() for k in names)))
    tmp = os.path.join(
        os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.partial-{os.getpid()}"
    )
    try:
        with open(tmp, "w", newline="") as f:
            _write_rows(f, path, names, rows)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _write_rows(f, path: str, names: list, rows: list) -> None:
    if path.lower().endswith(".json"):
        clean = [{k: _json_value(v) for k, v in zip(names, r)} for r in rows]
        json.dump(clean, f, indent=1, allow_nan=False)
        f.write("\n")
    else:
        w = csv.writer(f)
        w.writerow(names)
        for r in rows:
            w.writerow(
                ["" if isinstance(v, float) and math.isnan(v) else repr(v) if isinstance(v, float) else v for v in r]
            )


def sweep(
    scene: Union[Callable, Sequence],
    grid: Optional[Mapping[str, Sequence]] = None,
    observe: Optional[float] = None,
    skip: int = 0,
    broad_phase: str = "auto",
    threads: Optional[int] = None,
    client=None,
    output=None,
    progress: bool = True,
) -> dict:
    """Runs a grid of independent simulations and returns one table of results.

    ``scene`` is a function that makes a :class:`kairos.Scene` from one point of ``grid``
    (keyword arguments, the cartesian product of ``grid``'s values in order), for example::

        kairos.sweep(lambda packing, seed: kairos.Scene.gas(1000, packing, seed=seed),
                     grid={"packing": [0.1, 0.2, 0.3], "seed": range(4)}, observe=1.0, skip=1)

    or a list of scenes (then ``grid`` is None). Each run goes to its scene's end, sampling the
    observables over windows of ``observe`` (periodic boxes) and leaving the first ``skip``
    windows out of its means.

    Without ``client``, the runs go on ``threads`` threads of this process (default: one per
    core) with the GIL released, a progress bar on a terminal. With a
    ``dask.distributed.Client``, each run is one task on the cluster (its scene is made on the
    worker): the results are the same as the serial ones, bit for bit, but for the wall times.

    Returns a dict of numpy arrays, one per column: the grid's names, then
    :data:`RESULT_COLUMNS` (a quantity not observed is NaN); ``pandas.DataFrame(table)`` takes
    it as it is. ``output`` (``.csv``, or ``.json``) also writes it, atomically; a file a scene
    was read from is refused before any run (scenes made on a Dask worker excepted).
    """
    if output is not None:
        output = _check_output(output)
    if callable(scene):
        if grid is None:
            raise ValueError("sweep: a scene function needs a grid of its arguments")
        names = list(grid)
        points = [dict(zip(names, values)) for values in itertools.product(*grid.values())]
        # The grid's columns are made before any run, so that a value no column can hold is
        # refused before the work rather than after it.
        for k in names:
            try:
                _column([p[k] for p in points])
            except (TypeError, ValueError) as e:
                raise ValueError(
                    f"sweep: grid {k!r} must hold numbers, booleans or strings of one kind: {e}"
                ) from None
    else:
        if grid is not None:
            raise ValueError("sweep: give a grid with a scene function, not with a list of scenes")
        scenes = list(scene)
        _check_scenes(scenes)
        names, points = ["index"], [{"index": i} for i in range(len(scenes))]
    observe = None if observe is None else float(observe)
    skip = _whole(skip, "sweep: skip")
    if threads is not None:
        threads = _whole(threads, "sweep: threads")
    if not callable(scene) or client is None:
        if callable(scene):
            # Every scene is made before any run: one the function cannot make stops the
            # sweep before the work.
            scenes = [_scene_of(scene, p) for p in points]
        if output is not None:
            # The table replaces its path: never a file a scene was read from.
            for s in scenes:
                s._inner.check_output("sweep output", output)
    if client is not None:
        if callable(scene):
            futures = client.map(
                _run_point,
                [scene] * len(points),
                points,
                [observe] * len(points),
                [skip] * len(points),
                [broad_phase] * len(points),
                pure=False,
            )
        else:
            futures = client.map(
                _kairos_run_scene,
                scenes,
                [observe] * len(points),
                [skip] * len(points),
                [broad_phase] * len(points),
                pure=False,
            )
        results = client.gather(futures)
    else:
        results = _kairos.run_many(
            [s._inner for s in scenes], observe, skip, broad_phase, threads, bool(progress)
        )
    table = {k: _column([p[k] for p in points]) for k in names}
    for k in RESULT_COLUMNS:
        # A grid's own column (`packing`, as asked) wins over the result's of that name.
        if k not in table:
            table[k] = _column([r[k] for r in results])
    if output is not None:
        _write(output, table)
    return table


def _kairos_run_scene(scene, observe, skip, broad_phase) -> dict:
    """One run of a sweep over a list of scenes: a Dask task (the scene travels pickled)."""
    return _kairos.run_one(scene._inner, observe, skip, broad_phase)
