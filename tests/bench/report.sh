#!/bin/sh
# report.sh OUT KVER MODE DEST: turn one guest's benchmark output (OUT:
# bench.txt, bench.jsonl, threads.dat) into DEST/KVER.md (the table),
# DEST/KVER.json (rows with every ratio, plus throughput and latency against
# threads) and DEST/KVER.png (16 KiB write throughput against writer threads
# for each atomic path and its baselines).
set -e
out=$1 k=$2 mode=$3 dest=$4
mkdir -p "$dest"
when=$(date -u +%Y-%m-%dT%H:%MZ)

python3 - "$out" "$k" "$mode" "$when" >"$dest/$k.json" <<'PYEOF'
import json, shlex, sys
out, k, mode, when = sys.argv[1:5]
rows = [json.loads(l) for l in open(out + "/bench.jsonl") if l.strip()]
pts, seen = [], set()
for line in open(out + "/threads.dat"):
    p, t, iops, p50, p99 = shlex.split(line)
    if (p, t) in seen:		# a baseline measured twice: its first run
        continue
    seen.add((p, t))
    pts.append({"path": p, "threads": int(t), "iops": float(iops),
                "p50_us": float(p50), "p99_us": float(p99)})
json.dump({"kernel": k, "date": when, "quick": mode == "quick", "rows": rows,
           "writes_16k": pts}, sys.stdout, indent=1)
print()
PYEOF

{
	echo "Kernel $k, \`make bench${mode:+ QUICK=1}\`, $when (TCG guest: ratios carry over, absolute numbers do not)."
	echo
	echo "| comparison | median ratio | min | max | target | verdict |"
	echo "|---|---|---|---|---|---|"
	cat "$out/bench.txt"
	echo
	echo "16 KiB writes (medians of the runs):"
	echo
	echo "| path | threads | IOPS | MB/s | p50 us | p99 us |"
	echo "|---|---|---|---|---|---|"
	python3 -c '
import json, sys
for q in json.load(open(sys.argv[1]))["writes_16k"]:
    print("| %s | %d | %.0f | %.0f | %.0f | %.0f |" % (q["path"], q["threads"], q["iops"],
          q["iops"] * 16 / 1024, q["p50_us"], q["p99_us"]))' "$dest/$k.json"
} >"$dest/$k.md"

# One data block a path: "threads MB/s", for gnuplot's index.
python3 - "$dest/$k.json" >/tmp/awkit-chart.dat <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
paths = []
for p in d["writes_16k"]:
    if p["path"] not in paths:
        paths.append(p["path"])
for p in paths:
    print('"%s"' % p)
    for q in sorted((q for q in d["writes_16k"] if q["path"] == p), key=lambda q: q["threads"]):
        print(q["threads"], q["iops"] * 16 / 1024)
    print()
    print()
PYEOF
gnuplot <<EOF
set terminal png size 900,560 noenhanced
set xrange [0.8:20]
set output "$dest/$k.png"
set title "16 KiB writes, $k (TCG guest)"
set xlabel "writer threads"
set ylabel "MB/s"
set logscale x 2
set xtics (1, 4, 16)
set key outside right
set grid
plot for [i=0:*] "/tmp/awkit-chart.dat" index i using 1:2 with linespoints lw 2 title columnheader(1)
EOF
echo "results: $dest/$k.md $dest/$k.json $dest/$k.png"
