// Canvases of a lane: grids of tiles (weight filters, samples, reconstructions) drawn from
// their pixels (tiles.ts) in one putImageData, and the model distribution over the data set's
// distinct patterns.
import type { Distribution } from '../generated/core';
import { barLayout } from './readouts';
import type { Pixels } from './tiles';

export { perRow } from './readouts';

export { absMax, diverging, grid, patternShape } from './tiles';

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

/** Draws pixels (tiles.ts) with one putImageData, one canvas pixel per CSS pixel. */
export function drawPixels(canvas: HTMLCanvasElement, px: Pixels): void {
  if (canvas.width !== px.width) canvas.width = px.width;
  if (canvas.height !== px.height) canvas.height = px.height;
  canvas.style.width = `${px.width}px`;
  canvas.style.height = `${px.height}px`;
  if (px.width === 0 || px.height === 0) return;
  const g = canvas.getContext('2d');
  if (!g) throw new Error('this browser gives no 2D canvas');
  g.putImageData(new ImageData(px.data, px.width, px.height), 0, 0);
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

/** How much taller than the data's largest frequency the bars' scale is: the data outlines
 * always fill at least this share of the bar height. */
export const DATA_SHARE = 2 / 3;

/** The bar heights' scale: the largest probability shown, but never so far above the data's
 * largest frequency that the outlines shrink below DATA_SHARE of the height (a model that piles
 * its mass on one pattern is clipped there, marked, instead of flattening every outline). */
export function barScale(dist: Distribution): number {
  const data = Math.max(0, ...dist.data);
  const all = Math.max(1e-9, ...dist.model, data);
  return data > 0 ? Math.min(all, data / DATA_SHARE) : all;
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
  const { cols, slot, cell, barH, rowH, shape: ps } = barLayout(count, m, shape, width);
  const rows = Math.ceil(count / cols);
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
    if (dist.model[k] > top) {
      // Clipped: a white notch across the top says the bar goes on.
      g.fillStyle = '#fff';
      g.fillRect(x + 1, y0 + 4, bw - 2, 2);
    }
    const hData = (dist.data[k] / top) * barH;
    g.strokeStyle = '#111';
    g.lineWidth = 1;
    g.strokeRect(x + 0.5, y0 + barH - hData + 0.5, bw - 1, hData);
    thumbnail(g, patterns[k], ps, x + Math.floor((bw - cell * ps[1]) / 2), y0 + barH + 4, cell);
  }
}
