#!/usr/bin/python3
"""The workload cases of scripts/bench.sh beside AIS: parallel tempering, PCD-1 and CD-1 training
and sampling, rbmscope against the Python peers (../shared/peers/pt_peer.py, train_peer.py) in the
same invocation. Called by bench.sh; standard library only (the peers import NumPy / PyTorch).

usage: bench_workloads.py OUT_DIR CLI MODEL.json THREADS
  OUT_DIR   where bench.sh keeps its raw results (rbmscope.json of the AIS cases is read from it)
  MODEL     the 784x500 BRBM of the AIS cases (the peers' model when ais_peer.py wrote it)
Environment: RBMSCOPE_PEERS_DIR (default ../shared/peers beside the repository), PT_SCANS (200),
TRAIN_UPDATES (200), SAMPLE_SWEEPS (100), FASHION_MNIST (the Debian package's training images),
WORKLOAD_REPEATS (7).

Every rate is the median of WORKLOAD_REPEATS runs, rbmscope's and each peer's (one run each swung
by 20-30 % on this shared 2-core machine: PT's ratio to the faster peer read 6.2x in one run and
4.5x in the next, with nothing changed). The runs of one workload alternate, rbmscope's and the
peers' in turn, round after round: a slow spell of the machine then slows both sides, where blocks
of three runs of one side let it decide a ratio (rbmscope's PT read 136 k replica-sweeps/s in one
block, 160 k in the next minutes). Seven rounds, not three: two whole bench.sh runs of one build
minutes apart, three rounds each, read PT 5.27x and 4.88x, PCD-1 4.92x and 5.78x (the NumPy peer
93 and 71 updates/s); the medians of three runs still moved with the machine's spells.

Rates: rbmscope's from the time it reports for the work itself (pt "seconds", train
"timing.seconds.updates"); sample reports none, so its rate is chains x the extra sweeps over the
extra wall time of a second, longer run (loading and printing cancel). The peers time their own
loops. The peers' model and data are the same files rbmscope reads.
"""
import json
import os
import statistics
import subprocess
import sys
import time

