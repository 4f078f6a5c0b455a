// Every test, in order, stopping at the first failure:
//   lint   cargo fmt --check, cargo clippy -D warnings, Biome (TypeScript lint + format check)
//   rust   native `cargo test --release` of the workspace (core, CLI, wasm shell's native tests)
//   wasm   the wasm-bindgen-test suite (tests/wasm.rs) in headless Chromium
//   unit   Vitest unit tests of the page's pure TypeScript logic (www/test)
//   build  the production build of the page (wasm + type check + vite build)
//   e2e    end-to-end tests of the built page in headless Chromium (tests/e2e/*.test.mjs)
// `node scripts/test.mjs unit e2e` runs only the named steps. Run scripts/setup.mjs first
// (`npm test` does).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildMnist } from './build-mnist.mjs';
import { buildWasm } from './build-wasm.mjs';
import { capture, chromedriverPath, findWasmBindgen, root, run, step } from './lib/tools.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);

const steps = {
  lint() {
    step('Formatting and lints: cargo fmt --check, cargo clippy -D warnings, biome check');
    run('cargo', ['fmt', '--all', '--check']);
    // The core knows no shell: no binding or CLI crate may enter its dependency tree.
    const tree = capture('cargo', ['tree', '-p', 'rbm-core', '-e', 'normal', '--all-features', '--target', 'all', '--prefix', 'none']);
    if (tree === null) throw new Error('cargo tree failed');
    const shellCrates = tree.split('\n').filter((l) => /^(wasm-bindgen|js-sys|web-sys|clap|getrandom|serde-wasm-bindgen|wgpu|rbm-gpu) /.test(l));
    if (shellCrates.length) throw new Error(`rbm-core depends on shell crates: ${[...new Set(shellCrates)].join(', ')}`);
    // The page's wasm does not carry the GPU engine (the first screen's download must not grow).
    const page = capture('cargo', ['tree', '-p', 'rbm-playground', '-e', 'normal', '--target', 'wasm32-unknown-unknown', '--prefix', 'none']);
    if (page === null) throw new Error('cargo tree failed');
    if (page.split('\n').some((l) => /^(wgpu|rbm-gpu) /.test(l))) throw new Error("the page's wasm depends on the GPU engine (wgpu)");
    run('cargo', ['clippy', '--workspace', '--all-targets', '--all-features', '--', '-D', 'warnings']);
    run('cargo', ['clippy', '-p', 'rbm-playground', '--target', 'wasm32-unknown-unknown', '--all-targets', '--', '-D', 'warnings']);
    run('cargo', ['clippy', '-p', 'rbm-playground', '--target', 'wasm32-unknown-unknown', '--features', 'gpu', '--', '-D', 'warnings']);
    run(bin('biome'), ['check', '.']);
  },
  rust() {
    buildMnist(); // the CLI tests read --data mnist from it
    step('Native tests: cargo test --release --workspace --all-features');
    run('cargo', ['test', '--release', '--workspace', '--all-features']);
  },
  wasm() {
    step('wasm tests in headless Chromium: cargo test --target wasm32-unknown-unknown --test wasm');
    const tools = findWasmBindgen();
    if (!tools) throw new Error('wasm-bindgen-test-runner of the locked version not found: run `npm run setup`');
    run('cargo', ['test', '--release', '-p', 'rbm-playground', '--target', 'wasm32-unknown-unknown', '--test', 'wasm'], {
      env: {
        ...process.env,
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: tools.runner,
        CHROMEDRIVER: chromedriverPath,
        // crates/wasm/webdriver.json gives Chromium's path and flags.
        WASM_BINDGEN_TEST_TIMEOUT: process.env.WASM_BINDGEN_TEST_TIMEOUT || '300',
      },
    });
  },
  unit() {
    step('Unit tests of the page logic: vitest run');
    run(bin('vitest'), ['run']);
  },
  build() {
    step('Production build of the page');
    buildWasm();
    buildWasm({ gpu: true });
    run(bin('tsc'), ['--noEmit', '-p', '.']);
    run(bin('vite'), ['build']);
  },
  e2e() {
    step('End-to-end tests of the built page in headless Chromium');
    // Every test file of tests/e2e, one at a time (each starts its own browser).
    const files = readdirSync(join(root, 'tests', 'e2e'))
      .filter((f) => f.endsWith('.test.mjs'))
      .sort()
      .map((f) => `tests/e2e/${f}`);
    run(process.execPath, ['--test', '--test-concurrency=1', ...files]);
  },
};

const wanted = process.argv.slice(2);
for (const name of wanted)
  if (!(name in steps)) {
    console.error(`unknown test step '${name}' (steps: ${Object.keys(steps).join(', ')})`);
    process.exit(2);
  }
const t0 = Date.now();
try {
  const took = [];
  for (const [name, fn] of Object.entries(steps)) {
    if (wanted.length && !wanted.includes(name)) continue;
    const t = Date.now();
    fn();
    took.push(`${name} ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }
  // What each step took, for docs/development.md's table.
  console.log(`\nsteps: ${took.join(', ')}`);
} catch (e) {
  console.error(`\ntests failed: ${e.message}`);
  process.exit(1);
}
console.log(`\nall test steps passed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
