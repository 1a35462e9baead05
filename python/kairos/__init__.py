"""Kairos from Python: exact continuous-time collision detection and event-driven simulation.

Scenes are built from numpy arrays (or read from Kairos's TOML scene files), simulations run in
Rust with the GIL released, and states, events and observables come back as numpy arrays::

    import kairos
    scene = kairos.Scene.gas(n=1000, packing=0.3, dim=3, seed=1)  # or kairos.Scene(positions=...)
    sim = kairos.Simulation(scene)
    events = sim.run(until=1.0)          # structured array: time, kind, a, b
    x, v = sim.positions, sim.velocities # (N, d) float64 arrays

Every run is a pure function of its scene and options: the same scene gives the same events bit
for bit, whichever broad phase finds them and however the run is cut into pieces.
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Mapping
from typing import Optional, Sequence

import numpy as np

from . import _kairos
from ._kairos import SceneError, TraceError
from ._sweep import RESULT_COLUMNS, sweep
from ._args import _whole
from ._query import _plain
from ._query import (
    TOI_HIT,
    TOI_NONE,
    TOI_OVERLAPPING,
    TOI_STALLED,
    distance,
    edge_edge,
    mesh_contact,
    time_of_impact,
    vertex_face,
)

__all__ = [
    "Scene",
    "Simulation",
    "SceneError",
    "TraceError",
    "read_trace",
    "GsdWriter",
    "sweep",
    "distance",
    "time_of_impact",
    "vertex_face",
    "edge_edge",
    "mesh_contact",
    "TOI_NONE",
    "TOI_HIT",
    "TOI_OVERLAPPING",
    "TOI_STALLED",
    "RESULT_COLUMNS",
    "EVENT_DTYPE",
    "RECORD_DTYPE",
    "RECORD3_DTYPE",
    "BODY_DTYPE",
    "BODY3_DTYPE",
    "BODY_BODY",
    "BODY_WALL",
    "STATE",
]

__version__ = _kairos.__version__

#: Event kinds (the trace format's codes).
BODY_BODY = 0
BODY_WALL = 1
STATE = 4

#: The events a run returns: time, kind (0 body-body, 1 body-wall), a (the lower body id), b
#: (the other body, or the wall).
EVENT_DTYPE = np.dtype([("time", "<f8"), ("kind", "u1"), ("a", "<u4"), ("b", "<u4")])

#: A trace's records (`docs/trace-format.md`): version 2 (balls) and 3 (rigid bodies).
RECORD_DTYPE = np.dtype(
    [
        ("time", "<f8"),
        ("dt", "<f8"),
        ("kind", "<u4"),
        ("a", "<u4"),
        ("b", "<u4"),
        ("sleep", "<u4"),
        ("pos_a", "<f8", (3,)),
        ("vel_a", "<f8", (3,)),
        ("pos_b", "<f8", (3,)),
        ("vel_b", "<f8", (3,)),
    ]
)
RECORD3_DTYPE = np.dtype(
    RECORD_DTYPE.descr
    + [
        ("rot_a", "<f8", (4,)),
        ("omega_a", "<f8", (3,)),
        ("rot_b", "<f8", (4,)),
        ("omega_b", "<f8", (3,)),
    ]
)
#: A trace's body states at its start: version 2 and 3.
BODY_DTYPE = np.dtype(
    [
        ("radius", "<f8"),
        ("mass", "<f8"),
        ("time", "<f8"),
        ("pos", "<f8", (3,)),
        ("vel", "<f8", (3,)),
    ]
)
BODY3_DTYPE = np.dtype(BODY_DTYPE.descr + [("rot", "<f8", (4,)), ("omega", "<f8", (3,))])


def _flat(name: str, values, n: Optional[int], dim: int) -> np.ndarray:
    """`values` as a contiguous float64 array of `n` rows of `dim` (flattened)."""
    a = np.ascontiguousarray(values, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != dim or (n is not None and a.shape[0] != n):
        want = f"({n if n is not None else 'N'}, {dim})"
        raise SceneError(f"scene: `{name}` must have shape {want}, got {a.shape}")
    return a.reshape(-1)


def _walls(walls) -> Optional[list]:
    """`walls` as a list of plain dicts, or a SceneError saying what a wall is."""
    if walls is None:
        return None
    kinds = (
        "{'box': {'min': [...], 'max': [...]}}, {'plane': {'point': [...], 'normal': [...]}}, "
        "{'a': [...], 'b': [...]}, {'polygon': [[...], ...]} or {'shape': ..., 'position': [...]}"
    )
    if isinstance(walls, (str, bytes, Mapping)) or not hasattr(walls, "__iter__"):
        raise SceneError(
            f"scene: `walls` must be a list of walls, each a dict ({kinds}), got "
            f"{reprlib.repr(walls)}; a room is walls=[{{'box': {{'min': [...], 'max': [...]}}}}]"
        )
    out = []
    for k, w in enumerate(walls):
        if not isinstance(w, Mapping):
            raise SceneError(f"scene: wall {k} must be a dict ({kinds}), got {reprlib.repr(w)}")
        out.append(_plain(dict(w)))
    return out


def _column(name: str, values, n: int) -> np.ndarray:
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 0:
        a = np.full(n, float(a))
    a = np.ascontiguousarray(a)
    if a.shape != (n,):
        raise SceneError(f"scene: `{name}` must have shape ({n},) or be a number, got {a.shape}")
    return a


class Scene:
    """A validated scene: bodies, walls or a periodic box, and the simulation's settings.

    Build one from arrays::

        Scene(positions=x, velocities=v, radii=0.5, masses=None, box=[10, 10, 10], duration=5)

    ``positions`` and ``velocities`` are ``(N, d)`` arrays (d = 2 or 3), ``radii`` and
    ``masses`` ``(N,)`` arrays or numbers (``masses=None``: each body's area or volume, unit
    density). ``box=[Lx, Ly(, Lz)]`` makes the boundary periodic; ``walls`` is a list of walls as
    dicts: ``{"box": {"min": [...], "max": [...]}}`` (a room), ``{"plane": {"point": [...],
    "normal": [...]}}``, ``{"a": [...], "b": [...]}`` (a segment) or ``{"polygon": [[...],
    ...]}`` (3D). The scene is checked as a scene file is (overlaps, bodies outside the box or
    walls, non-finite numbers, ...): a problem raises :class:`SceneError` naming the body.

    Rigid bodies: give ``shapes`` instead of ``radii``, one dict of a scene file's shape keys
    for every body or a list of ``N`` (``{"shape": "box", "half_extents": [1, 0.5]}``,
    ``{"shape": "polygon", "vertices": [...]}``, ...; ``docs/scene-format.md``), with
    ``orientations`` (``(N,)`` angles in 2D, ``(N, 4)`` quaternions ``w, x, y, z`` in 3D),
    ``angular_velocities`` (``(N,)`` or ``(N, 3)``), ``masses`` (default: unit density) and
    ``friction``. ``walls`` also takes static shapes (``{"shape": "box", ..., "position":
    [...]}``).
    """

    __slots__ = ("_inner",)

    def __init__(
        self,
        positions,
        velocities=None,
        radii=None,
        masses=None,
        box: Optional[Sequence[float]] = None,
        walls: Optional[Sequence[dict]] = None,
        duration: float = 1.0,
        restitution: float = 1.0,
        gravity: Optional[Sequence[float]] = None,
        shapes=None,
        orientations=None,
        angular_velocities=None,
        friction: Optional[float] = None,
    ):
        x = np.asarray(positions, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] not in (2, 3):
            raise SceneError(f"scene: `positions` must have shape (N, 2) or (N, 3), got {x.shape}")
        n, dim = x.shape
        if velocities is None:
            velocities = np.zeros((n, dim))
        if shapes is not None:
            if radii is not None:
                raise SceneError("scene: give `radii` for balls or `shapes` for rigid bodies, not both")
            self._inner = _rigid(
                x, velocities, masses, shapes, orientations, angular_velocities, box, walls,
                duration, restitution, gravity, friction,
            )
            return
        if orientations is not None or angular_velocities is not None or friction is not None:
            raise SceneError(
                "scene: orientations, angular velocities and friction are rigid bodies': give `shapes`"
            )
        if radii is None:
            raise SceneError("scene: give the balls' `radii` (or `shapes` for rigid bodies)")
        r = _column("radii", radii, n)
        if masses is None:
            masses = np.pi * r**2 if dim == 2 else 4.0 / 3.0 * np.pi * r**3
        m = _column("masses", masses, n)
        self._inner = _kairos.Scene.from_arrays(
            dim,
            _flat("positions", x, n, dim),
            _flat("velocities", velocities, n, dim),
            r,
            m,
            float(duration),
            float(restitution),
            None if box is None else [float(l) for l in box],
            _walls(walls),
            None if gravity is None else [float(g) for g in gravity],
        )

    def __reduce__(self):
        # Pickled as its TOML text, which reads back bit for bit (a Dask task's scene).
        return (Scene.from_toml_str, (self.to_toml_str(),))

    @classmethod
    def _wrap(cls, inner) -> "Scene":
        s = cls.__new__(cls)
        s._inner = inner
        return s

    @classmethod
    def gas(
        cls,
        n: int,
        packing: float,
        dim: int = 3,
        seed: int = 0,
        duration: float = 10.0,
        polydispersity: float = 0.0,
        mass: float = 1.0,
        restitution: float = 1.0,
    ) -> "Scene":
        """A hard-sphere (3D) or hard-disc (2D) gas of ``n`` bodies in a periodic box at
        ``packing`` fraction (as ``kairos generate gas``): mean diameter 1, diameters uniform in
        ``[1 - polydispersity, 1 + polydispersity]``, ``kT = 1``, zero total momentum, started
        on a lattice. Raises ``MemoryError`` before making any of it when the memory it needs
        cannot be allocated."""
        return cls._wrap(
            _kairos.Scene.gas(
                _whole(n, "n"),
                float(packing),
                _whole(dim, "dim"),
                _whole(seed, "seed"),
                float(duration),
                float(polydispersity),
                float(mass),
                float(restitution),
            )
        )

    @classmethod
    def from_toml(cls, path) -> "Scene":
        """Reads and validates a Kairos scene file (any kind: balls, rigid bodies, meshes)."""
        return cls._wrap(_kairos.Scene.from_toml(os.fspath(path)))

    @classmethod
    def from_toml_str(cls, text: str) -> "Scene":
        """Parses and validates a scene from TOML text."""
        return cls._wrap(_kairos.Scene.from_toml_str(text))

    def to_toml(self, path) -> None:
        """Writes the scene as a TOML file that ``kairos run`` reads (atomically); a file the
        scene was read from (its scene file, bodies file or meshes) is refused."""
        self._inner.to_toml(os.fspath(path))

    def to_toml_str(self) -> str:
        """The scene as TOML text."""
        return self._inner.to_toml_str()

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def n(self) -> int:
        """The number of bodies."""
        return self._inner.n

    def __len__(self) -> int:
        return self._inner.n

    @property
    def duration(self) -> float:
        return self._inner.duration

    @property
    def restitution(self) -> float:
        return self._inner.restitution

    @property
    def box(self) -> Optional[np.ndarray]:
        """The periodic box's lengths, or None."""
        p = self._inner.periodic
        return None if p is None else np.array(p)

    @property
    def packing(self) -> Optional[float]:
        """The bodies' share of the periodic box's volume, or None without a periodic box."""
        return self._inner.packing

    @property
    def rigid(self) -> bool:
        """Whether the scene has rigid bodies (shapes other than plain balls)."""
        return self._inner.rigid

    @property
    def gravity(self) -> np.ndarray:
        return np.array(self._inner.gravity)

    @property
    def positions(self) -> np.ndarray:
        """Positions at time 0, ``(N, d)``."""
        return self._inner.positions()

    @property
    def velocities(self) -> np.ndarray:
        """Velocities at time 0, ``(N, d)``."""
        return self._inner.velocities()

    @property
    def radii(self) -> np.ndarray:
        return self._inner.radii()

    @property
    def masses(self) -> np.ndarray:
        return self._inner.masses()

    def __repr__(self) -> str:
        where = f"box={self.box.tolist()}" if self.box is not None else "walls"
        return f"kairos.Scene(n={self.n}, dim={self.dim}, {where}, duration={self.duration})"


