#!/bin/sh
# report.sh OUT KVER MODE DEST PROFILE: turn one guest's benchmark output
# for PROFILE (OUT: bench-PROFILE.txt, .jsonl, threads-PROFILE.dat,
# model-PROFILE.txt) into DEST/KVER-PROFILE.md (the table),
# DEST/KVER-PROFILE.json (rows with every ratio, plus throughput, latency
# and CPU per write against writers) and DEST/KVER-PROFILE.png (throughput
# and p99 latency against writer threads for each path). A run of some
# rows alone (AWKIT_BENCH_ONLY, make bench ONLY=...) goes to
# KVER-PROFILE-only-ROWS.*, beside the full run's files, not over them.
set -e
out=$1 k=$2 mode=$3 dest=$4 prof=$5
mkdir -p "$dest"
when=$(date -u +%Y-%m-%dT%H:%MZ)
only=$(echo "${AWKIT_BENCH_ONLY:-}" | tr ', ' '--')
base=$dest/$k-$prof${only:+-only-$only}
model=$(cat "$out/model-$prof.txt" 2>/dev/null || echo unknown)

python3 - "$out" "$k" "$mode" "$when" "$prof" "$model" >"$base.json" <<'PYEOF'
import json, shlex, sys
out, k, mode, when, prof, model = sys.argv[1:7]
rows = [json.loads(l) for l in open("%s/bench-%s.jsonl" % (out, prof)) if l.strip()]
pts, seen = [], set()
for line in open("%s/threads-%s.dat" % (out, prof)):
    p, t, iops, p50, p99, cpu = shlex.split(line)
    if (p, t) in seen:		# a baseline measured twice: its first run
        continue
    seen.add((p, t))
    pts.append({"path": p, "threads": int(t), "iops": float(iops),
                "p50_us": float(p50), "p99_us": float(p99),
                "cpu_us_per_write": float(cpu)})
json.dump({"kernel": k, "profile": prof, "device_model": model, "date": when,
           "quick": mode == "quick", "rows": rows, "writes": pts},
          sys.stdout, indent=1)
print()
PYEOF

{
	echo "Kernel $k, profile \`$prof\`, \`make bench${mode:+ QUICK=1}${AWKIT_BENCH_ONLY:+ ONLY=$AWKIT_BENCH_ONLY}\`, $when (TCG guest: ratios carry over, absolute numbers do not)."
	echo
	echo "Device model: $model."
	echo
	echo "| comparison | median ratio | min | max | target | verdict |"
	echo "|---|---|---|---|---|---|"
	cat "$out/bench-$prof.txt"
	python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["writes"]
if w:
    print("\nWrites (medians of the runs; CPU: the guest'"'"'s busy time per write):\n")
    print("| path | writers | IOPS | MB/s | p50 us | p99 us | CPU us/write |")
    print("|---|---|---|---|---|---|---|")
for q in w:
    kib = 8 if "8 KiB" in q["path"] else 16
    print("| %s | %d | %.0f | %.0f | %.0f | %.0f | %.1f |" % (q["path"], q["threads"], q["iops"],
          q["iops"] * kib / 1024, q["p50_us"], q["p99_us"], q["cpu_us_per_write"]))' "$base.json"
} >"$base.md"

# One data block a path: "threads IOPS p99", for gnuplot's index.
python3 - "$base.json" >/tmp/awkit-chart.dat <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
paths = []
for p in d["writes"]:
    if p["path"] not in paths:
        paths.append(p["path"])
for p in paths:
    print('"%s"' % p)
    for q in sorted((q for q in d["writes"] if q["path"] == p), key=lambda q: q["threads"]):
        print(q["threads"], q["iops"], q["p99_us"] / 1000)
    print()
    print()
PYEOF
# Rows without write points (make bench ONLY=untorn) have no chart.
if [ ! -s /tmp/awkit-chart.dat ]; then
	echo "results: $base.md $base.json"
	exit 0
fi
gnuplot <<EOF
set terminal png size 1100,900 noenhanced
set output "$base.png"
set multiplot layout 2,1 title "$k, profile $prof: $model (TCG guest)"
set xrange [0.8:20]
set logscale x 2
set xtics (1, 4, 16)
set key outside right
set grid
set xlabel "writer threads"
set ylabel "writes/s"
plot for [i=0:*] "/tmp/awkit-chart.dat" index i using 1:2 with linespoints lw 2 title columnheader(1)
set ylabel "p99 latency, ms"
set logscale y
plot for [i=0:*] "/tmp/awkit-chart.dat" index i using 1:3 with linespoints lw 2 title columnheader(1)
unset multiplot
EOF
echo "results: $base.md $base.json $base.png"
