import { beforeAll, describe, expect, it } from 'vitest';
import type { ErrorInfo, LoadedSet } from '../src/generated/core';
import { ASSET_BYTES, assetPath, formatBytes, formatProgress, idxDataName, isGzip, MAX_DATA_BYTES, sortIdxFiles, userDataEntry } from '../src/protocol/data';
import type { DataSource } from '../src/protocol/messages';
import { type DataCore, loadSource } from '../src/workers/dataLoad';

/** gzip bytes, as a file on disk would hold them. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Node's file system (the page's types know no Node; Vitest runs in it). */
async function nodeFs(): Promise<{ existsSync(p: string): boolean; statSync(p: string): { size: number } }> {
  const name = 'node:fs';
  return import(/* @vite-ignore */ name);
}

/** Node's zlib, standing in for the core's gzip reader (crates/wasm `unpack`, tested in Rust). */
async function nodeZlib(): Promise<{ gunzipSync(b: Uint8Array): Uint8Array }> {
  const name = 'node:zlib';
  return import(/* @vite-ignore */ name);
}

/** The IDX header of `count` images of h×w bytes (magic 0x00000803, big-endian sizes). */
function idxImages(count: number, h: number, w: number): Uint8Array {
  const out = new Uint8Array(16 + count * h * w);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x803);
  v.setUint32(4, count);
  v.setUint32(8, h);
  v.setUint32(12, w);
  for (let i = 16; i < out.length; i++) out[i] = i % 256;
  return out;
}

describe('names and sizes', () => {
  it('serves assets relative to the page', () => {
    expect(assetPath('mnist')).toBe('assets/generated/mnist.bin.gz');
  });
  it('names a data set after its images file, without .gz and the IDX suffix, never as a name in use', () => {
    const taken = ['bas3', 'bas4', 'mnist', 'mnist-test'];
    expect(idxDataName('train-images-idx3-ubyte.gz', taken)).toBe('train-images');
    expect(idxDataName('t10k-images.idx3-ubyte', taken)).toBe('t10k-images');
    expect(idxDataName('digits.idx', taken)).toBe('digits');
    expect(idxDataName('C:\\data\\letters-idx3-ubyte', taken)).toBe('letters');
    expect(idxDataName('mnist-test.gz', taken)).toBe('mnist-test (file)');
    expect(idxDataName('mnist-test.gz', [...taken, 'mnist-test (file)'])).toBe('mnist-test (file 2)');
    expect(idxDataName('.gz', taken)).toBe('my-data');
  });
  it('tells images from labels by name, else by size, and refuses anything else with one message', () => {
    const img = { name: 'train-images-idx3-ubyte.gz', size: 9_000_000 };
    const lab = { name: 'train-labels-idx1-ubyte.gz', size: 30_000 };
    expect(sortIdxFiles([lab, img])).toEqual({ ok: true, images: img, labels: lab });
    expect(sortIdxFiles([img])).toEqual({ ok: true, images: img, labels: null });
    const a = { name: 'a.bin', size: 10 };
    const b = { name: 'b.bin', size: 1000 };
    expect(sortIdxFiles([a, b])).toEqual({ ok: true, images: b, labels: a });
    expect(sortIdxFiles([lab])).toEqual({ ok: false, message: expect.stringMatching(/labels file \(idx1-ubyte\): choose its images file/) });
    expect(sortIdxFiles([])).toMatchObject({ ok: false });
    expect(sortIdxFiles([img, lab, a])).toEqual({ ok: false, message: expect.stringMatching(/not 3 files/) });
    // A file over the page's bound is refused by its size, before it is read.
    const huge = { name: 'huge-images-idx3-ubyte', size: 300_000_000 };
    expect(sortIdxFiles([huge])).toEqual({ ok: false, message: `'huge-images-idx3-ubyte' is 300.0 MB, larger than 268.4 MB, the most the page reads` });
    expect(sortIdxFiles([{ ...huge, size: MAX_DATA_BYTES + 1 }])).toMatchObject({ ok: false });
    expect(sortIdxFiles([img, { ...huge, name: 'x-labels-idx1-ubyte' }])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^'x-labels-idx1-ubyte' is .* the most the page reads$/),
    });
    expect(sortIdxFiles([{ ...img, size: MAX_DATA_BYTES }])).toMatchObject({ ok: true });
  });
  it('writes sizes and download progress', () => {
    expect(formatBytes(812)).toBe('812 bytes');
    expect(formatBytes(64_200)).toBe('64 kB');
    expect(formatBytes(1_593_004)).toBe('1.6 MB');
    expect(formatProgress(400_000, 1_593_004)).toBe('0.4 of 1.6 MB');
    expect(formatProgress(2000, 8000)).toBe('2 kB of 8 kB');
    expect(formatProgress(300_000, null)).toBe('300 kB');
  });
  it("knows the MNIST asset's download size (the picker says it), within 5 % of the built file", async () => {
    const fs = await nodeFs();
    const built = decodeURIComponent(new URL('../public/assets/generated/mnist.bin.gz', import.meta.url).pathname);
    if (!fs.existsSync(built)) return; // built by scripts/build-mnist.mjs (every build and `npm test`)
    const size = fs.statSync(built).size;
    expect(Math.abs(size - ASSET_BYTES.mnist) / size).toBeLessThan(0.05);
  });
  it("describes a user's data set from what the core read", () => {
    const set: LoadedSet = { name: 'letters', rows: 2000, m: 784, shape: [28, 28], labelled: true };
    expect(userDataEntry(set, 'letters-idx3-ubyte.gz')).toMatchObject({
      name: 'letters',
      rows: 2000,
      m: 784,
      shape: [28, 28],
      patterns: [],
      asset: null,
      description: 'letters: your file letters-idx3-ubyte.gz, 2,000 images of 28×28, with labels',
    });
  });
});

