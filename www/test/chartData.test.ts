import { describe, expect, it } from 'vitest';
import { BOUND_COLOUR, chartColumns, LANE_COLOURS, laneColour, laneDash, manyLanesText, swatchBackground, swatchDash, yRange } from '../src/app/chartData';

const a = { iter: [0, 10, 20], sweeps: [0, 10, 20], atll: [-11, -9, -8] };
const b = { iter: [0, 20], sweeps: [0, 60], atll: [-11, -7] };

describe('chartColumns', () => {
  it('aligns lanes on the union of their x values, with gaps as null, and adds the bound', () => {
    expect(chartColumns([a, b], 'iter', -3.379)).toEqual({
      x: [0, 10, 20],
      ys: [
        [-11, -9, -8],
        [-11, null, -7],
        [-3.379, -3.379, -3.379],
      ],
    });
  });
  it('uses Gibbs sweeps on the equal-compute axis', () => {
    expect(chartColumns([a, b], 'sweeps', null)).toEqual({
      x: [0, 10, 20, 60],
      ys: [
        [-11, -9, -8, null],
        [-11, null, null, -7],
      ],
    });
  });
  it('handles no lanes and empty curves', () => {
    expect(chartColumns([], 'iter', null)).toEqual({ x: [], ys: [] });
    expect(chartColumns([{ iter: [], sweeps: [], atll: [] }], 'iter', -2)).toEqual({ x: [], ys: [[], []] });
  });
});

describe('yRange', () => {
  it('covers every point and the bound, with room', () => {
    const [lo, hi] = yRange(chartColumns([a, b], 'iter', -3.379))!;
    expect(lo).toBeLessThan(-11);
    expect(hi).toBeGreaterThan(-3.379);
  });
  it('is null without points', () => {
    expect(yRange({ x: [], ys: [] })).toBeNull();
  });
});

// WCAG 2 relative luminance and contrast ratio.
const channel = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const linear = (hex: string) => [1, 3, 5].map((i) => channel(Number.parseInt(hex.slice(i, i + 2), 16) / 255));
const luminance = (hex: string) => {
  const [r, g, b] = linear(hex);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};
// Colour-vision deficiencies simulated in linear RGB (Machado, Oliveira & Fernandes 2009,
// severity 1), compared in CIELAB (D65).
const CVD: Record<string, number[][] | null> = {
  normal: null,
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};
const lab = (hex: string, m: number[][] | null) => {
  const v = linear(hex);
  const [r, g, b] = m ? m.map((row) => Math.min(1, Math.max(0, row[0] * v[0] + row[1] * v[1] + row[2] * v[2]))) : v;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const [x, y, z] = [
    (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
    0.2126 * r + 0.7152 * g + 0.0722 * b,
    (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
  ].map(f);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
};

describe('lane colours', () => {
  const lanes = Array.from({ length: 12 }, (_, i) => i);

  it('have a contrast of at least 4.5:1 (WCAG AA) on the white cards and the page, as has the bound', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 6);
    for (const c of [...lanes.map(laneColour), BOUND_COLOUR]) {
      expect(contrast(c, '#ffffff'), c).toBeGreaterThanOrEqual(4.5);
      expect(contrast(c, '#fafafa'), c).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('are colours, not near-blacks or greys: L* ≥ 30 and chroma ≥ 40 (issue 27: #555544, #000000 and #550055 looked alike as 2-px lines)', () => {
    for (const c of LANE_COLOURS) {
      const [l, a, b] = lab(c, null);
      expect(l, c).toBeGreaterThanOrEqual(30);
      expect(Math.hypot(a, b), c).toBeGreaterThanOrEqual(40);
    }
  });

  it('tell 12 lanes apart by colour or line, and the colours stay apart under each colour-vision deficiency', () => {
    const looks = lanes.map((i) => `${laneColour(i)} ${laneDash(i)?.join(',') ?? 'solid'}`);
    expect(new Set(looks).size).toBe(12);
    expect(new Set(LANE_COLOURS).size).toBe(6);
    for (const [vision, m] of Object.entries(CVD)) {
      for (let i = 0; i < LANE_COLOURS.length; i++) {
        for (let j = i + 1; j < LANE_COLOURS.length; j++) {
          const [a, b] = [lab(LANE_COLOURS[i], m), lab(LANE_COLOURS[j], m)];
          const dE = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
          expect(dE, `${vision}: ${LANE_COLOURS[i]} vs ${LANE_COLOURS[j]}`).toBeGreaterThanOrEqual(20);
        }
      }
    }
    // The simulation does merge what it should: red and green under deuteranopia are far
    // closer than in normal vision.
    const d = (x: string, y: string, m: number[][] | null) => {
      const [a, b] = [lab(x, m), lab(y, m)];
      return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    };
    expect(d('#ff0000', '#00aa00', CVD.deuteranopia)).toBeLessThan(d('#ff0000', '#00aa00', null) / 2);
  });
});

describe('many lanes (issue 27)', () => {
  it('warns once past 8 lanes, saying why', () => {
    expect(manyLanesText(8, 2)).toBeNull();
    expect(manyLanesText(9, 2)).toMatch(/^9 lanes: past 8 the chart is hard to read .* share this machine's 2 cores/);
    expect(manyLanesText(13, 4)).toMatch(/and again past the twelfth/);
  });
});

describe('legend swatches of dashed lanes (issue 27)', () => {
  it('show at least two dashes in a 10-px swatch, and solid lanes a plain colour', () => {
    const [on, off] = swatchDash(laneDash(6)!);
    expect(2 * (on + off)).toBeLessThanOrEqual(10);
    expect(on).toBeGreaterThanOrEqual(2);
    expect(off).toBeGreaterThanOrEqual(2);
    expect(swatchBackground('#0072B2', laneDash(6))).toBe(`repeating-linear-gradient(90deg, #0072B2 0 ${on}px, transparent ${on}px ${on + off}px)`);
    expect(swatchBackground('#0072B2', laneDash(0))).toBe('#0072B2');
  });
});
