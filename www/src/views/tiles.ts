// Grids of small images as RGBA pixels, DOM-free: the weight filters (one tile per hidden
// unit, diverging colours) and grey or 0/1 images (chain samples, training rows and their
// reconstructions). A panel turns the pixels into one ImageData and draws it with one
// putImageData per refresh — 500 filters of 784 weights are 392 000 table look-ups, not
// 392 000 fillRect calls.

/** Blue–white–red diverging map (ColorBrewer RdBu end points) for t ∈ [−1, 1]. */
export function diverging(t: number): [number, number, number] {
  const x = Math.max(-1, Math.min(1, Number.isFinite(t) ? t : 0));
  const white: [number, number, number] = [247, 247, 247];
  const end: [number, number, number] = x < 0 ? [33, 102, 172] : [178, 24, 43];
  const a = Math.abs(x);
  return [0, 1, 2].map((i) => Math.round(white[i] + (end[i] - white[i]) * a)) as [number, number, number];
}

/** Steps of the colour table per unit of t: t is read to 1/LUT_STEPS (the table has 2·LUT_STEPS + 1 colours). */
export const LUT_STEPS = 255;

/** diverging() at t = k/LUT_STEPS − 1, k = 0 … 2·LUT_STEPS, as packed RGB. */
const LUT: Uint8Array = (() => {
  const lut = new Uint8Array(3 * (2 * LUT_STEPS + 1));
  for (let k = 0; k <= 2 * LUT_STEPS; k++) lut.set(diverging(k / LUT_STEPS - 1), 3 * k);
  return lut;
})();

/** The table's colour for t (clamped to [−1, 1]; NaN is 0): diverging() of t rounded to 1/LUT_STEPS. */
export function divergingLut(t: number): [number, number, number] {
  const k = lutIndex(t);
  return [LUT[k], LUT[k + 1], LUT[k + 2]];
}

function lutIndex(t: number): number {
  const x = t > 1 ? 1 : t < -1 ? -1 : Number.isNaN(t) ? 0 : t;
  return 3 * Math.round((x + 1) * LUT_STEPS);
}

/** Columns and rows of a near-square grid of `count` tiles. */
export function grid(count: number): { cols: number; rows: number } {
  const cols = Math.max(1, Math.ceil(Math.sqrt(count)));
  return { cols, rows: Math.max(1, Math.ceil(count / cols)) };
}

/** The largest |w| (at least a tiny positive number), the symmetric colour scale. */
export function absMax(w: ArrayLike<number>): number {
  let m = 1e-12;
  for (let i = 0; i < w.length; i++) {
    const a = Math.abs(w[i]);
    if (a > m) m = a;
  }
  return m;
}

/** The largest |W[i, j]| over the first `count` columns of an m×n row-major W (at least a tiny number). */
export function absMaxColumns(w: ArrayLike<number>, m: number, n: number, count: number): number {
  if (count >= n) return absMax(w);
  let mx = 1e-12;
  for (let i = 0; i < m; i++) {
    const row = i * n;
    for (let j = 0; j < count; j++) {
      const a = Math.abs(w[row + j]);
      if (a > mx) mx = a;
    }
  }
  return mx;
}

/** Image shape of a pattern of `m` units: the data set's, else one row. */
export function patternShape(m: number, shape: [number, number] | null): [number, number] {
  return shape && shape[0] * shape[1] === m ? shape : [1, m];
}

/** Where the tiles of a grid go, in pixels. */
export interface TileLayout {
  count: number;
  cols: number;
  rows: number;
  /** Pixels per unit (each unit is a cell × cell square). */
  cell: number;
  /** Pixels between tiles. */
  gap: number;
  /** The image shape [height, width] of a tile, in units. */
  shape: [number, number];
  width: number;
  height: number;
}

/**
 * Lays `count` tiles of `shape` out in at most `maxWidth` pixels: `cols` columns when they fit
 * (else as many as fit at one pixel per unit), each unit as large as fits, at most `maxCell`.
 */
