// Installs what `npm start` / `npm test` need and is missing, then returns quickly when all is
// there. Node built-ins only (it runs before node_modules exists).
//
//   node scripts/setup.mjs            Rust wasm target, wasm-bindgen CLI, node_modules
//   node scripts/setup.mjs --browser  … and Chromium + ChromeDriver for the browser tests, Mesa's
//                                     Vulkan drivers (lavapipe) for the GPU engine's tests, and GNU
//                                     parallel for the CLI's scale-out test
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { capture, chromedriverPath, chromiumPath, findWasmBindgen, root, run, step, toolsDir, wasmBindgenVersion } from './lib/tools.mjs';

const browser = process.argv.includes('--browser');

function fail(msg) {
  console.error(`\nsetup: ${msg}`);
  process.exit(1);
}

function rustTarget() {
  if (capture('cargo', ['--version']) === null) fail('cargo not found: install Rust (https://rustup.rs) first.');
  const installed = capture('rustup', ['target', 'list', '--installed']);
  if (installed === null) {
    // No rustup: accept a toolchain that already has the target's standard library.
    const sysroot = capture('rustc', ['--print', 'sysroot']);
    if (sysroot && existsSync(join(sysroot, 'lib', 'rustlib', 'wasm32-unknown-unknown'))) return;
    fail('the wasm32-unknown-unknown target is missing and rustup is not available to add it.');
  }
  if (installed.split('\n').includes('wasm32-unknown-unknown')) return;
  step('Adding the Rust target wasm32-unknown-unknown');
  run('rustup', ['target', 'add', 'wasm32-unknown-unknown']);
}

function wasmBindgen() {
  const version = wasmBindgenVersion();
  if (findWasmBindgen(version)) return;
  step(`Installing wasm-bindgen-cli ${version} into .tools/ (matches Cargo.lock; a few minutes, once)`);
  // No --locked: the CLI's own lock file does not build with this toolchain.
  run('cargo', ['install', 'wasm-bindgen-cli', '--version', version, '--root', toolsDir]);
  if (!findWasmBindgen(version)) fail(`wasm-bindgen ${version} still not found after installing it.`);
}

function nodeModules() {
  const lock = join(root, 'package-lock.json');
  // Only what decides the installed packages: editing a script must not reinstall.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const hash = createHash('sha256');
  hash.update(JSON.stringify([pkg.dependencies, pkg.devDependencies, pkg.overrides]));
  if (existsSync(lock)) hash.update(readFileSync(lock));
  const want = hash.digest('hex');
  const stamp = join(root, 'node_modules', '.setup-stamp');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  step(existsSync(join(root, 'node_modules')) ? 'Updating node_modules (package files changed)' : 'Installing node_modules');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  run(npm, existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund']);
  writeFileSync(stamp, want);
}

/** Whether a Vulkan driver is installed (a GPU's, or Mesa's lavapipe on the CPU). */
function hasVulkanDriver() {
  return ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d'].some((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.json')));
}

/** Debian packages the browser tests need (Chromium, ChromeDriver), Mesa's Vulkan drivers,
 * whose lavapipe runs the GPU engine's tests on the CPU where there is no GPU, and GNU
 * parallel, which the CLI's scale-out test uses (that test skips with a message without it). */
function testPackages() {
  const browserMissing = !existsSync(chromiumPath) || !existsSync(chromedriverPath) || !hasVulkanDriver();
  const parallelMissing = capture('parallel', ['--version']) === null;
  if (!browserMissing && !parallelMissing) return;
  const packages = [...(browserMissing ? ['chromium', 'chromium-driver', 'mesa-vulkan-drivers'] : []), ...(parallelMissing ? ['parallel'] : [])];
  step(`Installing Debian packages: ${packages.join(', ')}`);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasSudo = capture('sudo', ['-n', 'true']) !== null;
  if (!isRoot && !hasSudo) {
    if (!browserMissing) {
      console.warn('setup: GNU parallel is missing and this user cannot install packages; its CLI test is skipped (sudo apt-get install parallel).');
      return;
    }
    fail(
      `${chromiumPath} or ${chromedriverPath} is missing and this user cannot install packages.\n` +
        `Install them with: sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}\n` +
        '(or point CHROMIUM_PATH and CHROMEDRIVER at a matching Chromium and ChromeDriver).',
    );
  }
  const prefix = isRoot ? [] : ['sudo', '-n'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (...args) => (prefix.length ? run(prefix[0], [...prefix.slice(1), 'apt-get', ...args], { env }) : run('apt-get', args, { env }));
  try {
    apt('update');
    apt('install', '-y', ...packages);
  } catch (e) {
    if (!browserMissing) {
      console.warn(`setup: installing GNU parallel failed (${e.message}); its CLI test is skipped.`);
      return;
    }
    fail(`installing ${packages.join(', ')} failed (${e.message}); install them by hand.`);
  }
  if (!existsSync(chromiumPath) || !existsSync(chromedriverPath)) {
    fail(`after installing, ${chromiumPath} or ${chromedriverPath} is still missing.`);
  }
  if (!hasVulkanDriver()) fail('after installing mesa-vulkan-drivers, no Vulkan driver is listed in /usr/share/vulkan/icd.d.');
}

try {
  rustTarget();
  wasmBindgen();
  nodeModules();
  if (browser) testPackages();
} catch (e) {
  fail(e.message);
}
