#!/bin/bash
# On the device machine, in one call (prepared by scripts/device-prepare.sh; carry .bench, .gl):
# the GPU tests that need a real GPU, then our figures and PyTorch's on the same workloads in
# the same call (docs/gpu.md, "Speed on an H100"). Writes JSON lines under $OUT.
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
nvidia-smi -L
$B devices
# Correctness on the real GPU (lavapipe runs these in CI; the #[ignore]d ones need a GPU).
for t in engine ais exact study; do
  ./.bench/$t-tests --test-threads 4 --include-ignored 2>&1 | grep -E "^test |result" | tee -a "$OUT/tests.txt"
done
./.bench/cli-tests --test-threads 4 --include-ignored gpu 2>&1 | grep -E "^test |result" | tee -a "$OUT/tests.txt"
# Ours, then the peer's.
$B speed | tee "$OUT/ours.jsonl"
python3 .bench/gpu_peer.py | tee "$OUT/peer.jsonl"
# Whole studies: the small-data study as one job, and a paper-scale MNIST epoch.
/usr/bin/time -f "sdcp-shifting-bar (250 trials x 50 000 updates) as one GPU job: %e s" \
  $B reproduce sdcp-shifting-bar --seed 1 --device gpu > "$OUT/shifting_bar_gpu.jsonl"
/usr/bin/time -f "sdcp-mnist, paper scale, 1 epoch, 40 trials: %e s" \
  $B reproduce sdcp-mnist --scale paper --epochs 1 --threads 40 --seed 1 --device gpu > "$OUT/sdcp_mnist_1epoch_gpu.jsonl"
