#!/bin/bash
# Prepares what one call of the device tool needs to measure the GPU engine on a real GPU
# (docs/gpu.md, "Speed on an H100"): run here, then on the device machine run
#   scripts/device-bench.sh          (carry: .bench and .gl)
# .bench: the release `rbm`, the GPU test binaries, the PyTorch peer and the MNIST asset;
# .gl: the Vulkan loader (the device machine has the NVIDIA driver but no loader).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .bench .gl
cargo build --release -p rbm-cli
cp target/release/rbm .bench/rbm
# The GPU test binaries (with their #[ignore]d real-GPU tests).
for t in engine ais exact study; do
  bin=$(cargo test --release -p rbm-gpu --test "$t" --no-run --message-format=json 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n")){try{const j=JSON.parse(l);if(j.executable&&j.target&&j.target.kind.includes("test"))console.log(j.executable)}catch{}}})' | tail -1)
  cp "$bin" ".bench/$t-tests"
done
cli=$(cargo test --release -p rbm-cli --test cli --no-run --message-format=json 2>/dev/null |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n")){try{const j=JSON.parse(l);if(j.executable&&j.target&&j.target.kind.includes("test"))console.log(j.executable)}catch{}}})' | tail -1)
cp "$cli" .bench/cli-tests
cp ../shared/gpu_peer.py .bench/gpu_peer.py
cp www/public/assets/generated/mnist.bin.gz .bench/mnist.bin.gz
(cd .gl && apt-get download libvulkan1 >/dev/null)
ls -la .bench .gl
