#!/bin/bash
# On the device machine, in one call (prepared by scripts/device-prepare.sh; carry .bench, .gl):
# our figures and PyTorch's on the same workloads in the same call, then the whole studies, then
# the GPU tests that need a real GPU (docs/gpu.md, "Speed on an H100"). Most wanted first, each
# step under its own time limit, every result written under $OUT as it comes: a call that runs
# out of time still brings back what it measured. The whole script stays under 9 minutes (the limits add up to 560 s), so
# one call fits a session's 15 minutes of device time with the machine's start.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $ICD ] && export VK_DRIVER_FILES=$ICD
export RBM_MNIST=.bench/mnist.bin.gz PYTHONUNBUFFERED=1
B=./.bench/rbm
# step NAME SECONDS COMMAND...: runs COMMAND under a limit, its stdout into $OUT/NAME, its
# wall time and exit status into $OUT/steps.txt.
step() {
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name" 2> "$OUT/$name.err"
  local rc=$?
  echo "$name: rc=$rc, $((SECONDS - t0)) s (limit $limit s)" | tee -a "$OUT/steps.txt"
}
nvidia-smi -L | tee "$OUT/gpu.txt"
step devices.jsonl 20 $B devices
# Ours, then the peer's, on the same workloads.
step ours.jsonl 100 $B speed
step peer.jsonl 100 python3 .bench/gpu_peer.py
# The product's kernels one by one on the large batches (RBM_GPU_TILE forces one), and the
# depth tiles' earlier layout (one float per load) against the vec4 one of ours.jsonl.
for tile in 64 128 128x64; do
  step "ours_tile$tile.jsonl" 20 env RBM_GPU_TILE=$tile $B speed --only gibbs,pcd
done
step ours_scalar_tiles.jsonl 20 env RBM_GPU_TILES=scalar $B speed --only gibbs,pcd
# The product kernels without wgpu's runtime checks (index clamps, loop counters).
step ours_unchecked.jsonl 20 env RBM_GPU_CHECKS=off $B speed --only gibbs,pcd
# Where the GPU's time goes: every pass timed, by kernel (shares, not rates).
step profile.jsonl 30 $B speed --profile
# Whole studies: the small-data study as one job, and a paper-scale MNIST epoch.
step shifting_bar_gpu.jsonl 40 $B reproduce sdcp-shifting-bar --seed 1 --device gpu
step sdcp_mnist_1epoch_gpu.jsonl 40 $B reproduce sdcp-mnist --scale paper --epochs 1 --threads 40 --seed 1 --device gpu
# Correctness on the real GPU (lavapipe runs these in CI; the #[ignore]d ones need a GPU).
for t in engine ais exact study; do
  step "tests_$t.txt" 25 ./.bench/$t-tests --test-threads 8 --include-ignored
done
step tests_cli.txt 30 ./.bench/cli-tests --test-threads 8 --include-ignored gpu
cat "$OUT/steps.txt"