describe('gzip', () => {
  it('detects gzip by its first two bytes, whatever the file is called', async () => {
    expect(isGzip(await gzip(new Uint8Array([120])))).toBe(true);
    expect(isGzip(new Uint8Array([0x1f, 0x8b]))).toBe(true);
    expect(isGzip(new Uint8Array([0x1f]))).toBe(false);
    expect(isGzip(idxImages(1, 2, 2))).toBe(false);
  });
});

describe('loading a source in a worker', () => {
  const files: Record<string, Uint8Array> = {};
  const fakeFetch = (async (url: string) => {
    const body = files[url];
    if (!body) return new Response('not found', { status: 404, statusText: 'Not Found' });
    return new Response(body as BodyInit, { headers: { 'content-length': String(body.length) } });
  }) as typeof fetch;
  const calls: unknown[][] = [];
  let zlib: { gunzipSync(b: Uint8Array): Uint8Array };
  beforeAll(async () => {
    zlib = await nodeZlib();
  });
  const core: DataCore = {
    unpack: (bytes, what) => {
      calls.push(['unpack', what, bytes.length]);
      if (bytes.length < 20)
        throw {
          kind: 'invalid_option',
          key: 'data',
          message: `${what} is truncated: gzip member 1 (at byte 0) ends early, so the file cannot be read whole`,
        } satisfies ErrorInfo;
      return new Uint8Array(zlib.gunzipSync(bytes));
    },
    checkIdx: (bytes, what) => {
      calls.push(['check', what, bytes.length]);
      if (what.includes('huge')) {
        throw {
          kind: 'invalid_option',
          key: 'data',
          message: `${what} holds 1000000 images of 16×16: the data alone would take about 984 MiB in each lane`,
        } satisfies ErrorInfo;
      }
    },
    loadAsset: (bytes) => {
      calls.push(['asset', bytes.length]);
      return [{ name: 'mnist', rows: 1, m: 4, shape: [2, 2], labelled: true }];
    },
    loadIdx: (name, images, labels) => {
      calls.push(['idx', name, images.length, labels?.length ?? null]);
      if (images[3] !== 0x03) throw { kind: 'invalid_option', key: 'data', message: `'${name}' is not an IDX images file` } satisfies ErrorInfo;
      return { name, rows: 3, m: 4, shape: [2, 2], labelled: labels !== null };
    },
    loadPatterns: (name, text) => {
      calls.push(['patterns', name, text]);
      return { name, rows: text.trim().split('\n').length, m: 4, shape: [2, 2], labelled: false };
    },
  };
  const source = (over: Partial<DataSource>): DataSource => ({ key: 'k', kind: 'idx', name: 'digits', label: "'digits.gz'", files: [], ...over });

  it('downloads every file with progress, unpacks what is gzipped and hands the bytes to the core', async () => {
    const images = idxImages(3, 2, 2);
    const labels = new Uint8Array([0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3]);
    files['blob:images'] = await gzip(images);
    files['blob:labels'] = labels; // not gzipped
    const seen: [number, number | null][] = [];
    const sets = await loadSource(
      source({
        files: [
          { url: 'blob:images', what: "'digits.gz'" },
          { url: 'blob:labels', what: "'labels'" },
        ],
      }),
      core,
      (r, t) => seen.push([r, t]),
      fakeFetch,
    );
    expect(sets).toEqual([{ name: 'digits', rows: 3, m: 4, shape: [2, 2], labelled: true }]);
    expect(calls.at(-1)).toEqual(['idx', 'digits', images.length, labels.length]);
    // The images' header was checked first, on the bytes as read.
    expect(calls[0]).toEqual(['check', "'digits.gz'", files['blob:images'].length]);
    // Only the gzipped file went through the core's gzip reader (the command line's too).
    expect(calls.filter((c) => c[0] === 'unpack')).toEqual([['unpack', "'digits.gz'", files['blob:images'].length]]);
    const total = files['blob:images'].length + labels.length;
    expect(seen.at(-1)).toEqual([total, total]);
    expect(seen.every(([r]) => r <= total)).toBe(true);
  });

  it("loads the asset through loadAsset and passes the core's refusal of a bad file on as it is", async () => {
    files['https://x/assets/generated/mnist.bin.gz'] = await gzip(new Uint8Array(100));
    const sets = await loadSource(
      source({ kind: 'asset', name: 'mnist', files: [{ url: 'https://x/assets/generated/mnist.bin.gz', what: 'the MNIST digits' }] }),
      core,
      () => undefined,
      fakeFetch,
    );
    expect(sets[0].name).toBe('mnist');
    expect(calls.at(-1)).toEqual(['asset', 100]);
    files['blob:junk'] = new TextEncoder().encode('hello, this is not an IDX file');
    await expect(loadSource(source({ files: [{ url: 'blob:junk', what: "'junk.txt'" }] }), core, () => undefined, fakeFetch)).rejects.toEqual({
      kind: 'invalid_option',
      key: 'data',
      message: "'digits' is not an IDX images file",
    });
  });

  it('reports no total when the server marks the file gzip-encoded (the browser unpacks it: the length counts other bytes)', async () => {
    const raw = idxImages(3, 2, 2);
    const encoded = (async () => new Response(raw as BodyInit, { headers: { 'content-length': '20', 'content-encoding': 'gzip' } })) as typeof fetch;
    const seen: (number | null)[] = [];
    await loadSource(source({ files: [{ url: 'https://x/d.gz', what: "'d.gz'" }] }), core, (_, t) => seen.push(t), encoded);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((t) => t === null)).toBe(true);
    expect(calls.at(-1)).toEqual(['idx', 'digits', raw.length, null]);
  });

  it('refuses IDX images too large for a lane from their header, before unpacking or decoding anything', async () => {
    files['blob:huge'] = await gzip(idxImages(3, 2, 2));
    const from = calls.length;
    await expect(loadSource(source({ files: [{ url: 'blob:huge', what: "'huge.gz'" }] }), core, () => undefined, fakeFetch)).rejects.toEqual({
      kind: 'invalid_option',
      key: 'data',
      message: "'huge.gz' holds 1000000 images of 16×16: the data alone would take about 984 MiB in each lane",
    });
    expect(calls.slice(from).map((c) => c[0])).toEqual(['check']);
  });

  it("passes the core's refusal of a gzip file it cannot read whole on as it is", async () => {
    files['blob:cut'] = (await gzip(idxImages(3, 2, 2))).slice(0, 12);
    await expect(loadSource(source({ files: [{ url: 'blob:cut', what: "'cut.gz'" }] }), core, () => undefined, fakeFetch)).rejects.toEqual({
      kind: 'invalid_option',
      key: 'data',
      message: "'cut.gz' is truncated: gzip member 1 (at byte 0) ends early, so the file cannot be read whole",
    });
  });

  it('says plainly when a file cannot be downloaded', async () => {
    await expect(loadSource(source({ files: [{ url: 'https://x/missing', what: 'the MNIST digits' }] }), core, () => undefined, fakeFetch)).rejects.toEqual({
      kind: 'invalid_option',
      key: 'data',
      message: 'could not download the MNIST digits: the server answered 404 Not Found',
    });
    const failing = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    await expect(loadSource(source({ files: [{ url: 'blob:gone', what: "'a.gz'" }] }), core, () => undefined, failing)).rejects.toMatchObject({
      key: 'data',
      message: "could not download 'a.gz': Failed to fetch",
    });
  });
});
