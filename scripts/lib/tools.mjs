// Shared helpers of the project's scripts. Node built-ins only: these run before node_modules
// exists (`npm start` / `npm test` call scripts/setup.mjs first).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const toolsDir = join(root, '.tools');
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const chromedriverPath = process.env.CHROMEDRIVER || '/usr/bin/chromedriver';
export const cargoTargetDir = process.env.CARGO_TARGET_DIR || join(root, 'target');

/** Prints a step header. */
export function step(title) {
  console.log(`\n\x1b[1m▶ ${title}\x1b[0m`);
}

/** Runs a command with inherited output; throws with a one-line message if it fails. */
export function run(cmd, args, opts = {}) {
  console.log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args[0] ?? ''} failed (exit ${r.status ?? r.signal})`);
}

/** Runs a command quietly and returns its stdout, or null if it cannot run or fails. */
export function capture(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: root, ...opts });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim();
}

/** The version of the `wasm-bindgen` crate in Cargo.lock: the CLI must be exactly this one. */
export function wasmBindgenVersion() {
  const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
  const m = lock.match(/\[\[package\]\]\s*\nname = "wasm-bindgen"\s*\nversion = "([^"]+)"/);
  if (!m) throw new Error('Cargo.lock has no wasm-bindgen package');
  return m[1];
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return null;
}

/**
 * The wasm-bindgen CLI of the locked version: `.tools/bin` first (installed by setup), then
 * PATH. Returns { bindgen, runner } (absolute paths) or null when none matches.
 */
export function findWasmBindgen(version = wasmBindgenVersion()) {
  const candidates = [join(toolsDir, 'bin', 'wasm-bindgen'), onPath('wasm-bindgen')].filter(Boolean);
  for (const bindgen of candidates) {
    if (!existsSync(bindgen)) continue;
    const out = capture(bindgen, ['--version']);
    if (out !== `wasm-bindgen ${version}`) continue;
    const runner = join(dirname(bindgen), 'wasm-bindgen-test-runner');
    if (existsSync(runner)) return { bindgen, runner };
  }
  return null;
}
