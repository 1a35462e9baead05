"""A 2D Kairos scene of boxes on the floor plane y = 0, as the Box2D driver reads it.

Prints "friction gravity N", then "hx hy x y" for each box (the scene's order).
Usage: python3 scene2txt.py SCENE.toml > SCENE.txt   (Python 3.11+: tomllib)
"""

import sys
import tomllib

with open(sys.argv[1], "rb") as f:
    scene = tomllib.load(f)
if scene.get("dim") != 2:
    sys.exit(f"{sys.argv[1]}: a 2D scene is needed")
sim = scene["simulation"]
bodies = scene["bodies"]
print(sim["friction"], -sim["gravity"][1], len(bodies))
for i, b in enumerate(bodies):
    if b.get("shape") != "box":
        sys.exit(f"{sys.argv[1]}: body {i}: only boxes are read")
    hx, hy = b["half_extents"]
    x, y = b["position"]
    print(hx, hy, x, y)