def _rows(name: str, values, n: int, width: int) -> list:
    """`values` as `n` rows of `width` numbers (a number a row when `width` is 1)."""
    a = np.asarray(values, dtype=np.float64)
    if width == 1 and a.ndim == 1:
        a = a[:, None]
    if a.shape != (n, width):
        want = f"({n},)" if width == 1 else f"({n}, {width})"
        raise SceneError(f"scene: `{name}` must have shape {want}, got {np.shape(values)}")
    return [r[0] if width == 1 else r for r in a.tolist()]


def _rigid(x, velocities, masses, shapes, orientations, angular, box, walls, duration,
           restitution, gravity, friction):
    n, dim = x.shape
    if isinstance(shapes, dict):
        shapes = [shapes] * n
    shapes = list(shapes)
    if len(shapes) != n or not all(isinstance(s, dict) for s in shapes):
        raise SceneError(f"scene: `shapes` must be one dict or a list of {n} dicts")

    rw = 1 if dim == 2 else 4
    aw = 1 if dim == 2 else 3
    columns = {
        "position": _rows("positions", x, n, dim),
        "velocity": _rows("velocities", velocities, n, dim),
    }
    if orientations is not None:
        columns["orientation"] = _rows("orientations", orientations, n, rw)
    if angular is not None:
        columns["angular_velocity"] = _rows("angular_velocities", angular, n, aw)
    if masses is not None:
        columns["mass"] = _column("masses", masses, n).tolist()
    bodies = []
    for i in range(n):
        body = _plain(dict(shapes[i]))
        for k, col in columns.items():
            body[k] = col[i]
        bodies.append(body)
    return _kairos.Scene.from_tables(
        dim,
        bodies,
        float(duration),
        float(restitution),
        None if box is None else [float(l) for l in box],
        _walls(walls),
        None if gravity is None else [float(g) for g in gravity],
        None if friction is None else float(friction),
    )


