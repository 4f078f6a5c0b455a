// The log-likelihood chart: uPlot (≈ 50 KB, canvas, fast with thousands of points, well kept).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { AXIS_LABEL, type Axis, BOUND_COLOUR, chartColumns, yRange } from './chartData';
import type { Curve } from './curve';

export interface ChartLane {
  label: string;
  colour: string;
  curve: Curve;
}

/** How a chart looks. */
export interface ChartSettings {
  /** The vertical axis's label. */
  yLabel: string;
  /** Smallest width and the height range, in CSS pixels (the height follows the width). */
  minWidth: number;
  minHeight: number;
  maxHeight: number;
}

export const LIKELIHOOD_CHART: ChartSettings = { yLabel: 'average log-likelihood (exact)', minWidth: 280, minHeight: 220, maxHeight: 360 };

export class LikelihoodChart {
  private plot: uPlot | null = null;
  private key = '';

  constructor(
    private readonly el: HTMLElement,
    private readonly settings: ChartSettings = LIKELIHOOD_CHART,
  ) {}

  /** Redraws; rebuilds the plot only when the series (lanes, axis, bound) change. */
  update(lanes: ChartLane[], axis: Axis, bound: number | null): void {
    const cols = chartColumns(
      lanes.map((l) => l.curve),
      axis,
      bound,
    );
    const key = JSON.stringify([lanes.map((l) => [l.label, l.colour]), axis, bound]);
    const data = [cols.x, ...cols.ys] as uPlot.AlignedData;
    if (!this.plot || key !== this.key) {
      this.plot?.destroy();
      this.key = key;
      this.plot = new uPlot(this.options(lanes, axis, bound), data, this.el);
      return;
    }
    const range = yRange(cols);
    const plot = this.plot;
    plot.batch(() => {
      plot.setData(data, true);
      if (range) plot.setScale('y', { min: range[0], max: range[1] });
    });
  }

  resize(): void {
    if (this.plot) this.plot.setSize(this.size());
  }

  private size(): { width: number; height: number } {
    const { minWidth, minHeight, maxHeight } = this.settings;
    const width = Math.max(minWidth, this.el.clientWidth);
    // In an embed (embed=1, e.g. an 800×500 iframe) the chart fits above the fold with its legend.
    const embed = document.documentElement.classList.contains('embed');
    const cap = embed ? Math.min(maxHeight, Math.max(140, window.innerHeight - 240)) : maxHeight;
    return { width, height: Math.round(Math.min(cap, Math.max(Math.min(minHeight, cap), width * 0.42))) };
  }

  private options(lanes: ChartLane[], axis: Axis, bound: number | null): uPlot.Options {
    const series: uPlot.Series[] = [
      { label: AXIS_LABEL[axis], value: (_u, v) => (v === null ? '–' : String(v)) },
      ...lanes.map((l) => ({
        label: l.label,
        stroke: l.colour,
        width: 2,
        spanGaps: true,
        points: { show: false },
        value: (_u: uPlot, v: number | null) => (v === null ? '–' : v.toFixed(4)),
      })),
    ];
    if (bound !== null) {
      series.push({
        label: 'bound (−entropy of the data)',
        stroke: BOUND_COLOUR,
        width: 1.5,
        dash: [6, 4],
        points: { show: false },
        value: () => bound.toFixed(3),
      });
    }
    return {
      ...this.size(),
      series,
      scales: { x: { time: false } },
      axes: [
        { label: AXIS_LABEL[axis], stroke: '#333', grid: { stroke: '#eee' } },
        // A short chart (an embed) has room for a short label only.
        { label: this.size().height < 300 ? 'log-likelihood' : this.settings.yLabel, stroke: '#333', grid: { stroke: '#eee' }, size: 60 },
      ],
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
    };
  }
}
