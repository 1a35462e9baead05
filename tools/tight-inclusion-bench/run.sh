#!/usr/bin/env bash
# Tight-Inclusion beside Kairos's triangle-feature CCD on the CCD benchmark's query files
# (docs/benchmarks.md, "Triangle-feature CCD on the benchmark queries"): clones Tight-Inclusion
# at a pinned commit into target/tight-inclusion (network needed), compiles its library with the
# driver ti_bench.cpp (g++ -O3, its own benchmark's settings; needs Eigen 3 and spdlog with fmt,
# Debian's libeigen3-dev and libspdlog-dev), runs both on every folder of queries, one core
# each in turn, and prints a Markdown table: per folder and kind, the queries, false negatives,
# false positives and the mean time per query of each, and the ratio of the times.
#
# Usage: tools/tight-inclusion-bench/run.sh [queries folder] [path/to/kairos]
#        (defaults: tests/data/ccd-queries and target/release/kairos)
# TI_REPO: where to clone Tight-Inclusion from (default: its GitHub repository).
# REPEAT: how many times Kairos solves each file (default 20; Tight-Inclusion once: its slow
# queries take seconds).
set -euo pipefail
cd "$(dirname "$0")/../.."
QUERIES="${1:-$PWD/tests/data/ccd-queries}"
KAIROS="${2:-$PWD/target/release/kairos}"
REPEAT="${REPEAT:-20}"
COMMIT=ca9a8c24fe91de3376d77975c5e9978f88e05794
OUT="$PWD/target/tight-inclusion"
mkdir -p "$OUT"
if [ ! -d "$OUT/src/.git" ]; then
    git clone -q "${TI_REPO:-https://github.com/Continuous-Collision-Detection/Tight-Inclusion.git}" "$OUT/src"
fi
git -C "$OUT/src" checkout -q -f "$COMMIT"
TI="$OUT/src/src/tight_inclusion"
# Its CMake writes config.hpp from config.hpp.in and fetches spdlog with a bundled fmt; here the
# file is written the same way (double precision, nothing else) and the system's spdlog is used
# with its external fmt.
sed -e 's/@PROJECT_NAME@/TightInclusion/; s/@PROJECT_VERSION@/1.0.4/' \
    -e 's/@PROJECT_VERSION_MAJOR@/1/; s/@PROJECT_VERSION_MINOR@/0/; s/@PROJECT_VERSION_PATCH@/4/' \
    -e 's/#cmakedefine TIGHT_INCLUSION_WITH_DOUBLE_PRECISION/#define TIGHT_INCLUSION_WITH_DOUBLE_PRECISION/' \
    -e 's|#cmakedefine \(.*\)|/* #undef \1 */|' "$TI/config.hpp.in" >"$TI/config.hpp"
sed -i 's#spdlog/fmt/bundled/ranges.h#spdlog/fmt/ranges.h#' "$TI/logger.hpp"
if [ ! -x "$OUT/ti_bench" ] || [ tools/tight-inclusion-bench/ti_bench.cpp -nt "$OUT/ti_bench" ]; then
    # -mavx2: what its CMake picks on a processor with AVX2 (FindAVX).
    g++ -O3 -DNDEBUG -DSPDLOG_FMT_EXTERNAL -mavx2 -std=c++17 -I"$OUT/src/src" -I/usr/include/eigen3 \
        "$TI"/{ccd,interval,interval_root_finder,avx,logger}.cpp tools/tight-inclusion-bench/ti_bench.cpp \
        -lspdlog -lfmt -o "$OUT/ti_bench"
fi
"$KAIROS" ccd "$QUERIES" --repeat "$REPEAT" --json >"$OUT/kairos.json"
echo "| folder | kind | queries | Kairos FN | Kairos FP | Kairos µs | TI FN | TI FP | TI µs | TI / Kairos time |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for d in "$QUERIES"/*/; do
    name=$(basename "$d")
    "$OUT/ti_bench" "$d" 1 | while read -r kind _ n _ fn _ fp _ us; do
        [ "$n" = 0 ] && continue
        python3 - "$OUT/kairos.json" "$name/$kind" "$kind" "$n" "$fn" "$fp" "$us" <<'PY'
import json, sys
rows, folder, kind, n, fn, fp, us = sys.argv[1:]
k = next(r for r in json.load(open(rows)) if r["folder"] == folder)
kus = k["seconds_per_query"] * 1e6
print(f"| {folder.split('/')[0]} | {kind} | {n} | {k['false_negatives']} | {k['false_positives']} | "
      f"{kus:.2f} | {fn} | {fp} | {float(us):.2f} | {float(us) / kus:.0f} |")
PY
    done
done
"$OUT/ti_bench" "$QUERIES" 1 | while read -r kind _ n _ fn _ fp _ us; do
    python3 - "$OUT/kairos.json" "$kind" "$n" "$fn" "$fp" "$us" <<'PY'
import json, sys
rows, kind, n, fn, fp, us = sys.argv[1:]
k = next(r for r in json.load(open(rows)) if r["folder"] is None and r["kind"] == kind)
kus = k["seconds_per_query"] * 1e6
print(f"| **all** | {kind} | {n} | {k['false_negatives']} | {k['false_positives']} | {kus:.2f} | "
      f"{fn} | {fp} | {float(us):.2f} | {float(us) / kus:.0f} |")
PY
done