def _events(cols) -> np.ndarray:
    out = np.empty(len(cols["time"]), dtype=EVENT_DTYPE)
    for k in ("time", "kind", "a", "b"):
        out[k] = cols[k]
    return out


class Simulation:
    """An exact event-driven simulation of a :class:`Scene`.

    ``broad_phase`` is ``"auto"`` (the fastest for the scene) or one of ``"calendar"``,
    ``"calendar-lists"``, ``"kaya-bvh"``, ``"sap"``, ``"grid"``, ``"all-pairs"``: every one
    gives the same events, bit for bit.

    ``trace="run.ktrace"`` writes the run's trace as ``kairos run`` does (the same records, so
    the same :attr:`trace_hash`), for ``kairos view``, ``snapshot``, ``frames`` and
    :func:`read_trace`. The file appears when a run reaches the scene's end, or at
    :meth:`finish_trace`. A file the scene was read from is refused (``ValueError``).

    Reading the simulation from another thread while one runs it waits for the run under way
    at most: threads take it in the order they asked.
    """

    __slots__ = ("_inner", "scene")

    def __init__(self, scene: Scene, broad_phase: str = "auto", trace=None):
        if not isinstance(scene, Scene):
            raise TypeError(f"Simulation needs a kairos.Scene, got {type(scene).__name__}")
        self.scene = scene
        self._inner = _kairos.Simulation(
            scene._inner, broad_phase, None if trace is None else os.fspath(trace)
        )

    def finish_trace(self) -> None:
        """Ends the trace at :attr:`time` (a run stopped before the scene's end) and gives the
        file its name. Nothing without a trace or once it is finished."""
        self._inner.finish_trace()

    @property
    def trace_hash(self) -> Optional[str]:
        """The finished trace's record hash (as ``kairos run`` prints it), or None."""
        return self._inner.trace_hash

    def run(
        self, until: Optional[float] = None, events: Optional[int] = None, record: bool = True
    ) -> Optional[np.ndarray]:
        """Runs to time ``until`` (default: the scene's end) or until ``events`` more
        collisions, whichever comes first, and returns the collisions as a structured array
        (:data:`EVENT_DTYPE`; None with ``record=False``).

        The GIL is released while the simulation runs. Ctrl-C (any signal that raises in
        Python) stops it between two events within a fraction of a second and raises
        ``KeyboardInterrupt``; the simulation is left consistent at the time it reached
        (:attr:`time`), and a later ``run`` goes on from there with the same events as an
        uninterrupted run.
        """
        if events is not None:
            events = _whole(events, "events")
        cols = self._inner.run(
            None if until is None else float(until),
            None if events is None else int(events),
            bool(record),
        )
        return None if cols is None else _events(cols)

    def observe(self, interval: float, volume: Optional[float] = None) -> None:
        """Samples pressure, compressibility factor, collision rate and kinetic energy over
        windows of ``interval`` from time 0 (call before the first run); ``volume`` defaults
        to the periodic box's. Read them with :meth:`observables`."""
        self._inner.observe(float(interval), None if volume is None else float(volume))

    def observables(self) -> dict:
        """The closed windows' samples as arrays: ``time`` (end of the window), ``pressure``,
        ``compressibility``, ``collision_rate``, ``kinetic_energy``, ``max_overlap``."""
        return self._inner.observables()

    @property
    def positions(self) -> np.ndarray:
        """Every body's position at :attr:`time`, ``(N, d)`` (inside the periodic box)."""
        return self._inner.positions

    @property
    def velocities(self) -> np.ndarray:
        """Every body's velocity at :attr:`time`, ``(N, d)``."""
        return self._inner.velocities

    @property
    def orientations(self) -> Optional[np.ndarray]:
        """Rigid bodies' orientations at :attr:`time`: ``(N,)`` angles in 2D, ``(N, 4)``
        quaternions ``w, x, y, z`` in 3D; None in a scene of balls."""
        return self._inner.orientations

    @property
    def angular_velocities(self) -> Optional[np.ndarray]:
        """Rigid bodies' angular velocities (world frame) at :attr:`time`: ``(N,)`` in 2D,
        ``(N, 3)`` in 3D; None in a scene of balls."""
        return self._inner.angular_velocities

    @property
    def time(self) -> float:
        """The time the last run stopped at."""
        return self._inner.time

    @property
    def end_time(self) -> float:
        return self._inner.end_time

    @property
    def broad_phase(self) -> str:
        return self._inner.broad_phase

    @property
    def dim(self) -> int:
        return self._inner.dim

    def counts(self) -> dict:
        """Events processed so far: ``body_body``, ``body_wall``, ``box_crossings``."""
        return self._inner.counts()

    @property
    def kinetic_energy(self) -> float:
        return self._inner.kinetic_energy

    @property
    def energy_drift(self) -> float:
        """Relative change of the total energy since time 0 (round-off level)."""
        return self._inner.energy_drift

    def __repr__(self) -> str:
        return (
            f"kairos.Simulation(n={len(self.scene)}, dim={self.dim}, time={self.time}, "
            f"broad_phase={self.broad_phase!r})"
        )


