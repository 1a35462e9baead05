#!/bin/bash
# Load time and peak memory of `kairos run` on generated 3D gases (bodies in XYZ, and TOML up to 10^5),
# beside the peak of the same simulation built in memory (`bench scale`).
K=${K:-$(cd "$(dirname "$0")/.." && pwd)/target/release/kairos}
cd "$(mktemp -d)"
echo "| N | scene file | broad phase | load (s) | peak RSS / body, run from file | peak RSS / body, in memory (bench scale) | added |"
echo "|---:|---|---|---:|---:|---:|---:|"
$K bench scale --n 10000,100000,1000000 --dims 3 --no-thesis --collisions-per-body 0.01 --csv mem.csv >/dev/null 2>&1
for n in 10000 100000 1000000; do
  for form in xyz toml; do
    [ $form = toml ] && [ $n = 1000000 ] && continue
    $K generate gas --dim 3 --n $n --packing 0.45 --duration 1e-9 -o g.toml --bodies-in $form >/dev/null
    for bp in calendar calendar-lists; do
      /usr/bin/time -f "%M" -o mem.txt $K run g.toml --no-trace -q --broad-phase $bp --summary-json s.json
      python3 - "$n" "$form" "$bp" <<'PY'
import csv, json, sys
n, form, bp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
j = json.load(open("s.json")); peak = int(open("mem.txt").read().split()[-1]) * 1024 / n
ref = [float(r["bytes_per_body"]) for r in csv.DictReader(open("mem.csv")) if int(r["n"]) == n and r["broad_phase"] == bp and r["scene"] == "gas"][0]
print(f"| {n:,} | {form.upper()} | {bp} | {j['load_seconds']:.3f} | {peak:.0f} | {ref:.0f} | {100*(peak/ref-1):+.0f}% |")
PY
    done
  done
done
