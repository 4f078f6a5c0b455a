// Data sets the core does not build in: the project's MNIST asset and the user's own IDX files.
// Pure helpers (download sizes, gzip detection, a file's data set name, which file is which)
// and the loading a lane's worker does: fetch a URL with progress, gunzip through
// DecompressionStream when the bytes are gzipped, then hand them to the wasm core. The page
// only makes the URLs (the asset's, or a `blob:` URL of the user's file): it never reads,
// decompresses or parses the bytes itself.
import type { DataSetEntry, ErrorInfo, LoadedSet } from '../generated/core';
import type { DataSource } from './messages';

/** Where the page serves an asset `NAME` (relative to the page: it works from any folder). */
export function assetPath(asset: string): string {
  return `assets/generated/${asset}.bin.gz`;
}

/** What the page calls an asset while it loads. */
export const ASSET_LABELS: Record<string, string> = { mnist: 'the MNIST digits' };

/** Approximate download sizes of the assets, in bytes, for the picker ("loads 1.6 MB once");
 * a unit test checks them against the built files. */
export const ASSET_BYTES: Record<string, number> = { mnist: 1_593_000 };

/** The largest file a worker decompresses or downloads (the core's CLI caps its input alike). */
export const MAX_DATA_BYTES = 256 * 1024 * 1024;

/** A size for people: "812 bytes", "64 kB", "1.6 MB" (decimal units, as downloads are shown). */
export function formatBytes(n: number): string {
  if (!(n >= 0)) return '?';
  if (n < 1000) return `${Math.round(n)} bytes`;
  if (n < 1e6) return `${Math.round(n / 1000)} kB`;
  return `${(n / 1e6).toFixed(1)} MB`;
}

/** "0.4 of 1.6 MB", or "0.4 MB" when the total is unknown. */
export function formatProgress(received: number, total: number | null): string {
  if (total === null || !(total > 0)) return formatBytes(received);
  const r = Math.min(received, total);
  if (total >= 1e6) return `${(r / 1e6).toFixed(1)} of ${formatBytes(total)}`;
  return `${formatBytes(r)} of ${formatBytes(total)}`;
}

/** Whether bytes start with the gzip magic number 1f 8b. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * The data set name a user's images file gets: its file name without `.gz` and without the
 * IDX suffix (`train-images-idx3-ubyte.gz` → `train-images`). A name the core already uses
 * (`taken`: the built-in sets and MNIST's splits) gets " (file)", so it never hides one.
 */
export function idxDataName(fileName: string, taken: readonly string[]): string {
  let base = fileName.replace(/^.*[\\/]/, '').trim();
  base = base.replace(/\.gz$/i, '');
  base = base.replace(/[-._]?idx\d?[-._]?ubyte$/i, '').replace(/\.(idx\d?|ubyte|bin)$/i, '');
  base = base.trim() || 'my-data';
  if (!taken.includes(base)) return base;
  for (let i = 1; ; i++) {
    const name = i === 1 ? `${base} (file)` : `${base} (file ${i})`;
    if (!taken.includes(name)) return name;
  }
}

/** What a file looks like from its name: IDX labels (`idx1`, "labels") or images. */
export function looksLikeLabels(fileName: string): boolean {
  return /idx1|label/i.test(fileName);
}

/** The files a user chose or dropped: which holds the images, which the labels (if any). */
export type ChosenFiles<T> = { ok: true; images: T; labels: T | null } | { ok: false; message: string };

/**
 * Sorts one or two chosen files into images and labels by their names (`idx3`/`idx1`,
 * "images"/"labels"); with two files that the names do not tell apart, the larger holds the
 * images. Anything else (also a file larger than `MAX_DATA_BYTES`) gets one clear message.
 */
export function sortIdxFiles<T extends { name: string; size: number }>(files: readonly T[]): ChosenFiles<T> {
  if (files.length === 0) return { ok: false, message: 'choose an IDX images file (idx3-ubyte, optionally gzipped)' };
  if (files.length > 2) {
    return { ok: false, message: `choose one IDX images file (idx3-ubyte) and at most one labels file (idx1-ubyte), not ${files.length} files` };
  }
  // Checked before any byte is read (the worker's read is bounded too, for gzipped files).
  const big = files.find((f) => f.size > MAX_DATA_BYTES);
  if (big) return { ok: false, message: `'${big.name}' is ${formatBytes(big.size)}, larger than ${formatBytes(MAX_DATA_BYTES)}, the most the page reads` };
  if (files.length === 1) {
    const [f] = files;
    if (/idx1/i.test(f.name)) return { ok: false, message: `'${f.name}' is an IDX labels file (idx1-ubyte): choose its images file (idx3-ubyte) with it` };
    return { ok: true, images: f, labels: null };
  }
  const [a, b] = files;
  const la = looksLikeLabels(a.name);
  const lb = looksLikeLabels(b.name);
  if (la && !lb) return { ok: true, images: b, labels: a };
  if (lb && !la) return { ok: true, images: a, labels: b };
  return a.size >= b.size ? { ok: true, images: a, labels: b } : { ok: true, images: b, labels: a };
}

