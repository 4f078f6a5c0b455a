// Hover (and tap) readouts of the lanes' canvases: which tile or bar is under the pointer and
// what it shows, in numbers — a weight filter's hidden unit and weight range, a bar's pattern,
// p(v) and data frequency, a sample's chain. The hit tests are DOM-free (unit-tested); the
// listener takes the pointer's position in the drawing's CSS pixels.
import type { Distribution } from '../generated/core';
import { el, setText } from './dom';
import { patternShape, type TileLayout, tileOrigin } from './tiles';

/** The tile under (x, y) of a grid (CSS pixels of the drawing; null: a gap or outside). */
export function tileAt(l: TileLayout, x: number, y: number): number | null {
  const [h, w] = l.shape;
  const tw = w * l.cell;
  const th = h * l.cell;
  if (x < 0 || y < 0) return null;
  const col = Math.floor(x / (tw + l.gap));
  const row = Math.floor(y / (th + l.gap));
  if (col >= l.cols) return null;
  const k = row * l.cols + col;
  if (k >= l.count) return null;
  const [x0, y0] = tileOrigin(l, k);
  return x - x0 < tw && y - y0 < th ? k : null;
}

/** A number for a readout: 3 significant digits, a real minus sign. */
function num(v: number): string {
  const s = Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.001) ? v.toExponential(2) : v.toPrecision(3);
  return s.replace('-', '−');
}

/** The readout of weight filter k (column k of W, m×n row-major). */
export function filterReadout(w: ArrayLike<number>, m: number, n: number, k: number): string {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < m; i++) {
    const v = w[i * n + k];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return `hidden unit ${k + 1} of ${n}: weights from ${num(lo)} to ${num(hi)}`;
}

/** Where the bars of the model distribution go (drawDistribution draws them so). */
export interface BarLayout {
  count: number;
  cols: number;
  slot: number;
  cell: number;
  barH: number;
  rowH: number;
  shape: [number, number];
}

/** Patterns per row of the distribution plot. */
export function perRow(count: number): number {
  return count <= 16 ? count : Math.ceil(count / Math.ceil(count / 16));
}

export function barLayout(count: number, m: number, shape: [number, number] | null, width: number): BarLayout {
  const ps = patternShape(m, shape);
  const cols = Math.max(1, perRow(count));
  const slot = Math.max(6, Math.floor(width / cols));
  const cell = Math.max(1, Math.min(5, Math.floor((slot - 4) / ps[1])));
  const barH = 56;
  return { count, cols, slot, cell, barH, rowH: barH + 4 + cell * ps[0] + 10, shape: ps };
}

/** The pattern whose bar (or thumbnail) is under (x, y) (null: none). */
export function barAt(l: BarLayout, x: number, y: number): number | null {
  if (x < 0 || y < 0) return null;
  const col = Math.floor(x / l.slot);
  const row = Math.floor(y / l.rowH);
  if (col >= l.cols) return null;
  const k = row * l.cols + col;
  return k < l.count ? k : null;
}

/** The readout of pattern k's bar: the pattern, p(v) and its frequency in the data. */
export function barReadout(pattern: readonly number[], shape: [number, number], k: number, dist: Distribution): string {
  const [h, w] = shape;
  const rows: string[] = [];
  for (let r = 0; r < h; r++) rows.push(pattern.slice(r * w, (r + 1) * w).join(''));
  return `pattern ${k + 1} (${rows.join(' ')}): p(v) = ${num(dist.model[k])}, in the data ${num(dist.data[k])}`;
}

/** The readout of sample k of a strip of `count` chains' states (m units each). */
export function sampleReadout(states: ArrayLike<number>, m: number, k: number, count: number): string {
  let on = 0;
  for (let i = 0; i < m; i++) if (states[k * m + i] > 0.5) on++;
  return `chain ${k + 1} of ${count}: ${on} of ${m} units on`;
}

/**
 * A readout line under `canvas`: moving the mouse over it, or touching it, shows `at(x, y)` for
 * the point (CSS pixels of the drawing); leaving it clears the line. `at` is read at each move,
 * so the panel can replace what it reads when it redraws.
 */
export function hoverReadout(canvas: HTMLCanvasElement, at: () => ((x: number, y: number) => string | null) | null): HTMLElement {
  const out = el('p', { className: 'hover-readout' });
  out.setAttribute('aria-live', 'polite');
  const show = (clientX: number, clientY: number) => {
    const r = canvas.getBoundingClientRect();
    const f = at();
    if (!f || r.width === 0 || r.height === 0) return;
    const cssW = Number.parseFloat(canvas.style.width) || r.width;
    const cssH = Number.parseFloat(canvas.style.height) || r.height;
    const text = f(((clientX - r.left) * cssW) / r.width, ((clientY - r.top) * cssH) / r.height);
    setText(out, text ?? '');
  };
  canvas.addEventListener('mousemove', (e) => show(e.clientX, e.clientY));
  canvas.addEventListener('mouseleave', () => setText(out, ''));
  const touch = (e: TouchEvent) => {
    const t = e.touches[0];
    if (t) show(t.clientX, t.clientY);
  };
  canvas.addEventListener('touchstart', touch, { passive: true });
  canvas.addEventListener('touchmove', touch, { passive: true });
  return out;
}

/** The readout of image k of a sampler's strip (oldest first): where it stands and its ink. */
export function stripReadout(images: readonly ArrayLike<number>[], k: number): string | null {
  const x = images[k];
  if (!x) return null;
  let ink = 0;
  for (let i = 0; i < x.length; i++) ink += x[i];
  const newer = images.length - 1 - k;
  const where = newer === 0 ? 'the newest' : `${newer} newer after it`;
  return `strip image ${k + 1} of ${images.length} (${where}): mean pixel value ${num(ink / Math.max(1, x.length))}`;
}
