"""The collision queries on numpy inputs: convex distance and time of impact, and the triangle
features' continuous collision detection."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _kairos

#: ``time_of_impact``'s status codes.
TOI_NONE, TOI_HIT, TOI_OVERLAPPING, TOI_STALLED = 0, 1, 2, 3


def _plain(x):
    """Numpy arrays and scalars in a body's dict as Python lists and numbers."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _real(x, name: str) -> np.ndarray:
    """``x`` as an array of float64, refusing what would lose information on the way
    (complex numbers, strings, objects)."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must hold real numbers, got an array of {a.dtype}")
    return a.astype(np.float64)


def _batch(x, width: int, name: str) -> np.ndarray:
    if x is None:
        return np.empty(0)
    a = _real(x, name)
    if width == 1 and a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[1] != width:
        raise ValueError(f"`{name}` must have shape (k, {width}), got {a.shape}")
    return np.ascontiguousarray(a).reshape(-1)


def _dim(a: dict, dim: Optional[int], *arrays) -> int:
    if dim is not None:
        return int(dim)
    if "position" in a:
        return len(a["position"])
    for x in arrays:
        if x is not None:
            return np.asarray(x).shape[-1]
    raise ValueError("give `dim`: the bodies have no `position` to tell it by")


def _pair(a, b, until, dim, pos_a, rot_a, pos_b, rot_b, value, flag):
    a, b = _plain(dict(a)), _plain(dict(b))
    d = _dim(a, dim, pos_a, pos_b)
    rw = 1 if d == 2 else 4
    batched = any(x is not None for x in (pos_a, rot_a, pos_b, rot_b))
    batches = [
        _batch(pos_a, d, "pos_a"),
        _batch(rot_a, rw, "rot_a"),
        _batch(pos_b, d, "pos_b"),
        _batch(rot_b, rw, "rot_b"),
    ]
    given = [x for x, g in zip(batches, (pos_a, rot_a, pos_b, rot_b)) if g is not None]
    if given and any(x.size == 0 for x in given):
        # Batches of no rows: no queries (the core reads an empty batch as "the dict's pose").
        if any(x.size != 0 for x in given):
            raise ValueError("the positions and orientations must have the same number of rows")
        empty = np.empty((0, d))
        return {
            value: np.empty(0),
            flag: np.empty(0, dtype=bool if flag == "intersecting" else np.uint8),
            "point_a": empty,
            "point_b": empty.copy(),
            "normal": empty.copy(),
        }
    cols = _kairos.pair_query(d, a, b, *batches, None if until is None else float(until))
    out = {
        value: cols[value],
        flag: cols[flag].astype(bool) if flag == "intersecting" else cols[flag],
        "point_a": cols["point_a"].reshape(-1, d),
        "point_b": cols["point_b"].reshape(-1, d),
        "normal": cols["normal"].reshape(-1, d),
    }
    if not batched:
        out = {k: (v[0].item() if v.ndim == 1 else v[0]) for k, v in out.items()}
    return out


def distance(a: dict, b: dict, pos_a=None, rot_a=None, pos_b=None, rot_b=None, dim=None) -> dict:
    """The signed distance of two convex bodies: GJK's distance when apart, minus EPA's
    penetration depth when they overlap.

    ``a`` and ``b`` are dicts of a scene file's body keys (``docs/scene-format.md``), e.g.
    ``{"shape": "box", "half_extents": [1, 0.5], "position": [0, 0], "orientation": 0.3}``.
    Given ``pos_a`` / ``pos_b`` ``(k, d)`` and ``rot_a`` / ``rot_b`` (``(k,)`` angles in 2D,
    ``(k, 4)`` quaternions ``w, x, y, z`` in 3D), the query runs once per row, each replacing
    the dicts' poses, and the result's entries are arrays of ``k`` rows.

    Returns ``distance``, ``intersecting``, the closest (or deepest) points ``point_a``,
    ``point_b`` and the unit ``normal`` from ``a`` to ``b``.
    """
    return _pair(a, b, None, dim, pos_a, rot_a, pos_b, rot_b, "distance", "intersecting")


def time_of_impact(
    a: dict, b: dict, until: float, pos_a=None, rot_a=None, pos_b=None, rot_b=None, dim=None
) -> dict:
    """The first contact in ``[0, until]`` of two convex bodies moving with their dicts'
    ``velocity`` and ``angular_velocity`` (conservative advancement: never after the true first
    contact; it stops when the gap is within ``1e-7`` of the pair's size ``R_a + R_b``).

    Returns ``time`` (``inf`` when they do not touch by ``until``), ``status``
    (:data:`TOI_NONE`, :data:`TOI_HIT`, :data:`TOI_OVERLAPPING` at the start,
    :data:`TOI_STALLED`: the search stopped at ``time``, with no contact before it), and the
    points and normal at that time. Batches of poses as for :func:`distance`.
    """
    if until is None:
        raise ValueError("time_of_impact needs `until`")
    return _pair(a, b, until, dim, pos_a, rot_a, pos_b, rot_b, "time", "status")


def _features(start, end, edge: bool, tolerance: float) -> np.ndarray:
    s = np.ascontiguousarray(_real(start, "start"))
    e = np.ascontiguousarray(_real(end, "end"))
    single = s.shape == (4, 3)
    if single:
        s, e = s[None], e[None]
    if s.shape != e.shape or s.ndim != 3 or s.shape[1:] != (4, 3):
        raise ValueError(f"start and end must have shape (k, 4, 3), got {s.shape} and {e.shape}")
    t = _kairos.feature_ccd(s.reshape(-1), e.reshape(-1), edge, float(tolerance))
    return t[0].item() if single else t


def _mesh(which: str, m: dict):
    for k in ("vertices", "triangles"):
        if k not in m:
            raise ValueError(f"mesh {which}: no `{k}`")
    v = np.ascontiguousarray(_real(m["vertices"], f"mesh {which}: vertices"))
    t = np.asarray(m["triangles"])
    if t.dtype.kind not in "iu" and not (t.dtype.kind == "f" and np.all(t == np.floor(t))):
        raise TypeError(f"mesh {which}: triangles must be whole vertex indices, got {t.dtype}")
    t = np.ascontiguousarray(t, dtype=np.int64)
    if v.ndim != 2 or v.shape[1] != 3 or t.ndim != 2 or t.shape[1] != 3 or 0 in (len(v), len(t)):
        raise ValueError(f"mesh {which}: vertices must be (n, 3) and triangles (m, 3), n > 0 and m > 0")
    centre = m.get("centre")
    centre = v.mean(axis=0) if centre is None else np.asarray(centre, dtype=np.float64)
    three = lambda k: [float(x) for x in np.asarray(m.get(k, (0.0, 0.0, 0.0)), dtype=np.float64)]
    return (v.reshape(-1), t.reshape(-1), [float(x) for x in centre], three("velocity"),
            three("angular_velocity"))


def mesh_contact(a: dict, b: dict, until: float, separation: float = 1e-10) -> Optional[dict]:
    """The earliest contact in ``[0, until]`` of two triangle meshes, D2M's query (sphere
    trees, then the vertex-face and edge-edge tests by interval root finding: never missed).

    Each mesh is a dict: ``vertices`` ``(n, 3)`` and ``triangles`` ``(m, 3)`` at ``t = 0`` in
    the world frame (a closed or open surface), and its motion: ``velocity`` of its ``centre``
    (default: the vertices' mean) and ``angular_velocity`` about it (world frame), both
    constant. Returns None when they do not touch by ``until``, else ``time`` (moved back from
    the root finder's ``first`` so that the meshes are left about ``separation`` apart),
    ``first``, the contact ``point`` and unit ``normal`` (from ``a`` to ``b``) at ``first``,
    ``approach_speed``, and the features that meet (``kind`` ``vertex-face`` with ``vertex_of``,
    ``vertex`` and ``triangle``, or ``edge-edge`` with ``edge_a`` and ``edge_b``). The GIL is
    released while it runs; Ctrl-C stops it (``KeyboardInterrupt``) within about 50 ms.
    """
    return _kairos.mesh_contact(*_mesh("a", a), *_mesh("b", b), float(until), float(separation))


def vertex_face(start, end, tolerance: float = 1e-9):
    """The earliest time in ``[0, 1]`` at which a vertex ``p`` may touch a triangle ``a b c``,
    all four moving on straight lines from ``start`` to ``end`` (``(4, 3)``, rows ``p, a, b,
    c``, or ``(k, 4, 3)`` for ``k`` queries); ``inf`` where they never touch. Never misses a
    contact (interval arithmetic, D2M): a reported time is within ``tolerance`` before it."""
    return _features(start, end, False, tolerance)


def edge_edge(start, end, tolerance: float = 1e-9):
    """The earliest time in ``[0, 1]`` at which edge ``a b`` may touch edge ``c d`` (rows
    ``a, b, c, d`` of ``start`` and ``end``), as :func:`vertex_face`."""
    return _features(start, end, True, tolerance)
