// The recorded claims-explorer runs the page draws (www/explorer/, issue 29): each is a run of
// one of the catalog's presets, judging exactly that preset's claims, over a full grid of η and
// σ with the preset's own settings in it — a run made before a claim changed fails here, and is
// made again with the command it carries (scripts/explorer-data.mjs).
import { describe, expect, it } from 'vitest';
import { cellText, type ExplorerRun, runMaps, runNote } from '../src/app/explorerRuns';
import { catalog } from './fixture';

const runs = Object.values(import.meta.glob<ExplorerRun>('../explorer/*.json', { eager: true, import: 'default' }));

describe('the recorded explorer runs', () => {
  it('there is one per S-DCP preset', () => {
    expect(runs.map((r) => r.preset).sort()).toEqual(['sdcp-bas3', 'sdcp-shifting-bar']);
  });

  for (const run of runs) {
    it(`${run.preset}: its command, its preset's claims, a full η × σ grid with the preset's own cells`, () => {
      const p = catalog.presets.find((x) => x.name === run.preset);
      expect(p, run.preset).toBeDefined();
      if (!p) return;
      expect(run.command.startsWith(`rbm explore ${run.preset} `)).toBe(true);
      expect(run.command).toContain(`--seed ${run.seed}`);
      const maps = runMaps(run);
      expect(maps.map((m) => m.claim)).toEqual(p.claims.map((c) => c.text));
      for (const m of maps) {
        for (const row of m.cells) for (const cell of row) expect(cell, m.claim).not.toBeNull();
        // The preset's own cells: its rates at the initialisation's own σ.
        const own = m.cells.flatMap((row, r) => row.flatMap((c, k) => (c?.presetPoint ? [[m.xs[k], m.ys[r]]] : [])));
        expect(own).toEqual(p.rates.map((rate) => [rate, run.own_init_sigma]));
        for (const row of m.cells) for (const c of row) if (c) expect(Math.abs(c.shade)).toBeLessThanOrEqual(1);
      }
      expect(runNote(run, p.rates)).toContain(`\`${run.command}\``);
    });
  }

  it('a cell reads its verdict and number', () => {
    expect(cellText(true, -3.094015)).toBe('✓ −3.094');
    expect(cellText(false, 12_345.6)).toBe('✗ 12,346');
    expect(cellText(null, null)).toBe('?');
  });
});