out, cli, model, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
peers = os.environ.get('RBMSCOPE_PEERS_DIR', os.path.join(repo, '..', 'shared', 'peers'))
scans = int(os.environ.get('PT_SCANS', '200'))
updates = int(os.environ.get('TRAIN_UPDATES', '200'))
sweeps = int(os.environ.get('SAMPLE_SWEEPS', '100'))
images = os.environ.get('FASHION_MNIST', '/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz')
repeats = max(1, int(os.environ.get('WORKLOAD_REPEATS', '7')))
peer_env = {k: v for k, v in os.environ.items() if k not in ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE')}


def run(argv, env=None, parse=True):
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, dt, (p.stderr.strip().splitlines() or ['exit %d' % p.returncode])[-1]
    if not parse:
        return None, dt, ''
    for text in (p.stdout, (p.stdout.strip().splitlines() or [''])[-1]):  # rbmscope's JSON, or a peer's last line
        try:
            return json.loads(text), dt, ''
        except ValueError:
            pass
    return None, dt, 'unreadable output'


def peer(script, kind, args):
    path = os.path.join(peers, script)
    if not os.path.exists(path):
        return None, '%s not found' % path
    r, _, err = run(['/usr/bin/python3', path, kind] + [str(a) for a in args], env=peer_env)
    return r, err


def median_rates(measures):
    """{name: measure} -> {name: (median rate or None, error text)}, from `repeats` rounds that call
    every measure once in turn (rbmscope's and the peers' alternate, so a slow spell of the shared
    machine falls on both sides rather than on one side's block of runs). A measure returns
    (rate or None, error text); its result is None when any call failed."""
    rates = {name: [] for name in measures}
    errs = {name: [] for name in measures}
    for _ in range(repeats):
        for name, measure in measures.items():
            rate, err = measure()
            if rate is None:
                errs[name].append(err or 'no rate')
            else:
                rates[name].append(rate)
    return {name: ((None, errs[name][0]) if errs[name] else (statistics.median(rates[name]), '')) for name in measures}


def median_rate(measure):
    """The median of `repeats` calls of measure() -> (rate or None, error text); None when any failed."""
    return median_rates({'': measure})['']


results = []
notes = []


def case(name, unit, ours, ours_err, peer_rates, extra=''):
    results.append({'case': name, 'unit': unit, 'rbmscope': ours, 'error': ours_err, 'peers': peer_rates, 'note': extra})


# ---- PT: 8 chains x 16 replicas, deterministic even-odd, the peer's ladder (beta_0 = 0, 0.7^(N-k)) ----
C, R = 8, 16
betas = [0.0] + [0.7 ** (R - 1 - k) for k in range(1, R)]
measures = {}
for precision in ('float64', 'float32'):
    def pt_rate(precision=precision):
        pt, _, err = run([cli, 'pt', model, '--scheme', 'deo', '--chains', str(C), '--betas',
                          ','.join(repr(b) for b in betas), '--sweeps', str(scans), '--seed', '1', '--threads',
                          str(threads), '--precision', precision])
        return (C * R * scans / pt['seconds'] if pt and pt.get('seconds') else None), err
    measures[precision] = pt_rate
for kind in ('torch', 'numpy'):
    def pt_peer_rate(kind=kind):
        r, perr = peer('pt_peer.py', kind, [model, C, R, scans, threads])
        return (r['replica_sweeps_per_s'] if r else None), perr
    measures[kind] = pt_peer_rate
got = median_rates(measures)
ours = {p: got[p][0] for p in ('float64', 'float32')}
errs = [got[p][1] for p in ('float64', 'float32') if got[p][1]]
rates = {}
for kind in ('torch', 'numpy'):
    rates[kind] = got[kind][0]
    if rates[kind] is None:
        notes.append('pt_peer %s: not run (%s)' % (kind, got[kind][1]))
case('PT 784x500 BRBM, 8 chains x 16 replicas, DEO', 'replica-sweeps/s', ours, '; '.join(errs), rates)

# ---- training on binarized Fashion-MNIST, batch 100, 100 chains, 500 hidden ----
if not os.path.exists(images):
    notes.append('training: %s not found (apt-get install dataset-fashion-mnist)' % images)
else:
    measures = {}
    for kind in ('torch', 'numpy'):
        def train_peer_rate(kind=kind):
            r, perr = peer('train_peer.py', kind, [images, 500, 100, 100, 1, updates, threads])
            return (r['updates_per_s'] if r else None), perr
        measures[kind] = train_peer_rate
    methods = (('pcd', ''), ('cd', 'peers run PCD-1 (the same products per update)'))
    for method, _ in methods:
        for precision, flag in (('float64', []), ('float32', ['--float32'])):
            def train_rate(method=method, precision=precision, flag=flag):
                tr, _, err = run([cli, 'train', '--data', images, '--binarize', '0.5', '--hidden', '500', '--method',
                                  method, '--batch', '100', '--chains', '100', '--k', '1', '--updates', str(updates),
                                  '--lr', '0.01', '--monitor-every', '0', '--monitor-examples', '100', '--ais-chains',
                                  '10', '--ais-steps', '10', '--threads', str(threads)] + flag +
                                 ['--out', os.path.join(out, 'trained-%s-%s.json' % (method, precision))])
                return (tr['timing']['updates_per_s'] if tr and 'timing' in tr else None), err
            measures[method + ' ' + precision] = train_rate
    got = median_rates(measures)
    peer_rates = {}
    for kind in ('torch', 'numpy'):
        peer_rates[kind] = got[kind][0]
        if peer_rates[kind] is None:
            notes.append('train_peer %s: not run (%s)' % (kind, got[kind][1]))
    for method, extra in methods:
        keys = {p: method + ' ' + p for p in ('float64', 'float32')}
        case('%s-1 training 784x500, Fashion-MNIST binarized, batch 100, 100 chains' % method.upper(), 'updates/s',
             {p: got[k][0] for p, k in keys.items()}, '; '.join(got[k][1] for k in keys.values() if got[k][1]),
             peer_rates, extra)

# ---- sample: 1000 chains of the 784x500 BRBM, against the AIS kernel's chain-sweeps/s ----
chains = 1000
ais = {}
try:
    for c in json.load(open(os.path.join(out, 'rbmscope.json')))['cases']:
        if c['case'] == 'brbm-784x500':
            ais[c['precision']] = c['chain_sweeps_per_s']
except (OSError, ValueError, KeyError):
    pass
ours, errs, shares = {}, [], []
for precision in ('float64', 'float32'):
    base = [cli, 'sample', model, '--chains', str(chains), '--threads', str(threads), '--precision', precision, '--format',
            'csv']
    def sample_rate(base=base):
        a, t_short, err = run(base + ['--sweeps', str(sweeps)], parse=False)
        b, t_long, err2 = run(base + ['--sweeps', str(3 * sweeps)], parse=False)
        ok = err == '' and err2 == '' and t_long > t_short
        return (chains * 2 * sweeps / (t_long - t_short) if ok else None), err or err2
    ours[precision], err = median_rate(sample_rate)
    if err:
        errs.append(err)
    k = ais.get(precision)
    shares.append('%s: AIS kernel %s chain-sweeps/s, sample / AIS = %s' % (
        precision, 'n/a' if k is None else '{:,.0f}'.format(k),
        'n/a' if (k is None or ours[precision] is None) else '%.0f %%' % (100 * ours[precision] / k)))
case('sample 784x500 BRBM, 1000 chains', 'chain-sweeps/s', ours, '; '.join(errs), {}, '; '.join(shares))

json.dump({'cases': results, 'notes': notes}, open(os.path.join(out, 'workloads.json'), 'w'), indent=1)


def fmt(x):
    return 'n/a' if x is None else '{:,.1f}'.format(x) if x < 100 else '{:,.0f}'.format(x)


print()
print('Workloads: medians of %d runs each, rbmscope and every peer, the runs of a workload alternating.' % repeats)
print()
print('| workload | unit | rbmscope float64 | rbmscope float32 | PyTorch (float32) | NumPy (float64) | float64 / NumPy | '
      'float32 / PyTorch | fastest / fastest peer |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|')


def ratio(a, b):
    return '%.2f×' % (a / b) if (a and b) else '—'


for c in results:
    r64, r32 = c['rbmscope'].get('float64'), c['rbmscope'].get('float32')
    torch, numpy = c['peers'].get('torch'), c['peers'].get('numpy')
    ours_best = max([v for v in (r64, r32) if v] or [0]) or None
    peer_best = max([v for v in (torch, numpy) if v] or [0]) or None
    print('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
        c['case'], c['unit'], fmt(r64), fmt(r32), fmt(torch) if 'torch' in c['peers'] else '—',
        fmt(numpy) if 'numpy' in c['peers'] else '—', ratio(r64, numpy), ratio(r32, torch), ratio(ours_best, peer_best)))
    if c['error']:
        print('%s: failed: %s' % (c['case'], c['error']))
for c in results:
    if c['note']:
        print('%s: %s' % (c['case'], c['note']))
for n in notes:
    print(n)
