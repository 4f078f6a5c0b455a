// One claim's map as a table (issue 29): rows over one axis, columns over the other, each cell
// ✓ / ✗ / ? with the number the claim is judged by, green where it holds and red where it fails,
// deeper with the margin, the preset's own setting outlined. A table cell, so screen readers and
// phones read it. Each cell carries its verdict and full number as data (data-holds,
// data-value), which the end-to-end tests compare with `rbm explore`'s.
import type { Axis, ClaimMap } from '../app/claimMap';
import { cellText } from '../app/explorerRuns';
import { el } from './dom';

const SYMBOL: Record<Axis, string> = { lr: 'η', init_sigma: 'σ', k: 'k', d: 'd', kprime: 'K′', chains: 'chains', batch: 'batch' };

/** A cell's background: green where the claim holds, red where it fails, by the margin's size. */
export function shadeColour(shade: number, holds: boolean | null): string {
  if (holds === null) return 'rgba(128, 128, 128, 0.15)';
  const alpha = (0.15 + 0.55 * Math.abs(shade)).toFixed(2);
  return holds ? `rgba(0, 140, 60, ${alpha})` : `rgba(210, 30, 30, ${alpha})`;
}

/** The claim's map as a captioned table. */
export function mapTable(m: ClaimMap): HTMLElement {
  const head = el('tr', {}, el('th', { scope: 'col' }, `${SYMBOL[m.y]} \\ ${SYMBOL[m.x]}`), ...m.xs.map((x) => el('th', { scope: 'col' }, String(x ?? 'own'))));
  const rows = m.ys.map((y, r) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, String(y ?? 'own')),
      ...m.xs.map((_, c) => {
        const cell = m.cells[r][c];
        if (!cell) return el('td', { className: 'empty' }, '–');
        const td = el(
          'td',
          { className: `${cell.holds === null ? 'undecided' : cell.holds ? 'holds' : 'fails'}${cell.presetPoint ? ' own-setting' : ''}` },
          cellText(cell.holds, cell.value),
        );
        td.style.background = shadeColour(cell.shade, cell.holds);
        td.dataset.cell = String(cell.cell);
        td.dataset.holds = String(cell.holds);
        td.dataset.value = String(cell.value);
        return td;
      }),
    ),
  );
  return el(
    'figure',
    { className: 'claim-map' },
    el('figcaption', {}, m.claim, m.quantity ? el('span', { className: 'quantity' }, `cells: ${m.quantity}`) : ''),
    el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows)),
  );
}
