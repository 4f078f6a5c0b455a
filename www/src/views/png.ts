// PNG export of a chart: uPlot draws its lines, bands and axes (labels and units included) on
// one canvas, which is copied onto a white background (a transparent PNG reads badly in most
// viewers) and downloaded. A chart that names its lanes off the canvas (the log-likelihood
// chart's readout) adds a frame: a title above, and below a legend — each lane's colour and
// dash pattern, its name and value — and the page's address, every text wrapped to the image's
// width, never cut (issue 27). The file name says what it is: the preset (or data set), the
// lane and the chart, e.g. "rbm-ucd-bas4-cd1-chain-time.png".
import { el } from './dom';

/** One entry of a PNG's legend. */
export interface LegendItem {
  text: string;
  colour: string;
  /** The line's dash pattern in CSS pixels (none: solid). */
  dash?: number[];
  /** A filled swatch (a band) instead of a line. */
  fill?: boolean;
}

/** What a PNG carries around its chart. */
export interface PngFrame {
  title: string;
  legend: LegendItem[];
  /** A last line (e.g. the page's address: how the figure was made). */
  footer?: string;
}

/** `text` broken into lines no wider than `width` (by `measure`): at spaces, and inside a word
 * only when the word alone is wider than a line. Every character is kept. */
export function wrapText(text: string, width: number, measure: (s: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (measure(next) <= width) {
      line = next;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    // A word wider than a line goes in pieces.
    let rest = word;
    while (measure(rest) > width && rest.length > 1) {
      let n = rest.length - 1;
      while (n > 1 && measure(rest.slice(0, n)) > width) n--;
      lines.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

/** Where a legend entry goes: its row, its x and its text's lines. */
export interface LegendPlace {
  item: LegendItem;
  row: number;
  x: number;
  lines: string[];
}

/**
 * The legend laid out in `width`: entries left to right (a key of `key` pixels, then the text),
 * `gap` apart, a new row when the next one does not fit; an entry too wide for a row of its own
 * wraps its text. Returns the places and each row's height in lines.
 */
export function legendLayout(
  items: LegendItem[],
  width: number,
  measure: (s: string) => number,
  key: number,
  gap: number,
): { places: LegendPlace[]; rows: number[] } {
  const places: LegendPlace[] = [];
  const rows: number[] = [];
  let x = 0;
  for (const item of items) {
    const one = key + measure(item.text);
    if (x > 0 && x + one > width) x = 0;
    if (x === 0) rows.push(1);
    const lines = one <= width - x ? [item.text] : wrapText(item.text, Math.max(1, width - key), measure);
    const row = rows.length - 1;
    rows[row] = Math.max(rows[row], lines.length);
    places.push({ item, row, x, lines });
    x += key + Math.max(...lines.map(measure)) + gap;
    if (x >= width) x = 0;
  }
  return { places, rows };
}

/** `canvas` on white with `frame` around it: the title above, the legend and the footer below. */
export function framedCanvas(canvas: HTMLCanvasElement, frame: PngFrame): HTMLCanvasElement {
  const out = document.createElement('canvas');
  const r = canvas.clientWidth > 0 ? canvas.width / canvas.clientWidth : 1;
  const pad = Math.round(10 * r);
  const width = canvas.width;
  const inner = width - 2 * pad;
  const g = out.getContext('2d');
  if (!g) return canvas;
  const font = (px: number, bold = false) => `${bold ? '600 ' : ''}${Math.round(px * r)}px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif`;
  const measureWith = (f: string) => (t: string) => {
    g.font = f;
    return g.measureText(t).width;
  };
  const titleFont = font(15, true);
  const textFont = font(12);
  const titleLine = Math.round(20 * r);
  const line = Math.round(16 * r);
  const key = Math.round(30 * r);
  const title = wrapText(frame.title, inner, measureWith(titleFont));
  const legend = legendLayout(frame.legend, inner, measureWith(textFont), key, Math.round(16 * r));
  const footer = frame.footer ? wrapText(frame.footer, inner, measureWith(textFont)) : [];
  const legendTop = pad + title.length * titleLine + Math.round(6 * r) + canvas.height + Math.round(8 * r);
  const rowTop = legend.rows.map((_, i) => legendTop + legend.rows.slice(0, i).reduce((a, b) => a + b, 0) * line);
  const footerTop = legendTop + legend.rows.reduce((a, b) => a + b, 0) * line + (footer.length ? Math.round(6 * r) : 0);
  out.width = width;
  out.height = footerTop + footer.length * line + pad;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, out.width, out.height);
  g.textBaseline = 'top';
  g.fillStyle = '#111';
  g.font = titleFont;
  for (const [i, t] of title.entries()) g.fillText(t, pad, pad + i * titleLine);
  g.drawImage(canvas, 0, pad + title.length * titleLine + Math.round(6 * r));
  g.font = textFont;
  for (const p of legend.places) {
    const x = pad + p.x;
    const y = rowTop[p.row];
    const mid = y + Math.round(line / 2) - Math.round(r);
    if (p.item.fill) {
      g.fillStyle = p.item.colour;
      g.fillRect(x, y + Math.round(3 * r), key - Math.round(6 * r), line - Math.round(6 * r));
    } else {
      g.strokeStyle = p.item.colour;
      g.lineWidth = Math.max(1, Math.round(2 * r));
      g.setLineDash((p.item.dash ?? []).map((d) => d * r));
      g.beginPath();
      g.moveTo(x, mid);
      g.lineTo(x + key - Math.round(6 * r), mid);
      g.stroke();
      g.setLineDash([]);
    }
    g.fillStyle = '#111';
    for (const [i, t] of p.lines.entries()) g.fillText(t, x + key, y + i * line);
  }
  g.fillStyle = '#555';
  for (const [i, t] of footer.entries()) g.fillText(t, pad, footerTop + i * line);
  return out;
}

/** A file-name-safe word: letters, digits and dashes. */
export function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'chart'
  );
}

/** "rbm-ucd-bas4-cd1-chain-time.png" from its parts (empty parts are left out). */
export function pngName(...parts: (string | null | undefined)[]): string {
  return `rbm-${parts
    .filter((p): p is string => !!p)
    .map(slug)
    .join('-')}.png`;
}

/** The chart's canvas inside `root` (a uPlot chart), or null before it is drawn. */
export function chartCanvas(root: ParentNode): HTMLCanvasElement | null {
  return root.querySelector<HTMLCanvasElement>('.uplot canvas');
}

/** Downloads `canvas` as a PNG file `name`, on white (with `frame` around it when given). */
export function downloadPng(canvas: HTMLCanvasElement, name: string, frame?: PngFrame): void {
  let out = document.createElement('canvas');
  if (frame) out = framedCanvas(canvas, frame);
  else {
    out.width = canvas.width;
    out.height = canvas.height;
    const g = out.getContext('2d');
    if (!g) return;
    g.fillStyle = '#fff';
    g.fillRect(0, 0, out.width, out.height);
    g.drawImage(canvas, 0, 0);
  }
  out.toBlob((blob) => {
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: name });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }, 'image/png');
}

