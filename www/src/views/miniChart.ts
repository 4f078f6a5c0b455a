// A lane panel's small chart (uPlot, like the likelihood chart): a few named series over one x
// column, on one or two y axes with their labels and units, lines or bars, and a PNG button.
import uPlot from 'uplot';
import { el } from './dom';
import { formatStat } from './format';
import { pngButton } from './png';

export interface MiniSeries {
  label: string;
  colour: string;
  dash?: number[];
  /** The right-hand axis (`y2Label`). */
  right?: boolean;
  /** Drawn as bars (a histogram). */
  bars?: boolean;
}

export interface MiniChartSpec {
  xLabel: string;
  yLabel: string;
  y2Label?: string;
  series: MiniSeries[];
  /** Log-scaled y (distances spanning decades). */
  logY?: boolean;
  /** Fixed y range of the left axis. */
  yRange?: [number, number];
  height?: number;
}

export class MiniChart {
  readonly el: HTMLElement;
  private readonly box: HTMLElement;
  private plot: uPlot | null = null;
  private width = 0;

  constructor(
    private readonly spec: MiniChartSpec,
    pngName: () => string,
    title: string,
  ) {
    this.box = el('div', { className: 'mini-plot' });
    this.box.setAttribute('role', 'img');
    this.box.setAttribute('aria-label', `${title}: ${spec.yLabel} against ${spec.xLabel}`);
    this.el = el('div', { className: 'mini-chart' }, this.box, el('div', { className: 'mini-tools' }, pngButton(this.box, pngName, title)));
  }

  /** Draws `ys` (one column per series, aligned with `x`) at `width` CSS pixels. */
  set(x: number[], ys: (number | null)[][], width: number): void {
    const data = [x, ...ys] as uPlot.AlignedData;
    const w = Math.max(240, Math.round(width));
    if (!this.plot || w !== this.width) {
      this.plot?.destroy();
      this.width = w;
      this.plot = new uPlot(this.options(w), data, this.box);
    } else {
      this.plot.setData(data, true);
    }
  }

  private options(width: number): uPlot.Options {
    const s = this.spec;
    const bars = uPlot.paths.bars?.({ size: [0.9, 40] });
    const fmt = (v: number | null) => (v === null ? '–' : formatStat(v));
    const scales: uPlot.Scales = { x: { time: false }, y: s.logY ? { distr: 3 } : s.yRange ? { range: s.yRange } : {} };
    if (s.y2Label) scales.y2 = {};
    const axes: uPlot.Axis[] = [
      { label: s.xLabel, stroke: '#333', grid: { stroke: '#eee' } },
      { label: s.yLabel, stroke: '#333', grid: { stroke: '#eee' }, size: 56 },
    ];
    if (s.y2Label) axes.push({ scale: 'y2', label: s.y2Label, side: 1, stroke: '#333', grid: { show: false }, size: 56 });
    return {
      width,
      height: s.height ?? 200,
      scales,
      axes,
      legend: { show: true, live: true },
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: s.xLabel, value: (_u, v) => fmt(v) },
        ...s.series.map((m) => ({
          label: m.label,
          stroke: m.colour,
          width: m.bars ? 1 : 2,
          scale: m.right ? 'y2' : 'y',
          ...(m.dash ? { dash: m.dash } : {}),
          ...(m.bars && bars ? { paths: bars, fill: `${m.colour}88` } : {}),
          spanGaps: true,
          points: { show: !m.bars },
          value: (_u: uPlot, v: number | null) => fmt(v),
        })),
      ],
    };
  }
}
