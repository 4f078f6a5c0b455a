// Speed figures, natively and in headless Chromium — a benchmark, never a test. Prints one JSON
// line per workload ({target, bench, value, unit}); the same workloads (src/bench.rs) run in
// both targets, the browser ones inside a module Web Worker like the page's lanes.
//
//   npm run bench                  every workload, native then wasm
//   npm run bench -- --quick       shorter measurements
//   npm run bench -- --filter gibbs
//   npm run bench -- --wasm-only --pkg DIR
//                                  the browser half only, with a prebuilt bench package (e.g. an
//                                  older commit's, to compare before and after in one run)
//   npm run bench -- --reproduce   also the wall time of `rbm reproduce` for the three presets
//                                  at their defaults (minutes; summaries go to target/bench/)

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWasm } from './build-wasm.mjs';
import { cargoTargetDir, root, run, step } from './lib/tools.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const filter = args.includes('--filter') ? args[args.indexOf('--filter') + 1] : null;
const minSecs = quick ? 0.3 : 2.0;

const pkgArg = args.includes('--pkg') ? args[args.indexOf('--pkg') + 1] : null;

if (!args.includes('--wasm-only')) {
  step('Native (cargo bench --bench speed)');
  run('cargo', [
    'bench',
    '-p',
    'rbm-core',
    '--features',
    'bench',
    '--bench',
    'speed',
    '--',
    ...(quick ? ['--quick'] : []),
    ...(filter ? ['--filter', filter] : []),
  ]);
}

step('WebAssembly in headless Chromium (one module worker)');
const dir = mkdtempSync(join(tmpdir(), 'rbm-bench-'));
if (pkgArg) cpSync(pkgArg, join(dir, 'pkg'), { recursive: true });
else buildWasm({ bench: true, outDir: join(dir, 'pkg') });
writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>bench</title>');
writeFileSync(
  join(dir, 'worker.js'),
  `import init, { benchWorkloads, benchRun } from './pkg/rbm_playground.js';
onmessage = async ({ data: { quick, filter, minSecs } }) => {
  await init();
  for (const name of benchWorkloads(quick)) {
    if (filter && !name.includes(filter)) continue;
    try { postMessage({ name, value: benchRun(name, minSecs) }); }
    catch (e) { postMessage({ name, error: String(e.message ?? e) }); }
  }
  postMessage({ done: true });
};`,
);
const { serve } = await import('../tests/e2e/server.mjs');
const { launch } = await import('../tests/e2e/browser.mjs');
const server = await serve(dir);
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.exposeFunction('report', (r) => {
    if (r.done) return;
    const unit =
      r.name === 'exact_log_z_16x16'
        ? 'ms'
        : r.name === 'ucd_bas4_preset_ucd_over_cd'
          ? "× CD-1's time"
          : r.name === 'ucd_bas4_preset_sweeps_ucd_over_cd'
            ? "× CD-1's sweeps"
            : r.name.endsWith('_updates')
              ? 'updates/s'
              : r.name.endsWith('_rows')
                ? 'rows/s'
                : r.name.startsWith('gibbs')
                  ? 'sweeps/s'
                  : r.name.endsWith('_samples')
                    ? 'samples/s'
                    : r.name.endsWith('_evals')
                      ? 'evaluations/s'
                      : 's';
    console.log(
      JSON.stringify(
        r.error ? { target: 'wasm', bench: r.name, error: r.error } : { target: 'wasm', bench: r.name, value: Math.round(r.value * 1000) / 1000, unit },
      ),
    );
  });
  await page.evaluate(
    (opts) =>
      new Promise((resolve, reject) => {
        const w = new Worker('./worker.js', { type: 'module' });
        w.onerror = (e) => reject(new Error(e.message));
        w.onmessage = ({ data }) => {
          window.report(data);
          if (data.done) resolve();
        };
        w.postMessage(opts);
      }),
    { quick, filter, minSecs },
  );
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

if (args.includes('--reproduce')) {
  step('rbm reproduce, every preset at its defaults (wall time)');
  run('cargo', ['build', '--release', '--bin', 'rbm']);
  const out = join(cargoTargetDir, 'bench');
  mkdirSync(out, { recursive: true });
  for (const preset of ['sdcp-shifting-bar', 'sdcp-bas3', 'ucd-bas4']) {
    const t0 = Date.now();
    const r = spawnSync(join(cargoTargetDir, 'release', 'rbm'), ['reproduce', preset, '--seed', '1'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
    const secs = (Date.now() - t0) / 1000;
    if (r.status !== 0) {
      console.log(JSON.stringify({ target: 'native', bench: `reproduce_${preset}`, error: r.stderr.trim() }));
      continue;
    }
    writeFileSync(join(out, `reproduce-${preset}.jsonl`), r.stdout);
    console.log(JSON.stringify({ target: 'native', bench: `reproduce_${preset}`, value: secs, unit: 's', output: `target/bench/reproduce-${preset}.jsonl` }));
  }
}
