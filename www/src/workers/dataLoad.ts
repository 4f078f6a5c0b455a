// The loading a worker does for data sets the core does not build in (protocol/data.ts: the
// sources and their helpers): fetch a URL with progress, unpack gzip with the core's one reader
// (the command line's too: every member read, a truncated file or trailing bytes refused), then
// hand them to the wasm core. Never on the page's thread.
import type { ErrorInfo, LoadedSet } from '../generated/core';
import { dataError, formatBytes, isGzip, MAX_DATA_BYTES } from '../protocol/data';
import type { DataSource } from '../protocol/messages';

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

/** The wasm core's gzip reader, its check of an IDX header and its loaders (crates/wasm: unpack,
 * checkIdx, loadAsset, loadIdx, loadPatterns); each throws ErrorInfo with key 'data'. */
export interface DataCore {
  unpack(bytes: Uint8Array, what: string): Uint8Array;
  /** Refuses an IDX images file (gzipped or not) whose header declares more data than one lane
   * of the page may hold, before anything of it is unpacked or decoded (anything else wrong
   * with the file is left to `unpack` and `loadIdx`). */
  checkIdx(bytes: Uint8Array, what: string): void;
  loadAsset(bytes: Uint8Array): LoadedSet[];
  loadIdx(name: string, images: Uint8Array, labels: Uint8Array | null): LoadedSet;
  loadPatterns(name: string, text: string): LoadedSet;
}

/**
 * Loads a data source into this worker's core: download (with progress over every file),
 * check an IDX images file's size from its header against the page's budget, unpack what is
 * gzipped (detected from its first bytes, whatever the file is called), then the core's
 * loader. Rejects with an ErrorInfo of key 'data' and one message.
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
      if (src.kind === 'idx' && i === 0) core.checkIdx(bytes, what);
      return isGzip(bytes) ? core.unpack(bytes, what) : bytes;
    }),
  );
  if (src.kind === 'asset') return core.loadAsset(files[0]);
  if (src.kind === 'patterns') return [core.loadPatterns(src.name, new TextDecoder().decode(files[0]))];
  return [core.loadIdx(src.name, files[0], files[1] ?? null)];
}