class Trace:
    """A trace read by :func:`read_trace`: ``bodies`` (the states at its start, a structured
    array of :data:`BODY_DTYPE` or :data:`BODY3_DTYPE`), ``records`` (:data:`RECORD_DTYPE` or
    :data:`RECORD3_DTYPE`), and the header's ``version``, ``dim``, ``broad_phase``,
    ``scene_toml``, ``start_time``, ``end_time``, ``hash`` and ``rigid``."""

    def __init__(self, d: dict):
        self.version = d["version"]
        self.dim = d["dim"]
        self.broad_phase = d["broad_phase"]
        self.scene_toml = d["scene_toml"]
        self.start_time = d["start_time"]
        self.end_time = d["end_time"]
        self.hash = d["hash"]
        self.rigid = d["rigid"]
        b, r = d["bodies"], d["records"]
        bdt, rdt = (BODY3_DTYPE, RECORD3_DTYPE) if self.rigid else (BODY_DTYPE, RECORD_DTYPE)
        self.bodies = np.empty(len(b["radius"]), dtype=bdt)
        for k in bdt.names:
            self.bodies[k] = b[k]
        self.asleep = b["asleep"]
        self.records = np.empty(len(r["time"]), dtype=rdt)
        for k in rdt.names:
            self.records[k] = r[k]

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        return (
            f"kairos.Trace(dim={self.dim}, bodies={len(self.bodies)}, records={len(self.records)}, "
            f"end_time={self.end_time})"
        )