/** A "PNG" button that downloads the chart inside `root` as `name()` (framed by `frame()`, a
 * title and legend, when given). */
export function pngButton(root: ParentNode, name: () => string, what = 'this chart', frame?: () => PngFrame | null): HTMLButtonElement {
  const b = el('button', { type: 'button', className: 'png-export', textContent: 'PNG', title: `Download ${what} as a PNG image` });
  b.addEventListener('click', () => {
    const c = chartCanvas(root);
    if (c) downloadPng(c, name(), frame?.() ?? undefined);
  });
  return b;
}

/** A "PNG" button for a picture drawn on a canvas of its own (filters, samples, the model's
 * bars): `canvas()` at the time of the click, enlarged `scale` times without smoothing (a
 * 4×4 filter stays crisp), titled by `frame()`. */
export function canvasPngButton(canvas: () => HTMLCanvasElement | null, name: () => string, what: string, frame: () => PngFrame): HTMLButtonElement {
  const b = el('button', { type: 'button', className: 'png-export', textContent: 'PNG', title: `Download ${what} as a PNG image` });
  b.addEventListener('click', () => {
    const c = canvas();
    if (!c || c.width === 0 || c.height === 0) return;
    // Small pictures (a 4×4 filter is a few pixels) are enlarged to at least 480 pixels wide.
    const scale = Math.max(1, Math.ceil(480 / c.width));
    const big = document.createElement('canvas');
    big.width = c.width * scale;
    big.height = c.height * scale;
    const g = big.getContext('2d');
    if (!g) return;
    g.imageSmoothingEnabled = false;
    g.drawImage(c, 0, 0, big.width, big.height);
    downloadPng(big, name(), frame());
  });
  return b;
}
