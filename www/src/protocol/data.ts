// Data sets the core does not build in: the project's MNIST asset and the user's own IDX files.
// Pure helpers both sides use (download sizes, gzip detection, a file's data set name, which
// file is which, the data input's errors). The loading itself runs in a worker
// (workers/dataLoad.ts): the page only makes the URLs (the asset's, or a `blob:` URL of the
// user's file); it never reads, decompresses or parses the bytes itself.
import type { DataSetEntry, ErrorInfo, LoadedSet } from '../generated/core';

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