export function tileLayout(
  count: number,
  shape: [number, number],
  maxWidth: number,
  { cols = grid(count).cols, gap = 2, maxCell = 64 }: { cols?: number; gap?: number; maxCell?: number } = {},
): TileLayout {
  const [h, w] = shape;
  let c = Math.max(1, Math.min(Math.max(1, count), Math.floor(cols)));
  const cellFor = (k: number) => Math.floor((maxWidth - gap * (k - 1)) / (k * w));
  const cell = Math.max(1, Math.min(maxCell, cellFor(c)));
  // Too many columns even at one pixel per unit: as many as fit.
  if (cellFor(c) < 1) c = Math.max(1, Math.floor((maxWidth + gap) / (w + gap)));
  const rows = Math.max(1, Math.ceil(count / c));
  return {
    count,
    cols: c,
    rows,
    cell,
    gap,
    shape,
    width: c * w * cell + gap * (c - 1),
    height: rows * h * cell + gap * (rows - 1),
  };
}

/** RGBA pixels, row-major, 4 bytes each (what an ImageData holds). */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray<ArrayBuffer>;
}

/** The top-left pixel of tile `k`. */
export function tileOrigin(l: TileLayout, k: number): [number, number] {
  const [h, w] = l.shape;
  return [(k % l.cols) * (w * l.cell + l.gap), Math.floor(k / l.cols) * (h * l.cell + l.gap)];
}

function blank(l: TileLayout, background: [number, number, number, number] | null): Pixels {
  const data = new Uint8ClampedArray(4 * l.width * l.height);
  if (background) for (let p = 0; p < data.length; p += 4) data.set(background, p);
  return { width: l.width, height: l.height, data };
}

/** Paints unit (row r, column c) of tile `k` in one colour. */
function paint(px: Pixels, l: TileLayout, x0: number, y0: number, r: number, c: number, red: number, green: number, blue: number): void {
  const cell = l.cell;
  const d = px.data;
  for (let dy = 0; dy < cell; dy++) {
    let p = 4 * ((y0 + r * cell + dy) * px.width + x0 + c * cell);
    for (let dx = 0; dx < cell; dx++) {
      d[p] = red;
      d[p + 1] = green;
      d[p + 2] = blue;
      d[p + 3] = 255;
      p += 4;
    }
  }
}

/**
 * The weight filters: tile k shows column k of W (m×n row-major: W[i, k] = w[i·n + k]) as an
 * image of `layout.shape`, each weight's colour diverging(W[i, k] / scale) (blue negative, red
 * positive, white 0, from the colour table); the gaps are transparent.
 */
export function filterPixels(w: ArrayLike<number>, m: number, n: number, layout: TileLayout, scale: number): Pixels {
  const px = blank(layout, null);
  const wd = layout.shape[1];
  const inv = 1 / (scale > 0 ? scale : 1);
  for (let k = 0; k < Math.min(layout.count, n); k++) {
    const [x0, y0] = tileOrigin(layout, k);
    for (let i = 0; i < m; i++) {
      const at = lutIndex(w[i * n + k] * inv);
      paint(px, layout, x0, y0, Math.floor(i / wd), i % wd, LUT[at], LUT[at + 1], LUT[at + 2]);
    }
  }
  return px;
}

/** Ink of a grey level v ∈ [0, 1] (clamped): white paper at 0, near-black (34) at 1. */
export function ink(v: number): number {
  const x = v > 1 ? 1 : v > 0 ? v : 0;
  return Math.round(255 - 221 * x);
}

/** Light grey between tiles, so an empty (all-white) image still shows as a tile. */
export const TILE_BACKGROUND: [number, number, number, number] = [190, 194, 200, 255];

/** Images of grey levels or 0/1 values (`count × m`, row k is tile k) as dark ink on white. */
export function greyPixels(values: ArrayLike<number>, m: number, layout: TileLayout): Pixels {
  const px = blank(layout, TILE_BACKGROUND);
  const wd = layout.shape[1];
  const count = Math.min(layout.count, Math.floor(values.length / m));
  for (let k = 0; k < count; k++) {
    const [x0, y0] = tileOrigin(layout, k);
    for (let i = 0; i < m; i++) {
      const g = ink(values[k * m + i]);
      paint(px, layout, x0, y0, Math.floor(i / wd), i % wd, g, g, g);
    }
  }
  return px;
}
