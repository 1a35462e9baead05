"""Reads Kairos traces with numpy exactly as docs/trace-format.md says, and checks them against
`kairos export`: a version 2 trace of balls, version 3 traces of rigid bodies (2D polygons,
3D boxes) whose final positions, rotations and angular velocities are replayed here from the
header and the records, and the trace of a drop under gravity resumed from a checkpoint, whose
header says which bodies sleep at its start. Usage: python3 read_trace.py PATH/TO/kairos"""
import csv
import os
import struct
import subprocess
import sys
import tempfile
import tomllib

import numpy as np

RECORD = np.dtype([
    ("time", "<f8"), ("dt", "<f8"), ("kind", "<u4"), ("a", "<u4"), ("b", "<u4"), ("sleep", "<u4"),
    ("pos_a", "<f8", (3,)), ("vel_a", "<f8", (3,)), ("pos_b", "<f8", (3,)), ("vel_b", "<f8", (3,)),
])
assert RECORD.itemsize == 128
BODY = np.dtype([("radius", "<f8"), ("mass", "<f8"), ("time", "<f8"), ("pos", "<f8", (3,)), ("vel", "<f8", (3,))])
assert BODY.itemsize == 72
# Version 3 (rigid bodies): rotations ([angle, 0, 0, 0] in 2D, the quaternion [w, x, y, z] in 3D)
# and angular velocities ([ω, 0, 0] in 2D, [ωx, ωy, ωz] in 3D) appended.
BODY3 = np.dtype(BODY.descr + [("rot", "<f8", (4,)), ("omega", "<f8", (3,))])
assert BODY3.itemsize == 128
RECORD3 = np.dtype(RECORD.descr + [
    ("rot_a", "<f8", (4,)), ("omega_a", "<f8", (3,)),
    ("rot_b", "<f8", (4,)), ("omega_b", "<f8", (3,)),
])
assert RECORD3.itemsize == 240


def main(kairos):
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "demo.ktrace")
        subprocess.run([kairos, "demo", "--n", "80", "-q", "-o", trace, "--broad-phase", "kaya-bvh"], check=True)
        subprocess.run([kairos, "export", trace, "--events", os.path.join(d, "e.csv"),
                        "--final", os.path.join(d, "f.csv")], check=True)
        raw = open(trace, "rb").read()
        assert raw[:8] == b"KAIROSTR" and raw[-32:-24] == b"KAIROEND"
        assert struct.unpack_from("<I", raw, 8)[0] == 2
        header_len = struct.unpack_from("<Q", raw, 16)[0]
        count = struct.unpack_from("<Q", raw, len(raw) - 24)[0]
        events = np.fromfile(trace, dtype=RECORD, count=count, offset=header_len)
        rows = list(csv.DictReader(open(os.path.join(d, "e.csv"))))
        assert len(rows) == len(events) == count > 100, (len(rows), len(events), count)
        kinds = {"body-body": 0, "body-wall": 1}
        for r, e in zip(rows, events):
            assert float(r["time"]) == e["time"], (r, e)
            assert kinds[r["kind"]] == e["kind"] and int(r["a"]) == e["a"] and int(r["b"]) == e["b"]
        assert np.all(np.diff(events["time"]) >= 0)
        assert np.all(events["dt"] > 0), "kaya-bvh records its look-ahead"
        bb = events[events["kind"] == 0]
        assert np.all(bb["a"] < bb["b"])
        # The embedded scene (without its bodies) parses, the body states follow it, and every
        # body-body record is at contact distance.
        off = 32
        name_len = struct.unpack_from("<I", raw, off)[0]
        off += 4 + name_len
        scene_len = struct.unpack_from("<I", raw, off)[0]
        scene = tomllib.loads(raw[off + 4:off + 4 + scene_len].decode())
        assert "bodies" not in scene and scene["dim"] == 2
        off = (off + 4 + scene_len + 7) // 8 * 8
        start_time, n = struct.unpack_from("<dQ", raw, off)
        assert start_time == 0.0 and n == 80
        bodies = np.frombuffer(raw, dtype=BODY, count=n, offset=off + 16)
        assert off + 16 + n * BODY.itemsize == header_len
        assert np.all(bodies["time"] == 0.0) and np.all(bodies["pos"][:, 2] == 0.0)
        radii = bodies["radius"]
        sep = np.linalg.norm(bb["pos_a"] - bb["pos_b"], axis=1)
        sigma = radii[bb["a"]] + radii[bb["b"]]
        assert np.max(np.abs(sep - sigma) / sigma) < 1e-9, np.max(np.abs(sep - sigma) / sigma)
    print(f"trace read by numpy: {count} events match kairos export")
    rigid = [check_rigid(kairos, "polygons", 2), check_rigid(kairos, "boxes", 3)]
    print(f"version 3 traces read by numpy: {rigid[0]} (2D) and {rigid[1]} (3D) events, final "
          "states match kairos export --final")
    resumed = check_resumed_drop(kairos)
    print(f"resumed gravity trace read by numpy: {resumed} events, sleep states in its header, "
          "final states match kairos export --final")
    print("4 passed, 0 failed")