class GsdWriter:
    """A GSD file (HOOMD-blue's format, the ``hoomd`` schema) of a simulation's states, one
    frame per :meth:`append`, for HOOMD-blue, freud, OVITO and MDAnalysis::

        with kairos.GsdWriter("traj.gsd", scene) as gsd:
            for t in np.arange(0, 10, 0.5):
                sim.run(until=t, record=False)
                gsd.append(sim)

    Frames hold the box, positions (wrapped into HOOMD's centred box, with images),
    velocities, the types and shapes, and rigid bodies' orientations and angular momenta, as
    ``kairos frames --format gsd`` writes them (``docs/trace-format.md``, "GSD frames"), and
    each frame's time as ``log/kairos/time``. The file takes its name when closed; one left
    unclosed, or closed by an error in its ``with`` block, is not written. A file the scene (or
    an appended simulation's scene) was read from is refused (``ValueError``).
    """

    def __init__(self, path, scene: Scene):
        if not isinstance(scene, Scene):
            raise TypeError(f"GsdWriter needs a kairos.Scene, got {type(scene).__name__}")
        self._inner = _kairos.GsdWriter(os.fspath(path), scene._inner)

    def append(self, sim: "Simulation") -> None:
        """Writes the state of ``sim`` at its current time (:attr:`Simulation.time`)."""
        self._inner.append(sim._inner)

    @property
    def frames(self) -> int:
        return self._inner.frames

    def close(self) -> None:
        """Finishes the file and gives it its name."""
        self._inner.close()

    def __enter__(self) -> "GsdWriter":
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.close()
        else:
            self._inner.abandon()


def read_trace(path) -> Trace:
    """Reads a ``.ktrace`` file written by ``kairos run`` (checked whole: header, every record,
    checksum) into numpy structured arrays; a damaged or cut file raises :class:`TraceError`."""
    return Trace(_kairos.read_trace(os.fspath(path)))
