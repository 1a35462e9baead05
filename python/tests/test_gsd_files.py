"""GSD files written by `kairos frames --format gsd`, read with the `gsd` package.

Each test generates a scene with the command-line tool, runs it, writes the frames of its
trace both as GSD and as extended XYZ, and checks what `gsd.hoomd` reads against the XYZ
frames of the same times: the number of bodies, the box, positions, velocities, diameters,
types and shapes, and the orientations of rigid bodies.

The tool is `$KAIROS_BIN`, else `target/release/kairos` of this repository.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")
np = pytest.importorskip("numpy")
gsd_hoomd = pytest.importorskip("gsd.hoomd")

REPO = Path(__file__).resolve().parents[2]


def _binary():
    env = os.environ.get("KAIROS_BIN")
    if env:
        return Path(env)
    built = REPO / "target" / "release" / "kairos"
    return built if built.exists() else None


KAIROS = _binary()

pytestmark = pytest.mark.skipif(
    KAIROS is None,
    reason="no kairos binary: set KAIROS_BIN, or build target/release/kairos "
    "(cargo build --release -p kairos-cli)",
)


@pytest.fixture(scope="module", autouse=True)
def _binary_writes_gsd():
    """Fails clearly with a binary built before `frames --format`."""
    usage = subprocess.run(
        [str(KAIROS), "frames", "--help"], capture_output=True, text=True
    ).stdout
    if "--format" not in usage:
        pytest.fail(
            f"{KAIROS} has no `frames --format`: rebuild it "
            "(cargo build --release -p kairos-cli) or set KAIROS_BIN"
        )


def kairos(*args, cwd):
    done = subprocess.run(
        [str(KAIROS), *map(str, args)], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, f"kairos {' '.join(map(str, args))}: {done.stderr}"
    return done


def read_xyz(path):
    """Extended-XYZ frames: (comment, atoms) with each atom's numbers after its species."""
    frames = []
    with open(path) as f:
        lines = f.read().splitlines()
    k = 0
    while k < len(lines):
        n = int(lines[k])
        comment = lines[k + 1]
        atoms = np.array(
            [[float(c) for c in line.split()[1:]] for line in lines[k + 2 : k + 2 + n]]
        )
        frames.append((comment, atoms))
        k += 2 + n
    return frames


def frames_of(tmp_path, name, generate, every):
    """Generates (unless `generate` is None: NAME.toml is there), runs, and writes the
    frames as NAME.gsd and NAME.xyz; returns the GSD path and the XYZ frames."""
    if generate is not None:
        kairos("generate", *generate, "-o", f"{name}.toml", cwd=tmp_path)
    kairos("run", f"{name}.toml", "-q", "-o", f"{name}.ktrace", cwd=tmp_path)
    kairos(
        "frames", f"{name}.ktrace", "--every", every, "--format", "gsd",
        "-o", f"{name}.gsd", cwd=tmp_path,
    )
    kairos("frames", f"{name}.ktrace", "--every", every, "-o", f"{name}.xyz", cwd=tmp_path)
    return tmp_path / f"{name}.gsd", read_xyz(tmp_path / f"{name}.xyz")


