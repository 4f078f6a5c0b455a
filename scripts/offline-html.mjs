// The offline file: after `vite build`, www/dist/rbm-playground.html — the whole page in one
// self-contained HTML file that trains from file:// with no server and no request leaving it.
//
// No single-file plugin is used: vite-plugin-singlefile inlines scripts and styles but not
// module workers or the wasm they fetch, and this page is mostly those. Instead the built page
// is put together as it is, unchanged:
//   - the style sheet becomes a <style>, the entry chunk an inline <script type="module">;
//   - a small classic script first (OFFLINE_SHIM) holds the wasm and the small assets as base64
//     and every worker chunk as text, and maps the page's own relative URLs onto them by file
//     name: `fetch` (the wasm, the sampler model) answers from the bytes, `Worker` (the lane
//     and sampler workers) starts a blob: URL of the chunk, with the same shim at its top and
//     the files posted as its first message (a worker's `import.meta.url`, a blob: URL, cannot
//     resolve a relative URL: it is replaced by the chunk's would-be address). A message
//     naming one of the page's blob: URLs (the user's files) is preceded by the file's bytes,
//     which a worker of a file:// page could not fetch. Workers start
//     as classic workers: a file:// page may not start module workers from blob: URLs, and the
//     chunks, with no import or export, run as classic scripts as they are;
//   - a file not inlined (the 1.6 MB MNIST asset) is refused with a message that says what to
//     do instead, never fetched from anywhere.
// The page's code knows nothing of this beyond `window.__RBM_OFFLINE__` (set here) for its
// messages. Every chunk must be self-contained (no import between chunks): checked here.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export const OFFLINE_NAME = 'rbm-playground.html';

/** Files of dist/assets/ inlined besides the chunks (by name), and their types. */
const TYPES = { '.wasm': 'application/wasm', '.gz': 'application/gzip' };
/** The largest data asset inlined: the sampler model (364 KB) is in, MNIST (1.6 MB) stays out.
 * The core's wasm is always in, whatever its size: the page cannot compute without it. */
const MAX_INLINE = 1_000_000;

/**
 * The runtime shim (its source goes into the file, run before the page's module, and at the
 * top of every worker). In the page, `files` maps a file name to {type, bytes}; in a worker it
 * is null: the page posts the files as the worker's first message (a worker started from a
 * file:// page cannot fetch the page's blob: URLs), which the shim takes before the chunk's own
 * handler sees it. `workers` (page only) maps a chunk name to its source. Serialized with
 * toString(): it must not refer to anything outside itself.
 */
