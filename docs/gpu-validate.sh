#!/bin/bash
# The GPU validation of docs/VALIDATION.md ("bf16 on a GPU"): consecutive `roofline validate --device cuda --quick` runs
# on one machine, from this checkout without installing it (PYTHONPATH). Needs python3 with torch (CUDA) and the
# package's dependencies that validate imports (numpy, pandas, matplotlib, typer, pyyaml, scipy, pyarrow; not polars or
# ruamel.yaml). Writes log.txt and runs.tgz (the runs' output folders) to $OUT (default out/gpu-validate); exits 1 when a
# run failed.
#   bash docs/gpu-validate.sh [RUNS] [VALIDATE OPTIONS]   (3 runs by default; about a minute each on an H200)
#   bash docs/gpu-validate.sh 3 --cuda-graphs              (every forward pass replayed from a CUDA graph)
RUNS=${1:-3}
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/out/gpu-validate}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export PYTHONPATH=$ROOT PYTHONUNBUFFERED=1 XDG_CONFIG_HOME=$WORK/config ROOFLINE_USER_DIR=$WORK/user MPLBACKEND=Agg
failed=0
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv
  python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, torch.cuda.get_device_name())"
  uptime; nproc
  echo "validate options: --device cuda --quick $*"
  for run in $(seq 1 "$RUNS"); do
    echo "=== run $run start $(date -u +%T)"
    SECONDS=0
    timeout 230 python3 -m roofline validate --device cuda --quick "$@" --out "$WORK/v$run"
    rc=$?
    echo "=== run $run rc=$rc wall=${SECONDS}s"
  done
  uptime
  for run in $(seq 1 "$RUNS"); do
    [ -f "$WORK/v$run/summary.json" ] && python3 -c "import json; s = json.load(open('$WORK/v$run/summary.json')); print('run $run:', {k: s[k] for k in ('speedup_median_abs_error', 'median_abs_error', 'seconds')})"
  done
} 2>&1 | tee "$OUT/log.txt"
for run in $(seq 1 "$RUNS"); do [ -f "$WORK/v$run/summary.json" ] || failed=1; done
runs=$(cd "$WORK" && ls -d v* 2>/dev/null)
[ -n "$runs" ] && tar czf "$OUT/runs.tgz" -C "$WORK" $runs
exit $failed
