// The log-likelihood chart: uPlot (≈ 50 KB, canvas, fast with thousands of points, well kept).
// It draws a ChartModel (chartModel.ts: lanes' curves, or a study's medians, bands and single
// trials, all on one shared x column) and a readout of every lane's value at the cursor.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { AXIS_LABEL, type Axis } from './chartData';
import { type ChartModel, formatAtll, formatX, modelRange, readout, withAlpha } from './chartModel';
import { el } from './dom';
import { pngButton } from './png';

/** How a chart looks. */
export interface ChartSettings {
  /** The vertical axis's label. */
  yLabel: string;
  /** The label on a short chart (an embed, a phone); none: `yLabel`. */
  shortLabel?: string;
  /** Smallest width and the height range, in CSS pixels (the height follows the width). */
  minWidth: number;
  minHeight: number;
  maxHeight: number;
  /** The name of the chart's PNG file (none: no PNG button). */
  pngName?: () => string;
}

export const LIKELIHOOD_CHART: ChartSettings = {
  yLabel: 'average log-likelihood (exact)',
  shortLabel: 'log-likelihood',
  minWidth: 280,
  minHeight: 220,
  maxHeight: 360,
};

export class LikelihoodChart {
  private plot: uPlot | null = null;
  private key = '';
  private model: ChartModel | null = null;
  private axis: Axis = 'iter';
  private cursor: number | null = null;
  private yLabel = '';
  private readonly box: HTMLElement;
  private readonly readoutEl: HTMLElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly settings: ChartSettings = LIKELIHOOD_CHART,
  ) {
    this.box = el('div', { className: 'plot' });
    this.readoutEl = el('div', { className: 'readout', id: `${root.id || 'chart'}-readout` });
    this.readoutEl.setAttribute('aria-live', 'off');
    root.append(this.box, this.readoutEl);
    if (settings.pngName) root.append(el('div', { className: 'mini-tools' }, pngButton(this.box, settings.pngName, 'the chart')));
  }

  /** Redraws; rebuilds the plot only when the series (lanes, roles, axis, label) change. */
  update(model: ChartModel, axis: Axis, yLabel = this.settings.yLabel): void {
    this.model = model;
    this.axis = axis;
    this.yLabel = yLabel;
    const key = JSON.stringify([model.series, model.bands, axis, yLabel]);
    const data = [model.x, ...model.ys] as uPlot.AlignedData;
    if (!this.plot || key !== this.key) {
      this.plot?.destroy();
      this.key = key;
      this.cursor = null;
      this.plot = new uPlot(this.options(model, axis), data, this.box);
      const range = modelRange(model);
      if (range) this.plot.setScale('y', { min: range[0], max: range[1] });
    } else {
      const range = modelRange(model);
      const plot = this.plot;
      plot.batch(() => {
        plot.setData(data, true);
        if (range) plot.setScale('y', { min: range[0], max: range[1] });
      });
    }
    this.showReadout();
  }

  resize(): void {
    if (this.plot) this.plot.setSize(this.size());
  }

  private size(): { width: number; height: number } {
    const { minWidth, minHeight, maxHeight } = this.settings;
    const width = Math.max(minWidth, this.root.clientWidth);
    // In an embed (embed=1, e.g. an 800×500 iframe) the chart fits above the fold with its readout
    // (two lines of lanes at 800 px).
    const embed = document.documentElement.classList.contains('embed');
    const cap = embed ? Math.min(maxHeight, Math.max(140, window.innerHeight - 265)) : maxHeight;
    return { width, height: Math.round(Math.min(cap, Math.max(Math.min(minHeight, cap), width * 0.42))) };
  }

  /** Every lane's value at the cursor (or, without one, at its last point). */
  private showReadout(): void {
    const m = this.model;
    if (!m) return;
    const r = readout(m, this.cursor, this.axis);
    const head = this.cursor === null ? 'latest' : `${AXIS_LABEL[this.axis]}: ${r.x}`;
    this.readoutEl.replaceChildren(
      el('span', { className: 'readout-x' }, head),
      ...r.rows.map((row) => {
        const sw = el('span', { className: 'swatch' });
        sw.style.background = row.colour;
        return el('span', { className: 'readout-row' }, sw, `${row.label}: ${row.text}`);
      }),
    );
  }

  private options(model: ChartModel, axis: Axis): uPlot.Options {
    const series: uPlot.Series[] = [
      { label: AXIS_LABEL[axis], value: (_u, v) => formatX(v, axis) },
      ...model.series.map((s) => ({
        label: s.label,
        stroke: withAlpha(s.colour, s.alpha),
        width: s.width,
        ...(s.dash ? { dash: s.dash } : {}),
        spanGaps: true,
        points: { show: false },
        value: (_u: uPlot, v: number | null) => formatAtll(v),
      })),
    ];
    return {
      ...this.size(),
      series,
      bands: model.bands.map((b) => ({ series: [b.upper + 1, b.lower + 1] as [number, number], fill: b.fill })),
      scales: { x: { time: false } },
      axes: [
        { label: AXIS_LABEL[axis], stroke: '#333', grid: { stroke: '#eee' }, values: (_u, vals) => vals.map((v) => formatX(v, axis)) },
        // A short chart (an embed, a phone) has room for a short label only.
        { label: this.size().height < 300 ? (this.settings.shortLabel ?? this.yLabel) : this.yLabel, stroke: '#333', grid: { stroke: '#eee' }, size: 60 },
      ],
      legend: { show: false },
      cursor: { drag: { x: true, y: false } },
      hooks: {
        setCursor: [
          (u) => {
            const idx = u.cursor.idx ?? null;
            if (idx === this.cursor) return;
            this.cursor = idx;
            this.showReadout();
          },
        ],
      },
    };
  }
}