function OFFLINE_SHIM(scope, files, workers, base) {
  let getFiles = () => Promise.resolve(files);
  /** The page's blob: URLs (the user's files) a worker was sent the bytes of. */
  const blobs = {};
  if (files === null) {
    scope.addEventListener('message', (e) => {
      if (e.data?.__rbmOfflineBlobs) {
        e.stopImmediatePropagation();
        Object.assign(blobs, e.data.__rbmOfflineBlobs);
      }
    });
    let resolve;
    const ready = new Promise((r) => {
      resolve = r;
    });
    scope.addEventListener('message', (e) => {
      if (e.data?.__rbmOfflineFiles) {
        e.stopImmediatePropagation();
        resolve(e.data.__rbmOfflineFiles);
      }
    });
    getFiles = () => ready;
  }
  const nameOf = (input) => {
    try {
      const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
      if (/^(blob|data):/.test(url)) return null;
      return new URL(url, base).pathname.split('/').pop();
    } catch {
      return null;
    }
  };
  const nativeFetch = scope.fetch.bind(scope);
  scope.fetch = async (input, init) => {
    const name = nameOf(input);
    const url = typeof input === 'string' || input instanceof URL ? String(input) : input?.url;
    if (blobs[url]) return new Response(blobs[url]);
    if (name === null) return nativeFetch(input, init);
    const file = (await getFiles())[name];
    if (file) return new Response(file.bytes, { headers: { 'content-type': file.type, 'content-length': String(file.bytes.length) } });
    throw new TypeError(
      `'${name}' is not inside this offline file (rbm-playground.html). Open the page from a web server for it; MNIST's own IDX files (train-images-idx3-ubyte.gz, …) can be loaded with "Your own data…"`,
    );
  };
  if (workers && scope.Worker) {
    const shim = OFFLINE_SHIM.toString();
    const made = {};
    const NativeWorker = scope.Worker;
    scope.Worker = class extends NativeWorker {
      constructor(url, options) {
        const name = nameOf(url);
        if (name && workers[name] !== undefined) {
          if (!made[name]) {
            const at = new URL(`assets/${name}`, base).href;
            const head = `'use strict';\n${shim}\nOFFLINE_SHIM(self, null, null, ${JSON.stringify(at)});\nself.__RBM_BASE__ = ${JSON.stringify(at)};\n`;
            made[name] = URL.createObjectURL(new Blob([head, workers[name]], { type: 'text/javascript' }));
          }
          // A classic worker: Chromium refuses module workers from blob: URLs of a file:// page
          // (the chunks have no import or export, so they run as classic scripts too).
          super(made[name], { ...options, type: 'classic' });
          this.offline = { queue: null, waiting: 0, sent: new Set() };
          super.postMessage({ __rbmOfflineFiles: files });
        } else super(url, options);
      }

      // A message naming the page's blob: URLs (the user's files) is preceded by their bytes:
      // a worker of a file:// page cannot fetch them. Messages keep their order.
      postMessage(message, transfer) {
        const o = this.offline;
        if (!o) return super.postMessage(message, transfer);
        const found = [];
        const scan = (v, depth) => {
          if (typeof v === 'string') {
            if (v.startsWith('blob:') && !o.sent.has(v) && !found.includes(v)) found.push(v);
          } else if (v && typeof v === 'object' && depth < 6 && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer)) {
            for (const x of Object.values(v)) scan(x, depth + 1);
          }
        };
        scan(message, 0);
        if (!found.length && !o.waiting) return super.postMessage(message, transfer);
        for (const u of found) o.sent.add(u);
        o.waiting++;
        const send = async () => {
          if (found.length) {
            const bytes = {};
            for (const u of found) {
              try {
                bytes[u] = new Uint8Array(await (await nativeFetch(u)).arrayBuffer());
              } catch {
                // Revoked or unreadable: the worker's own fetch then fails with its message.
              }
            }
            super.postMessage({ __rbmOfflineBlobs: bytes });
          }
          super.postMessage(message, transfer);
        };
        o.queue = (o.queue ?? Promise.resolve()).then(send, send).finally(() => {
          o.waiting--;
        });
      }
    };
  }
}

/** Keeps a script's text from ending its <script> element early. */
function scriptSafe(js) {
  return js.replace(/<\/script/gi, '<\\/script').replace(/<!--/g, '<\\!--');
}

