// PNG export of a chart: uPlot draws its lines, bands and axes (labels and units included) on
// one canvas, which is copied onto a white background (a transparent PNG reads badly in most
// viewers) and downloaded. The file name says what it is: the preset (or data set), the lane
// and the chart, e.g. "rbm-ucd-bas4-cd1-chain-time.png".
import { el } from './dom';

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

/** Downloads `canvas` as a PNG file `name`, on white. */
export function downloadPng(canvas: HTMLCanvasElement, name: string): void {
  const out = document.createElement('canvas');
  out.width = canvas.width;
  out.height = canvas.height;
  const g = out.getContext('2d');
  if (!g) return;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, out.width, out.height);
  g.drawImage(canvas, 0, 0);
  out.toBlob((blob) => {
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: name });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }, 'image/png');
}

/** A "PNG" button that downloads the chart inside `root` as `name()`. */
export function pngButton(root: ParentNode, name: () => string, what = 'this chart'): HTMLButtonElement {
  const b = el('button', { type: 'button', className: 'png-export', textContent: 'PNG', title: `Download ${what} as a PNG image` });
  b.addEventListener('click', () => {
    const c = chartCanvas(root);
    if (c) downloadPng(c, name());
  });
  return b;
}
