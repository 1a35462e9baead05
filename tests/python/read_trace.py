"""Reads a Kairos trace with numpy exactly as docs/trace-format.md says, and checks it against
`kairos export`. Usage: python3 read_trace.py PATH/TO/kairos"""
import csv
import os
import struct
import subprocess
import sys
import tempfile
import tomllib

import numpy as np

RECORD = np.dtype([
    ("time", "<f8"), ("dt", "<f8"), ("kind", "<u4"), ("a", "<u4"), ("b", "<u4"), ("reserved", "<u4"),
    ("pos_a", "<f8", (3,)), ("vel_a", "<f8", (3,)), ("pos_b", "<f8", (3,)), ("vel_b", "<f8", (3,)),
])
assert RECORD.itemsize == 128
BODY = np.dtype([("radius", "<f8"), ("mass", "<f8"), ("time", "<f8"), ("pos", "<f8", (3,)), ("vel", "<f8", (3,))])
assert BODY.itemsize == 72


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
        kinds = {"ball-ball": 0, "ball-wall": 1}
        for r, e in zip(rows, events):
            assert float(r["time"]) == e["time"], (r, e)
            assert kinds[r["kind"]] == e["kind"] and int(r["a"]) == e["a"] and int(r["b"]) == e["b"]
        assert np.all(np.diff(events["time"]) >= 0)
        assert np.all(events["dt"] > 0), "kaya-bvh records its look-ahead"
        bb = events[events["kind"] == 0]
        assert np.all(bb["a"] < bb["b"])
        # The embedded scene (without its bodies) parses, the body states follow it, and every
        # ball-ball record is at contact distance.
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
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main(sys.argv[1])
