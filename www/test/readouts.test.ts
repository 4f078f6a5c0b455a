import { describe, expect, it } from 'vitest';
import { barAt, barLayout, barReadout, filterReadout, sampleReadout, stripReadout, tileAt } from '../src/views/readouts';
import { tileLayout } from '../src/views/tiles';

describe('hover readouts of the lane canvases (issue 27)', () => {
  it("finds the tile under the pointer, none in a gap, and reads a filter's hidden unit and weight range", () => {
    // 3 tiles of 2×2 units, 2 columns, 5 px per unit, 3 px gaps: tiles are 10 px wide.
    const l = tileLayout(3, [2, 2], 100, { cols: 2, gap: 3, maxCell: 5 });
    expect([l.cols, l.rows, l.cell]).toEqual([2, 2, 5]);
    expect(tileAt(l, 0, 0)).toBe(0);
    expect(tileAt(l, 9, 9)).toBe(0);
    expect(tileAt(l, 11, 5)).toBeNull(); // the gap
    expect(tileAt(l, 13, 5)).toBe(1);
    expect(tileAt(l, 2, 14)).toBe(2);
    expect(tileAt(l, 14, 14)).toBeNull(); // no fourth tile
    expect(tileAt(l, -1, 0)).toBeNull();
    // W is 4×3 row-major: column 1 holds 0.5, −0.25, 2, 0.
    const w = [0, 0.5, 0, 0, -0.25, 0, 0, 2, 0, 0, 0, 0];
    expect(filterReadout(w, 4, 3, 1)).toBe('hidden unit 2 of 3: weights from −0.250 to 2.00');
  });

  it("reads a bar's pattern, p(v) and data frequency, and a sample's chain", () => {
    const l = barLayout(4, 4, [2, 2], 200);
    expect(l.cols).toBe(4);
    expect(barAt(l, 0, 0)).toBe(0);
    expect(barAt(l, 3 * l.slot + 1, l.barH + 2)).toBe(3);
    expect(barAt(l, 4 * l.slot + 1, 0)).toBeNull();
    const dist = { model: [0.1, 0.2, 0.3, 0.4], data: [0.25, 0.25, 0.25, 0.25], on: 1, off: 0 };
    expect(barReadout([1, 0, 0, 1], l.shape, 0, dist as never)).toBe('pattern 1 (10 01): p(v) = 0.100, in the data 0.250');
    expect(sampleReadout([1, 1, 0, 0, 0, 1, 0, 0], 4, 1, 2)).toBe('chain 2 of 2: 1 of 4 units on');
    expect(stripReadout([new Float32Array([0, 1]), new Float32Array([1, 1])], 0)).toBe('strip image 1 of 2 (1 newer after it): mean pixel value 0.500');
    expect(stripReadout([new Float32Array([0, 1])], 3)).toBeNull();
  });
});