/** The offline page made from the built page in `dist` (throws when the build is not as expected). */
export function offlinePage(dist) {
  let html = readFileSync(join(dist, 'index.html'), 'utf8');
  const entry = html.match(/<script type="module" crossorigin src="\.\/assets\/([^"]+\.js)"><\/script>/);
  if (!entry) throw new Error('offline page: the built index.html has no module script ./assets/*.js');
  const assets = join(dist, 'assets');
  const all = readdirSync(assets).filter((f) => statSync(join(assets, f)).isFile());
  // The GPU variant of the core (www/pkg-gpu), which a lane's worker imports only when its lane
  // asks for the GPU, and its wasm stay out: the one file computes on the CPU (a GPU lane there
  // says it runs on the CPU, as where the browser has no WebGPU).
  const imported = all
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) => [...readFileSync(join(assets, f), 'utf8').matchAll(/\bimport\(\s*["'`]\.\/([\w-]+\.js)["'`]\s*\)/g)].map((m) => m[1]));
  const gpu = all.filter((f) => imported.includes(f) && readFileSync(join(assets, f), 'utf8').includes('newGpuLane'));
  const gpuWasm = gpu.flatMap((f) => [...readFileSync(join(assets, f), 'utf8').matchAll(/["'`](?:\.\/)?([\w-]+\.wasm)["'`]/g)].map((m) => m[1]));
  const names = all.filter((f) => !gpu.includes(f) && !gpuWasm.includes(f));
  const chunks = names.filter((f) => f.endsWith('.js'));
  for (const f of chunks) {
    let js = readFileSync(join(assets, f), 'utf8');
    for (const g of gpu) for (const q of ['"', "'", '`']) js = js.replaceAll(`import(${q}./${g}${q})`, '');
    if (/\bexport\s*[{*]|\bimport\.meta\.(?!url)/.test(js))
      throw new Error(`offline page: chunk ${f} exports or reads import.meta: it would not run as a classic worker`);
    if (/\bimport\s*(\{[^}]*\}|\*\s*as\s+\w+|\w+)\s*from\s*["'`]|\bimport\(\s*["'`]/.test(js))
      throw new Error(`offline page: chunk ${f} imports another chunk; inline it too`);
  }
  const files = {};
  let filesJs = '';
  for (const f of names) {
    const type = Object.entries(TYPES).find(([ext]) => f.endsWith(ext))?.[1];
    if (!type) continue;
    const bytes = readFileSync(join(assets, f));
    if (bytes.length > MAX_INLINE && !f.endsWith('.wasm')) continue;
    files[f] = true;
    filesJs += `${JSON.stringify(f)}: [${JSON.stringify(type)}, ${JSON.stringify(bytes.toString('base64'))}],\n`;
  }
  if (!Object.keys(files).some((f) => f.endsWith('.wasm'))) throw new Error('offline page: the built page has no core wasm to inline');
  const workers = chunks
    .filter((f) => f !== entry[1])
    .map((f) => `${JSON.stringify(f)}: ${JSON.stringify(readFileSync(join(assets, f), 'utf8').replaceAll('import.meta.url', 'self.__RBM_BASE__'))}`)
    .join(',\n');
  const shim = `${OFFLINE_SHIM.toString()}
(() => {
  const data = {
${filesJs}};
  const bytes = (b64) => {
    const s = atob(b64);
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  };
  const files = {};
  for (const [name, [type, b64]] of Object.entries(data)) files[name] = { type, bytes: bytes(b64) };
  const workers = {
${workers}
  };
  OFFLINE_SHIM(window, files, workers, new URL('./', location.href).href);
  window.__RBM_OFFLINE__ = true;
})();`;
  const css = html.match(/<link rel="stylesheet" crossorigin href="\.\/assets\/([^"]+\.css)">/);
  if (!css) throw new Error('offline page: the built index.html has no style sheet ./assets/*.css');
  const style = readFileSync(join(assets, css[1]), 'utf8').replace(/<\/style/gi, '<\\/style');
  const main = readFileSync(join(assets, entry[1]), 'utf8');
  html = html
    .replace(css[0], () => `<style>\n${style}\n</style>`)
    .replace(entry[0], () => `<script>\n${scriptSafe(shim)}\n</script>\n<script type="module">\n${scriptSafe(main)}\n</script>`)
    .replace(/<link rel="modulepreload"[^>]*>/g, '');
  if (/(src|href)="\.\/assets\//.test(html)) throw new Error('offline page: a reference to ./assets/ is left in the page');
  return { html, inlined: Object.keys(files), workers: chunks.length - 1 };
}

/** The Vite plugin: writes dist/rbm-playground.html at the end of every build. */
export function offlineHtml() {
  let outDir = '';
  return {
    name: 'rbm-offline-html',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir.startsWith('/') ? config.build.outDir : join(config.root, config.build.outDir);
    },
    closeBundle() {
      const { html, inlined, workers } = offlinePage(outDir);
      writeFileSync(join(outDir, OFFLINE_NAME), html);
      const kb = Math.round(Buffer.byteLength(html) / 1000);
      console.log(`offline page: ${basename(outDir)}/${OFFLINE_NAME}, ${kb} kB (inlined ${inlined.join(', ')} and ${workers} workers)`);
    },
  };
}
