#!/usr/bin/env bash
# Box2D v3 beside Kairos's stepped engine on the scenes of docs/benchmarks.md ("The stepped
# engine beside Box2D"): clones Box2D at a pinned commit into target/box2d (network needed),
# builds it (CMake, release; SSE2 and AVX2), builds the driver b2bench.c against it, writes the
# scenes with `kairos generate` and prints, per scene, Box2D's median wall time of a step and
# the largest move of a box. Kairos's own figures come from the rapier benchmark crate's run.
#
# Usage: tools/box2d-bench/run.sh [path/to/kairos]    (default: target/release/kairos)
# BOX2D_REPO: where to clone Box2D from (default: its GitHub repository).
set -euo pipefail
cd "$(dirname "$0")/../.."
KAIROS="${1:-$PWD/target/release/kairos}"
COMMIT=617d32ab02570930625bbcb8479f54be9bf8d045
OUT="$PWD/target/box2d"
mkdir -p "$OUT"
if [ ! -d "$OUT/src/.git" ]; then
    git clone -q "${BOX2D_REPO:-https://github.com/erincatto/box2d.git}" "$OUT/src"
fi
git -C "$OUT/src" checkout -q "$COMMIT"
for v in sse2 avx2; do
    avx=OFF
    [ "$v" = avx2 ] && avx=ON
    cmake -S "$OUT/src" -B "$OUT/build-$v" -DCMAKE_BUILD_TYPE=Release -DBOX2D_SAMPLES=OFF \
        -DBOX2D_UNIT_TESTS=OFF -DBOX2D_BENCHMARKS=OFF -DBOX2D_VALIDATE=OFF -DBOX2D_AVX2=$avx >/dev/null
    cmake --build "$OUT/build-$v" -j2 >/dev/null
    cc -O2 -I"$OUT/src/include" -o "$OUT/b2bench-$v" tools/box2d-bench/b2bench.c \
        "$OUT/build-$v/src/libbox2d.a" -lm -lpthread
done
"$KAIROS" generate pyramid --base 100 --duration 2 -o "$OUT/pyramid100.toml" >/dev/null
"$KAIROS" generate pyramids --count 20 --base 10 --duration 2 -o "$OUT/pyramids20.toml" >/dev/null
"$KAIROS" generate pyramid --base 20 --duration 10 -o "$OUT/pyramid20.toml" >/dev/null
for s in pyramid100 pyramids20 pyramid20; do
    python3 tools/box2d-bench/scene2txt.py "$OUT/$s.toml" >"$OUT/$s.txt"
done
for v in sse2 avx2; do
    echo "Box2D $v, 2D pyramid of base 100, 2 s:   $("$OUT/b2bench-$v" "$OUT/pyramid100.txt" 120)"
    echo "Box2D $v, 20 pyramids of base 10, 2 s:  $("$OUT/b2bench-$v" "$OUT/pyramids20.txt" 120)"
    echo "Box2D $v, 2D pyramid of base 20, 10 s, sleeping on: $("$OUT/b2bench-$v" "$OUT/pyramid20.txt" 600 1)"
done
