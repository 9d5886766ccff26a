#!/usr/bin/env bash
# Before/after of two rbmscope-cli builds on one workload, in one run: the builds alternate, four
# times each, and the table gives the medians and their ratio, with the load average before and
# after (CHANGELOG.md, "Speed: before and after").
#   scripts/ab_workloads.sh pt OLD_CLI NEW_CLI MODEL.json   # PT on the 784x500 BRBM of bench.sh, 8 x 16, DEO,
#                                                          # 1000 scans, float32/float64 x 1/2 threads
#   scripts/ab_workloads.sh train OLD_CLI NEW_CLI          # PCD-1 / CD-1 on binarized Fashion-MNIST, 300 updates,
#                                                          # float64/float32, 2 threads; then compares the models
set -euo pipefail
what=$1 old=$2 new=$3 model=${4:-}
data=${FASHION_MNIST:-/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
betas=$(/usr/bin/python3 -c "print(','.join(repr(x) for x in [0.0] + [0.7 ** (15 - k) for k in range(1, 16)]))")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in 1 2 3 4; do
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    if [ "$what" = pt ]; then
      for p in float32 float64; do for t in 1 2; do
        "$bin" pt "$model" --scheme deo --chains 8 --betas "$betas" --sweeps 1000 --seed 1 --threads "$t" \
          --precision "$p" > "$tmp/r.json" 2>/dev/null
        /usr/bin/python3 -c "import json; j=json.load(open('$tmp/r.json')); print('$side', '$p threads $t', 128 * 1000 / j['seconds'])"
      done; done
    else
      for m in pcd cd; do for p in float64 float32; do
        flag=(); [ "$p" = float32 ] && flag=(--float32)
        "$bin" train --data "$data" --binarize 0.5 --hidden 500 --method "$m" --batch 100 --chains 100 --k 1 \
          --updates 300 --lr 0.01 --monitor-every 0 --threads 2 --seed 3 "${flag[@]}" \
          --out "$tmp/model_${side}_${m}_$p.json" > "$tmp/r.json" 2>/dev/null
        /usr/bin/python3 -c "import json; j=json.load(open('$tmp/r.json')); print('$side', '$m $p', j['timing']['updates_per_s'])"
      done; done
    fi
  done
done | /usr/bin/python3 -c "
import sys, statistics, collections
d = collections.defaultdict(list)
for line in sys.stdin:
    side, *case, v = line.split()
    d[(' '.join(case), side)].append(float(v))
print('| case | before (median of 4) | after (median of 4) | after / before |')
print('|---|---:|---:|---:|')
for k in sorted({c for c, _ in d}):
    a, b = statistics.median(d[(k, 'old')]), statistics.median(d[(k, 'new')])
    print(f'| {k} | {a:,.1f} | {b:,.1f} | {b / a:.2f}× |')
"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$what" = train ]; then
  for m in pcd cd; do for p in float64 float32; do
    cmp -s "$tmp/model_old_${m}_$p.json" "$tmp/model_new_${m}_$p.json" && echo "$m $p: models identical" \
      || echo "$m $p: models differ"
  done; done
fi
