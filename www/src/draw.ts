// Canvases of a lane: the weight filters (one tile per hidden unit, diverging colours), the
// model distribution over the data set's distinct patterns, and a strip of chain states.
import type { Distribution } from './generated/core';

/** Blue–white–red diverging map (ColorBrewer RdBu end points) for t ∈ [−1, 1]. */
export function diverging(t: number): [number, number, number] {
  const x = Math.max(-1, Math.min(1, Number.isFinite(t) ? t : 0));
  const white: [number, number, number] = [247, 247, 247];
  const end: [number, number, number] = x < 0 ? [33, 102, 172] : [178, 24, 43];
  const a = Math.abs(x);
  return [0, 1, 2].map((i) => Math.round(white[i] + (end[i] - white[i]) * a)) as [number, number, number];
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

/** Image shape of a pattern of `m` units: the data set's, else one row. */
export function patternShape(m: number, shape: [number, number] | null): [number, number] {
  return shape && shape[0] * shape[1] === m ? shape : [1, m];
}

/** Sizes the canvas's backing store for the device pixel ratio; returns the 2D context. */
function prepare(canvas: HTMLCanvasElement, cssW: number, cssH: number): CanvasRenderingContext2D {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${cssW}px`;
  canvas.style.height = `${cssH}px`;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const g = canvas.getContext('2d');
  if (!g) throw new Error('this browser gives no 2D canvas');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, cssW, cssH);
  return g;
}

/** Hidden unit j's filter W[:, j] as a tile, for every j; returns the colour scale used. */
export function drawFilters(canvas: HTMLCanvasElement, w: Float32Array, m: number, n: number, shape: [number, number] | null, width: number): number {
  const [h, wd] = patternShape(m, shape);
  const { cols, rows } = grid(n);
  const gap = 3;
  const cell = Math.max(1, Math.floor((width - gap * (cols - 1)) / (cols * wd)));
  const tileW = cell * wd;
  const tileH = cell * h;
  const g = prepare(canvas, cols * tileW + gap * (cols - 1), rows * tileH + gap * (rows - 1));
  const scale = absMax(w);
  for (let j = 0; j < n; j++) {
    const x0 = (j % cols) * (tileW + gap);
    const y0 = Math.floor(j / cols) * (tileH + gap);
    for (let i = 0; i < m; i++) {
      const [r, gg, b] = diverging(w[i * n + j] / scale);
      g.fillStyle = `rgb(${r},${gg},${b})`;
      g.fillRect(x0 + (i % wd) * cell, y0 + Math.floor(i / wd) * cell, cell, cell);
    }
  }
  return scale;
}

function thumbnail(g: CanvasRenderingContext2D, p: ArrayLike<number>, shape: [number, number], x0: number, y0: number, cell: number): void {
  const [h, w] = shape;
  g.fillStyle = '#fff';
  g.fillRect(x0, y0, w * cell, h * cell);
  g.fillStyle = '#222';
  for (let i = 0; i < h * w; i++) if (p[i]) g.fillRect(x0 + (i % w) * cell, y0 + Math.floor(i / w) * cell, cell, cell);
  g.strokeStyle = '#bbb';
  g.lineWidth = 0.5;
  g.strokeRect(x0, y0, w * cell, h * cell);
}

/** The bar heights' scale: the largest probability shown (model or data), at least 1e-9. */
export function barScale(dist: Distribution): number {
  return Math.max(1e-9, ...dist.model, ...dist.data);
}

/** Patterns per row of the distribution plot. */
export function perRow(count: number): number {
  return count <= 16 ? count : Math.ceil(count / Math.ceil(count / 16));
}

/**
 * For each distinct pattern: an outlined bar at its frequency in the data and a filled bar at
 * its model probability p(v), with the pattern's thumbnail below; a perfect model fills every
 * outline exactly. Long lists wrap into rows.
 */
export function drawDistribution(
  canvas: HTMLCanvasElement,
  dist: Distribution,
  patterns: number[][],
  shape: [number, number] | null,
  colour: string,
  width: number,
): void {
  const count = patterns.length;
  const m = patterns[0]?.length ?? 1;
  const ps = patternShape(m, shape);
  const cols = perRow(count);
  const rows = Math.ceil(count / cols);
  const slot = Math.max(6, Math.floor(width / Math.max(1, cols)));
  const cell = Math.max(1, Math.min(5, Math.floor((slot - 4) / ps[1])));
  const thumbH = cell * ps[0];
  const barH = 56;
  const rowH = barH + 4 + thumbH + 10;
  const g = prepare(canvas, slot * cols, rowH * rows);
  const top = barScale(dist);
  for (let k = 0; k < count; k++) {
    const x = (k % cols) * slot + 2;
    const y0 = Math.floor(k / cols) * rowH;
    const bw = slot - 4;
    g.fillStyle = '#e0e0e0';
    g.fillRect(x - 2, y0 + barH, slot, 1);
    const hModel = Math.min(barH, (dist.model[k] / top) * barH);
    g.fillStyle = colour;
    g.fillRect(x + 1, y0 + barH - hModel, bw - 2, hModel);
    const hData = (dist.data[k] / top) * barH;
    g.strokeStyle = '#111';
    g.lineWidth = 1;
    g.strokeRect(x + 0.5, y0 + barH - hData + 0.5, bw - 1, hData);
    thumbnail(g, patterns[k], ps, x + Math.floor((bw - cell * ps[1]) / 2), y0 + barH + 4, cell);
  }
}

/** Chain states (the negative phase's particles) as a grid of thumbnails. */
export function drawChains(canvas: HTMLCanvasElement, chains: number[], m: number, shape: [number, number] | null, width: number): void {
  const ps = patternShape(m, shape);
  const count = Math.floor(chains.length / m);
  const gap = 4;
  const cell = ps[1] <= 8 ? 3 : 1;
  const tile = cell * ps[1] + gap;
  const cols = Math.max(1, Math.min(count, Math.floor((width + gap) / tile)));
  const rows = Math.ceil(count / cols);
  const g = prepare(canvas, cols * tile, rows * (cell * ps[0] + gap));
  for (let c = 0; c < count; c++) {
    thumbnail(g, chains.slice(c * m, (c + 1) * m), ps, (c % cols) * tile, Math.floor(c / cols) * (cell * ps[0] + gap), cell);
  }
}