def check_common(path, xyz, every, dim, periodic):
    """What every GSD frame shares with the XYZ frame of its time."""
    with gsd_hoomd.open(path, "r") as traj:
        assert len(traj) == len(xyz)
        for k, (frame, (comment, atoms)) in enumerate(zip(traj, xyz)):
            n = len(atoms)
            assert frame.particles.N == n
            assert frame.configuration.dimensions == dim
            assert frame.configuration.step == k
            t = float(frame.log["kairos/time"][0])
            assert t == pytest.approx(k * every, abs=0)
            assert f"Time={t!r}" in comment
            box = np.asarray(frame.configuration.box, dtype=np.float64)
            assert box[3:].tolist() == [0.0, 0.0, 0.0]
            assert (box[2] == 0.0) == (dim == 2)
            pos = np.asarray(frame.particles.position, dtype=np.float64)
            half = 0.5 * box[:dim]
            assert np.all(pos[:, :dim] >= -half) and np.all(pos[:, :dim] < half)
            if periodic:
                unwrapped = pos + frame.particles.image * box[:3]
            else:
                unwrapped = pos
            np.testing.assert_allclose(unwrapped, atoms[:, 0:3], rtol=0, atol=1e-5)
            np.testing.assert_array_equal(
                frame.particles.velocity, atoms[:, 4:7].astype(np.float32)
            )
            np.testing.assert_array_equal(
                frame.particles.diameter, (2.0 * atoms[:, 3]).astype(np.float32)
            )
            types = frame.particles.types
            shapes = frame.particles.type_shapes
            assert len(types) == len(shapes) >= 1
            assert frame.particles.typeid.max() < len(types)


def lattice(comment):
    values = comment.split('Lattice="')[1].split('"')[0].split()
    return [float(values[0]), float(values[4]), float(values[8])]


def test_balls_in_a_periodic_3d_box(tmp_path):
    path, xyz = frames_of(
        tmp_path, "gas", ["gas", "--n", "64", "--packing", "0.3", "--duration", "2"], 0.5
    )
    check_common(path, xyz, 0.5, 3, periodic=True)
    lengths = lattice(xyz[0][0])
    with gsd_hoomd.open(path, "r") as traj:
        first, last = traj[0], traj[-1]
        np.testing.assert_array_equal(
            first.configuration.box, np.array(lengths + [0, 0, 0], dtype=np.float32)
        )
        assert first.particles.types == ["ball"]
        assert first.particles.type_shapes == [{"type": "Sphere", "diameter": 1.0}]
        assert np.any(last.particles.image != 0), "some ball crossed the box"
        # Balls do not turn: the schema's default orientation.
        np.testing.assert_array_equal(last.particles.orientation[:, 0], 1.0)


def test_many_frames_outgrow_the_first_index_block(tmp_path):
    # 201 frames of 5 or more chunks: the index is moved and doubled several times.
    path, xyz = frames_of(
        tmp_path, "long", ["gas", "--n", "27", "--packing", "0.2", "--duration", "2"], 0.01
    )
    assert len(xyz) == 201
    check_common(path, xyz, 0.01, 3, periodic=True)


def test_balls_in_2d_between_walls(tmp_path):
    path, xyz = frames_of(
        tmp_path, "table", ["billiard", "--n", "20", "--seed", "3", "--dim", "2"], 1.0
    )
    check_common(path, xyz, 1.0, 2, periodic=False)
    with gsd_hoomd.open(path, "r") as traj:
        frame = traj[len(traj) - 1]
        box = frame.configuration.box
        # The smallest box centred on the origin that encloses the walls, grown by 1e-6.
        with open(tmp_path / "table.toml", "rb") as f:
            walls = tomllib.load(f)["walls"]
        ends = np.array([w[e] for w in walls for e in ("a", "b")])
        half = np.max(np.abs(ends), axis=0)
        np.testing.assert_array_equal(box[:2], (2 * half * (1 + 1e-6)).astype(np.float32))
        assert box[2] == 0.0
        np.testing.assert_array_equal(frame.particles.position[:, 2], 0.0)
        for i, t in enumerate(frame.particles.typeid):
            shape = frame.particles.type_shapes[t]
            assert shape["type"] == "Sphere"
            assert np.float32(shape["diameter"]) == frame.particles.diameter[i]
        assert frame.particles.types[0] == "ball"


def quaternions(atoms):
    """The XYZ orientation columns (x y z w) in the GSD order (w x y z)."""
    return atoms[:, [10, 7, 8, 9]].astype(np.float32)