/** The picker's entry of a user's data set, from what the core made of the file. */
export function userDataEntry(set: LoadedSet, fileName: string): DataSetEntry {
  const shape = set.shape ? `${set.shape[0]}×${set.shape[1]}` : `${set.m} values`;
  const labelled = set.labelled ? ', with labels' : '';
  return {
    name: set.name,
    description: `${set.name}: your file ${fileName}, ${set.rows.toLocaleString('en')} images of ${shape}${labelled}`,
    rows: set.rows,
    m: set.m,
    shape: set.shape,
    bound: null,
    patterns: [],
    counts: [],
    asset: null,
  };
}

/** An error of the data input (`key: 'data'`), as the core gives them. */
export function dataError(message: string): ErrorInfo {
  return { kind: 'invalid_option', key: 'data', message };
}

function isErrorLike(e: unknown): e is ErrorInfo {
  return typeof e === 'object' && e !== null && typeof (e as ErrorInfo).message === 'string' && typeof (e as ErrorInfo).kind === 'string';
}

/** Reads a byte stream to its end, refusing more than `max` bytes; `progress` gets the count. */
async function readAll(stream: ReadableStream<Uint8Array>, max: number, tooLarge: () => ErrorInfo, progress?: (n: number) => void): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
    progress?.(n);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Decompresses gzip bytes (in the worker), at most `max` bytes out; `what` names the file in errors. */
export async function gunzip(bytes: Uint8Array, what: string, max = MAX_DATA_BYTES): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  try {
    return await readAll(stream, max, () => dataError(`${what} unpacks to more than ${formatBytes(max)}, the most the page reads`));
  } catch (e) {
    if (isErrorLike(e)) throw e;
    throw dataError(`${what} is damaged: it starts like a gzip file but does not unpack (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** Downloads `url` (the asset, or a user's file as a blob: URL) with progress. */
export async function fetchBytes(
  url: string,
  what: string,
  progress: (received: number, total: number | null) => void,
  fetchFn: typeof fetch = fetch,
): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetchFn(url);
  } catch (e) {
    throw dataError(`could not download ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!res.ok) throw dataError(`could not download ${what}: the server answered ${res.status} ${res.statusText}`.trim());
  // With a Content-Encoding (a server that marks a .gz file as gzip-encoded) the browser
  // unpacks the body: the length counts other bytes than the body gives, so the total is unknown.
  const length = Number(res.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 && !res.headers.get('content-encoding') ? length : null;
  progress(0, total);
  try {
    if (!res.body) return new Uint8Array(await res.arrayBuffer());
    return await readAll(
      res.body,
      MAX_DATA_BYTES,
      () => dataError(`${what} is larger than ${formatBytes(MAX_DATA_BYTES)}, the most the page reads`),
      (n) => progress(n, total),
    );
  } catch (e) {
    if (isErrorLike(e)) throw e;
    throw dataError(`could not download ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The wasm core's loaders (crates/wasm: loadAsset, loadIdx); both throw ErrorInfo with key 'data'. */
export interface DataCore {
  loadAsset(bytes: Uint8Array): LoadedSet[];
  loadIdx(name: string, images: Uint8Array, labels: Uint8Array | null): LoadedSet;
  loadPatterns(name: string, text: string): LoadedSet;
}

/**
 * Loads a data source into this worker's core: download (with progress over every file),
 * gunzip what is gzipped (detected from its first bytes, whatever the file is called), then
 * the core's loader. Rejects with an ErrorInfo of key 'data' and one message.
 */
export async function loadSource(
  src: DataSource,
  core: DataCore,
  progress: (received: number, total: number | null) => void,
  fetchFn: typeof fetch = fetch,
): Promise<LoadedSet[]> {
  if (src.files.length === 0) throw dataError('no file to load');
  const got = src.files.map(() => ({ received: 0, total: null as number | null }));
  const report = () => {
    const totals = got.map((g) => g.total);
    const total = totals.every((t) => t !== null) ? (totals as number[]).reduce((a, b) => a + b, 0) : null;
    progress(
      got.reduce((a, g) => a + g.received, 0),
      total,
    );
  };
  const files = await Promise.all(
    src.files.map(async ({ url, what }, i) => {
      const bytes = await fetchBytes(
        url,
        what,
        (received, total) => {
          got[i] = { received, total };
          report();
        },
        fetchFn,
      );
      return isGzip(bytes) ? gunzip(bytes, what) : bytes;
    }),
  );
  if (src.kind === 'asset') return core.loadAsset(files[0]);
  if (src.kind === 'patterns') return [core.loadPatterns(src.name, new TextDecoder().decode(files[0]))];
  return [core.loadIdx(src.name, files[0], files[1] ?? null)];
}
