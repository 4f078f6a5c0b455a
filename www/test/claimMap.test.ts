import { describe, expect, it } from 'vitest';
import { claimMaps, type ExplorerClaim, explorerClaims } from '../src/app/claimMap';

/** A 2 (η) × 2 (σ) × 2 (k) grid with one claim, whose margin is η·10 − σ·100 − k. */
function grid(): ExplorerClaim[] {
  const out: ExplorerClaim[] = [];
  let cell = 0;
  for (const lr of [0.3, 0.05])
    for (const init_sigma of [null, 0.001])
      for (const k of [12, 1]) {
        const margin = lr * 10 - (init_sigma ?? 0.01) * 100 - k / 12;
        out.push({
          cell: cell++,
          lr,
          init_sigma,
          k,
          d: null,
          kprime: null,
          chains: null,
          batch: null,
          preset_point: lr === 0.3 && init_sigma === null && k === 12,
          claim: 'A claim',
          holds: margin > 0,
          quantity: 'final median',
          value: margin,
          margin,
        });
      }
  return out;
}

describe('the claims map', () => {
  it('lays a claim out over two axes, holding the others at the preset point', () => {
    const [m] = claimMaps(grid(), 'init_sigma', 'lr');
    expect(m.xs).toEqual([null, 0.001]);
    expect(m.ys).toEqual([0.05, 0.3]);
    expect(m.fixed).toEqual({ k: 12 });
    // Row η = 0.3, column σ = preset's (0.01): margin 3 − 1 − 1 = 1, the preset's point.
    const own = m.cells[1][0];
    expect(own?.presetPoint).toBe(true);
    expect(own?.margin).toBeCloseTo(1);
    expect(own?.holds).toBe(true);
    // Shades: margin over the largest |margin| of the map (1.9 at η = 0.3, σ = 0.001), signed.
    const all = m.cells.flat().filter((c) => c !== null);
    expect(all).toHaveLength(4);
    expect(Math.max(...all.map((c) => Math.abs(c.shade)))).toBe(1);
    for (const c of all) {
      expect(Math.sign(c.shade)).toBe(c.holds ? 1 : -1);
      expect(c.shade).toBeCloseTo((c.margin ?? 0) / 1.9);
    }
  });

  it('holds an axis where asked, and refuses a value the grid does not have', () => {
    const [m] = claimMaps(grid(), 'lr', 'k', { init_sigma: 0.001 });
    expect(m.fixed).toEqual({ init_sigma: 0.001 });
    expect(m.cells.flat().every((c) => c !== null && !c.presetPoint)).toBe(true);
    expect(() => claimMaps(grid(), 'lr', 'k', { init_sigma: 0.5 })).toThrow(/not a value of the grid/);
    expect(() => claimMaps(grid(), 'lr', 'lr')).toThrow(/must differ/);
  });

  it('shades an infinite margin fully and an undecided claim not at all', () => {
    const lines = grid().slice(0, 2);
    lines[0] = { ...lines[0], margin: null, holds: true };
    lines[1] = { ...lines[1], margin: null, holds: null };
    const [m] = claimMaps(lines, 'k', 'lr');
    expect(m.cells[0].map((c) => c?.shade)).toEqual([0, 1]);
  });

  it('reads the claim lines of an explorer output', () => {
    const text = [
      JSON.stringify({ type: 'header', command: 'explore' }),
      JSON.stringify({ type: 'lane', cell: 0 }),
      ...grid().map((c) => JSON.stringify({ type: 'claim', ...c })),
      '',
    ].join('\n');
    expect(explorerClaims(text)).toHaveLength(8);
  });
});
