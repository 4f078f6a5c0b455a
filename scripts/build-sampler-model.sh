#!/usr/bin/env bash
# Regenerates www/public/assets/sampler-model.rbm.gz, the model the sampler view ships with:
# FPCD (the rates-FPCD paper sampled an FPCD-trained model), 784x500, MNIST train split,
# batch 100, learning rate 0.05 decaying linearly to 0, 15 epochs, seed 1, saved with 8-bit
# weights (a scale per visible unit; see Rbm::to_quantized_bytes). Training is seeded
# and deterministic, so this gives the same bits again (gzip -n: no name or time stamp).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p rbm-cli
out=$(mktemp -d)
target/release/rbm train --data mnist --algo fpcd --hidden 500 --batch 100 --lr 0.05 --epochs 15 \
  --every 1200 --exact-bits 0 --seed 1 --save-model "$out/model.q8.rbm" > /dev/null
gzip -9 -n -c "$out/model.q8.rbm" > www/public/assets/sampler-model.rbm.gz
rm -r "$out"
ls -l www/public/assets/sampler-model.rbm.gz