def quat_mul(p, q):
    """The Hamilton product of quaternions [w, x, y, z]."""
    pw, px, py, pz = p
    qw, qx, qy, qz = q
    return np.array([
        pw * qw - px * qx - py * qy - pz * qz,
        pw * qx + px * qw + py * qz - pz * qy,
        pw * qy - px * qz + py * qw + pz * qx,
        pw * qz + px * qy - py * qx + pz * qw,
    ])


def turned(rot, omega, dt, dim):
    """The rotation `dt` after `rot` at constant angular velocity `omega` (world frame): what
    the simulation does in 2D and for the isotropic bodies (cubes) of `generate boxes`."""
    if dim == 2:
        return np.array([rot[0] + omega[0] * dt, 0.0, 0.0, 0.0])
    theta = np.asarray(omega) * dt
    phi = 0.5 * np.linalg.norm(theta)
    if phi == 0.0:
        return np.asarray(rot)
    dq = np.concatenate([[np.cos(phi)], np.sin(phi) * theta / (2.0 * phi)])
    return quat_mul(dq, rot)


def check_rigid(kairos, generator, dim):
    """Generates a small rigid scene, runs it with a trace, reads the version 3 trace with numpy
    and replays every body to the end time: positions, rotations and angular velocities must
    match `kairos export --final` to round-off. Returns the number of events."""
    with tempfile.TemporaryDirectory() as d:
        scene_path = os.path.join(d, f"{generator}.toml")
        trace = os.path.join(d, f"{generator}.ktrace")
        final = os.path.join(d, "final.csv")
        subprocess.run([kairos, "generate", generator, "--n", "16", "--seed", "4", "--spin", "3",
                        "--duration", "8", "-o", scene_path], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([kairos, "run", scene_path, "-q", "-o", trace], check=True)
        subprocess.run([kairos, "export", trace, "--final", final], check=True)
        raw = open(trace, "rb").read()
        assert raw[:8] == b"KAIROSTR" and raw[-32:-24] == b"KAIROEND"
        version, file_dim, header_len, record_size = struct.unpack_from("<IIQI", raw, 8)
        assert (version, file_dim, record_size) == (3, dim, 240), (version, file_dim, record_size)
        count, _, end_time = struct.unpack_from("<QQd", raw, len(raw) - 24)
        off = 32
        name_len = struct.unpack_from("<I", raw, off)[0]
        off += 4 + name_len
        scene_len = struct.unpack_from("<I", raw, off)[0]
        scene = tomllib.loads(raw[off + 4:off + 4 + scene_len].decode())
        # Version 3 keeps the bodies' tables: their shapes.
        assert scene["dim"] == dim and len(scene["bodies"]) == 16
        assert all("shape" in b for b in scene["bodies"])
        off = (off + 4 + scene_len + 7) // 8 * 8
        start_time, n = struct.unpack_from("<dQ", raw, off)
        assert start_time == 0.0 and n == 16
        bodies = np.frombuffer(raw, dtype=BODY3, count=n, offset=off + 16)
        assert off + 16 + n * BODY3.itemsize == header_len
        events = np.frombuffer(raw, dtype=RECORD3, count=count, offset=header_len)
        assert len(raw) == header_len + count * 240 + 40
        assert count > 10 and np.all(np.diff(events["time"]) >= 0) and events["time"][-1] <= end_time
        # Each body's last state: the header's, then every record of it in order.
        last = {i: (bodies["time"][i], bodies["pos"][i], bodies["vel"][i], bodies["rot"][i],
                    bodies["omega"][i]) for i in range(n)}
        for e in events:
            last[int(e["a"])] = (e["time"], e["pos_a"], e["vel_a"], e["rot_a"], e["omega_a"])
            if e["kind"] == 0:
                last[int(e["b"])] = (e["time"], e["pos_b"], e["vel_b"], e["rot_b"], e["omega_b"])
        if dim == 3:
            norms = np.linalg.norm(events["rot_a"], axis=1)
            assert np.max(np.abs(norms - 1.0)) < 1e-12, "unit quaternions"
        else:
            assert np.all(events["rot_a"][:, 1:] == 0.0) and np.all(events["omega_a"][:, 1:] == 0.0)
        rows = list(csv.DictReader(open(final)))
        assert len(rows) == n
        angular = ["angle", "omega"] if dim == 2 else ["qw", "qx", "qy", "qz", "wx", "wy", "wz"]
        axes = "xyz"[:dim]
        turned_any = False
        for i, row in enumerate(rows):
            t, pos, vel, rot, omega = last[i]
            dt = end_time - t
            want_pos = pos[:dim] + vel[:dim] * dt
            want_rot = turned(rot, omega, dt, dim)
            got_pos = np.array([float(row[a]) for a in axes])
            got_vel = np.array([float(row["v" + a]) for a in axes])
            got = np.array([float(row[k]) for k in angular])
            want = np.concatenate([want_rot[:1], omega[:1]]) if dim == 2 else np.concatenate([want_rot, omega])
            assert np.allclose(got_pos, want_pos, rtol=0, atol=1e-9), (i, got_pos, want_pos)
            assert np.array_equal(got_vel, vel[:dim]), (i, got_vel, vel)
            assert np.allclose(got, want, rtol=0, atol=1e-9), (i, got, want)
            turned_any |= not np.allclose(got[:1], bodies["rot"][i][:1])
        assert turned_any, "the bodies turned"
    return int(count)


def check_resumed_drop(kairos):
    """A 2D drop under gravity run with checkpoints, then resumed from the last one: the resumed
    trace's header has flag 1 and one sleep byte per body after the body states; replaying it
    here (sleeping bodies still, the others on parabolas) gives `kairos export --final`, which
    is the uninterrupted run's. Returns the number of events of the resumed trace."""
    with tempfile.TemporaryDirectory() as d:
        path = lambda name: os.path.join(d, name)
        subprocess.run([kairos, "generate", "drop", "--balls", "8", "--boxes", "8", "--seed", "1",
                        "--duration", "4", "-o", path("drop.toml")], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([kairos, "run", path("drop.toml"), "-q", "-o", path("full.ktrace"),
                        "--checkpoint", path("drop.kck"), "--every", "3"], check=True)
        subprocess.run([kairos, "run", "--resume", path("drop.kck"), "-q", "-o",
                        path("rest.ktrace")], check=True)
        for t in ["full", "rest"]:
            subprocess.run([kairos, "export", path(f"{t}.ktrace"), "--final", path(f"{t}.csv")],
                           check=True)
        assert open(path("full.csv")).read() == open(path("rest.csv")).read()
        raw = open(path("rest.ktrace"), "rb").read()
        version, dim, header_len, record_size, flags = struct.unpack_from("<IIQII", raw, 8)
        assert (version, dim, record_size, flags) == (3, 2, 240, 1), (version, record_size, flags)
        count, _, end_time = struct.unpack_from("<QQd", raw, len(raw) - 24)
        off = 32
        off += 4 + struct.unpack_from("<I", raw, off)[0]
        scene_len = struct.unpack_from("<I", raw, off)[0]
        scene = tomllib.loads(raw[off + 4:off + 4 + scene_len].decode())
        g = np.array(scene["simulation"]["gravity"], dtype=float)
        off = (off + 4 + scene_len + 7) // 8 * 8
        start_time, n = struct.unpack_from("<dQ", raw, off)
        assert start_time >= 2.0 and n == 16
        bodies = np.frombuffer(raw, dtype=BODY3, count=n, offset=off + 16)
        sleep_at = off + 16 + n * BODY3.itemsize
        asleep = np.frombuffer(raw, dtype="<u1", count=n, offset=sleep_at)
        assert sleep_at + (n + 7) // 8 * 8 == header_len
        assert set(asleep.tolist()) == {0, 1}, asleep
        assert np.all(bodies["time"] <= start_time)
        events = np.frombuffer(raw, dtype=RECORD3, count=count, offset=header_len)
        last = {i: (bodies["time"][i], bodies["pos"][i], bodies["vel"][i], bool(asleep[i]))
                for i in range(n)}
        for e in events:
            last[int(e["a"])] = (e["time"], e["pos_a"], e["vel_a"], bool(e["sleep"] & 1))
            if e["kind"] == 0:
                last[int(e["b"])] = (e["time"], e["pos_b"], e["vel_b"], bool(e["sleep"] & 2))
        # Some body sleeps from the start to the end: only its sleep byte keeps it still.
        touched = set(events["a"].tolist()) | set(events["b"][events["kind"] == 0].tolist())
        assert any(asleep[i] and i not in touched for i in range(n))
        rows = list(csv.DictReader(open(path("rest.csv"))))
        assert len(rows) == n
        for i, row in enumerate(rows):
            t, pos, vel, sleeps = last[i]
            dt = end_time - t
            fall = 0.0 if sleeps else 1.0
            want_pos = pos[:2] + vel[:2] * dt + fall * g * 0.5 * dt * dt
            want_vel = vel[:2] + fall * g * dt
            got_pos = np.array([float(row["x"]), float(row["y"])])
            got_vel = np.array([float(row["vx"]), float(row["vy"])])
            assert np.allclose(got_pos, want_pos, rtol=0, atol=1e-9), (i, got_pos, want_pos)
            assert np.allclose(got_vel, want_vel, rtol=0, atol=1e-9), (i, got_vel, want_vel)
    return int(count)


if __name__ == "__main__":
    main(sys.argv[1])