def check_rigid(path, xyz, kind):
    with gsd_hoomd.open(path, "r") as traj:
        for frame, (_, atoms) in zip(traj, xyz):
            np.testing.assert_array_equal(frame.particles.orientation, quaternions(atoms))
            assert np.all(frame.particles.moment_inertia[:, 2] > 0)
            assert np.any(frame.particles.angmom != 0)
        for shape in traj[0].particles.type_shapes:
            assert shape["type"] == kind
            assert len(shape["vertices"]) >= 3
        for name in traj[0].particles.types:
            assert name.split("_")[0] in ("box", "polygon")


def test_rigid_bodies_in_2d(tmp_path):
    path, xyz = frames_of(
        tmp_path, "poly", ["polygons", "--n", "12", "--seed", "1", "--duration", "2"], 0.5
    )
    check_common(path, xyz, 0.5, 2, periodic=False)
    check_rigid(path, xyz, "Polygon")
    with gsd_hoomd.open(path, "r") as traj:
        # In 2D only Izz counts, and a polygon's vertices have two coordinates.
        assert np.all(traj[0].particles.moment_inertia[:, :2] == 0)
        assert all(
            len(v) == 2 for s in traj[0].particles.type_shapes for v in s["vertices"]
        )


def test_rigid_bodies_in_3d(tmp_path):
    path, xyz = frames_of(
        tmp_path, "cubes", ["boxes", "--n", "8", "--spin", "3", "--duration", "2"], 0.5
    )
    check_common(path, xyz, 0.5, 3, periodic=False)
    check_rigid(path, xyz, "ConvexPolyhedron")
    with gsd_hoomd.open(path, "r") as traj:
        frame = traj[-1]
        # Angular momentum: S = 1/2 im(conj(q) P) in the body frame, I w there.
        q = frame.particles.orientation.astype(np.float64)
        p = frame.particles.angmom.astype(np.float64)
        inertia = frame.particles.moment_inertia.astype(np.float64)
        omega_world = xyz[-1][1][:, 11:14]
        for qi, pi, ii, wi in zip(q, p, inertia, omega_world):
            s = 0.5 * quat_mul(conj(qi), pi)[1:]
            w_body = rotate(conj(qi), wi)
            np.testing.assert_allclose(s, ii * w_body, rtol=1e-4, atol=1e-6)
        for s in frame.particles.type_shapes:
            assert len(s["vertices"]) == 8


def conj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def rotate(q, v):
    return quat_mul(quat_mul(q, np.concatenate([[0.0], v])), conj(q))[1:]


def test_mesh_bodies(tmp_path):
    scene = REPO / "scenes" / "tumbling-tori.toml"
    if not scene.exists():
        pytest.skip(f"no mesh scene at {scene}")
    shutil.copy(scene, tmp_path / "tori.toml")
    path, xyz = frames_of(tmp_path, "tori", None, 1.0)
    check_common(path, xyz, 1.0, 3, periodic=False)
    with gsd_hoomd.open(path, "r") as traj:
        frame = traj[0]
        assert frame.particles.types == ["mesh", "mesh_1", "mesh_2"]
        assert frame.particles.typeid.tolist() == [0, 0, 1, 2]
        for shape in frame.particles.type_shapes:
            assert shape["type"] == "Mesh"
            n = len(shape["vertices"])
            assert all(len(v) == 3 for v in shape["vertices"])
            assert all(0 <= i < n for tri in shape["indices"] for i in tri)
        # The tori keep their axes: the trace's rotations as they are.
        for frame, (_, atoms) in zip(traj, xyz):
            np.testing.assert_array_equal(
                frame.particles.orientation[:2], quaternions(atoms)[:2]
            )


def test_type_shapes_are_json_the_gsd_package_parses(tmp_path):
    path, _ = frames_of(
        tmp_path, "one", ["polygons", "--n", "4", "--seed", "2", "--duration", "1"], 0.5
    )
    with gsd_hoomd.open(path, "r") as traj:
        for shape in traj[0].particles.type_shapes:
            assert json.loads(json.dumps(shape)) == shape
