// The log-likelihood chart: uPlot (≈ 50 KB, canvas, fast with thousands of points, well kept).
// It draws a ChartModel (chartModel.ts: lanes' curves, or a study's medians, bands and single
// trials, all on one shared x column) and a readout of every lane's value at the cursor.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { AXIS_LABEL, type Axis, swatchBackground } from '../app/chartData';
import { belowChart, belowText, type ChartModel, cursorStep, formatAtll, formatX, modelRange, readout, withAlpha } from './chartModel';
import { el } from './dom';
import { type LegendItem, type PngFrame, pngButton } from './png';

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
  /** The PNG's title and last line (the page's address); none: the PNG is the canvas alone. */
  pngTitle?: () => { title: string; footer?: string };
}

/** Tick spacings of the updates axis: whole numbers only. */
const UPDATE_TICKS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 1e4, 2e4, 2.5e4, 5e4, 1e5, 2e5, 2.5e5, 5e5, 1e6, 2e6, 5e6, 1e7];

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
  private zoomAxis: Axis = 'iter';
  private yLabel = '';
  private readonly box: HTMLElement;
  private readonly readoutEl: HTMLElement;
  private readonly belowEl: HTMLElement;
  /** The x range the user zoomed to (null: all): kept while the lanes train and redraw. */
  private zoom: [number, number] | null = null;
  private readonly zoomBar: HTMLElement;
  private readonly unzoom: HTMLButtonElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly settings: ChartSettings = LIKELIHOOD_CHART,
  ) {
    this.box = el('div', { className: 'plot' });
    this.readoutEl = el('div', { className: 'readout', id: `${root.id || 'chart'}-readout` });
    this.readoutEl.setAttribute('aria-live', 'off');
    this.belowEl = el('p', { className: 'below-chart', hidden: true });
    this.unzoom = el('button', { type: 'button', className: 'unzoom', hidden: true, textContent: 'Show all' });
    this.unzoom.addEventListener('click', () => this.setZoom(null));
    this.zoomBar = el(
      'p',
      { className: 'zoom-hint' },
      el('span', {}, 'Drag across the chart to zoom in; double-click or "Show all" to zoom out. Hover (or tap) for every lane’s value.'),
      ' ',
      this.unzoom,
    );
    root.append(this.zoomBar, this.box, this.belowEl, this.readoutEl);
    if (settings.pngName)
      root.append(
        el(
          'div',
          { className: 'mini-tools' },
          pngButton(this.box, settings.pngName, 'the chart', () => this.pngFrame()),
        ),
      );
    this.box.addEventListener('dblclick', () => this.setZoom(null));
    // A tap (or a finger moving) on a phone moves the cursor, as hovering does with a mouse.
    const touch = (e: TouchEvent) => {
      const t = e.touches[0];
      const plot = this.plot;
      if (!t || !plot) return;
      const r = plot.over.getBoundingClientRect();
      const left = t.clientX - r.left;
      if (left < 0 || left > r.width) return;
      plot.setCursor({ left, top: Math.min(r.height, Math.max(0, t.clientY - r.top)) });
    };
    this.box.addEventListener('touchstart', touch, { passive: true });
    this.box.addEventListener('touchmove', touch, { passive: true });
    // The keyboard reads the chart too: focus it, then ← → (Shift: ten points), Home, End move a
    // cursor over the points and the readout (announced) says every lane's value there; Esc leaves.
    this.box.tabIndex = 0;
    this.box.setAttribute('role', 'group');
    this.box.setAttribute('aria-label', 'Log-likelihood chart: use the left and right arrow keys to read every lane’s value at each point');
    this.box.setAttribute('aria-describedby', this.readoutEl.id);
    this.box.addEventListener('keydown', (e) => {
      const next = cursorStep(this.cursor, this.model?.x.length ?? 0, e.key, e.shiftKey);
      if (next === undefined) return;
      e.preventDefault();
      this.readoutEl.setAttribute('aria-live', 'polite');
      this.moveCursor(next);
    });
  }

  /** Puts the cursor at column `idx` (null: none) and says what is there. */
  private moveCursor(idx: number | null): void {
    const plot = this.plot;
    const m = this.model;
    if (!plot || !m) return;
    if (idx === null) {
      plot.setCursor({ left: -10, top: -10 });
      this.cursor = null;
      this.showReadout();
      return;
    }
    const left = plot.valToPos(m.x[idx], 'x');
    plot.setCursor({ left, top: plot.over.clientHeight / 2 });
    // uPlot snaps to the nearest column: the keyboard's is the one asked for.
    this.cursor = idx;
    this.showReadout();
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
      // Another axis is another zoom.
      if (axis !== this.zoomAxis) this.zoom = null;
      this.zoomAxis = axis;
      this.plot = new uPlot(this.options(model, axis), data, this.box);
      const range = modelRange(model);
      const plot = this.plot;
      plot.batch(() => {
        if (range) plot.setScale('y', { min: range[0], max: range[1] });
        if (this.zoom) plot.setScale('x', { min: this.zoom[0], max: this.zoom[1] });
      });
    } else {
      const range = modelRange(model);
      const plot = this.plot;
      plot.batch(() => {
        // A zoomed chart keeps its x range while new points come in.
        plot.setData(data, this.zoom === null);
        if (range) plot.setScale('y', { min: range[0], max: range[1] });
        if (this.zoom) plot.setScale('x', { min: this.zoom[0], max: this.zoom[1] });
      });
    }
    this.unzoom.hidden = this.zoom === null;
    this.showReadout();
    const range = modelRange(model);
    const text = range ? belowText(belowChart(model, range)) : '';
    if (this.belowEl.textContent !== text) this.belowEl.textContent = text;
    this.belowEl.hidden = text === '';
  }

  /** Zooms the x axis to `range` (null: everything), kept until the user changes it. */
  private setZoom(range: [number, number] | null): void {
    this.zoom = range;
    this.unzoom.hidden = range === null;
    if (range) this.root.dataset.zoom = range.join(',');
    else delete this.root.dataset.zoom;
    const plot = this.plot;
    if (!plot) return;
    if (range) plot.setScale('x', { min: range[0], max: range[1] });
    else plot.setData(plot.data, true);
    const y = this.model && modelRange(this.model);
    if (y) plot.setScale('y', { min: y[0], max: y[1] });
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

  /** The PNG's frame: the title, and a legend of every lane (its colour, dash, name and latest
   * value, as the readout says) with the bound and the bands, so the file stands alone. */
  private pngFrame(): PngFrame | null {
    const m = this.model;
    const t = this.settings.pngTitle?.();
    if (!m || !t) return null;
    const legend: LegendItem[] = readout(m, null, this.axis).rows.map((row) => {
      const s = m.series.find(
        (x) => x.colour === row.colour && (x.role === 'curve' || x.role === 'median' || x.role === 'bound') && x.label.startsWith(row.label),
      );
      const dash = row.dash ?? s?.dash;
      return { text: `${row.label}: ${row.text}`, colour: row.colour, ...(dash ? { dash } : {}) };
    });
    if (m.bands.length) legend.push({ text: 'shaded: each lane’s q10–q90 band across trials', colour: m.bands[0].fill, fill: true });
    return { title: `${t.title} (${this.yLabel} against ${AXIS_LABEL[this.axis]})`, legend, ...(t.footer ? { footer: t.footer } : {}) };
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
        sw.style.background = swatchBackground(row.colour, row.dash);
        return el('span', { className: 'readout-row' }, sw, `${row.label}: ${row.text}`);
      }),
    );
  }

  /** The AIS brackets' error bars: a vertical line with caps from `lo` to `hi` at each point. */
  private drawErrorBars(u: uPlot): void {
    const bars = this.model?.errorBars;
    if (!bars?.length) return;
    const ctx = u.ctx;
    const dpr = window.devicePixelRatio || 1;
    ctx.save();
    ctx.lineWidth = 1.5 * dpr;
    for (const b of bars) {
      const s = this.model?.series[b.series];
      if (!s) continue;
      const x = u.valToPos(b.x, 'x', true);
      const y0 = u.valToPos(b.lo, 'y', true);
      const y1 = u.valToPos(b.hi, 'y', true);
      if (![x, y0, y1].every(Number.isFinite)) continue;
      const cap = 4 * dpr;
      ctx.strokeStyle = s.colour;
      ctx.beginPath();
      ctx.moveTo(x, y0);
      ctx.lineTo(x, y1);
      ctx.moveTo(x - cap, y0);
      ctx.lineTo(x + cap, y0);
      ctx.moveTo(x - cap, y1);
      ctx.lineTo(x + cap, y1);
      ctx.stroke();
    }
    ctx.restore();
  }

  private options(model: ChartModel, axis: Axis): uPlot.Options {
    const series: uPlot.Series[] = [
      { label: AXIS_LABEL[axis], value: (_u, v) => formatX(v, axis) },
      ...model.series.map((s) =>
        s.role === 'ais'
          ? // AIS brackets: separate points (their error bars drawn by the draw hook), no line.
            {
              label: s.label,
              stroke: s.colour,
              width: 1,
              paths: () => null,
              points: { show: true, size: 8, width: 1.5, stroke: s.colour, fill: s.colour },
              value: (_u: uPlot, v: number | null) => formatAtll(v),
            }
          : {
              label: s.label,
              stroke: withAlpha(s.colour, s.alpha),
              width: s.width,
              ...(s.dash ? { dash: s.dash } : {}),
              spanGaps: true,
              points: { show: false },
              value: (_u: uPlot, v: number | null) => formatAtll(v),
            },
      ),
    ];
    return {
      ...this.size(),
      series,
      bands: model.bands.map((b) => ({ series: [b.upper + 1, b.lower + 1] as [number, number], fill: b.fill })),
      scales: { x: { time: false } },
      axes: [
        {
          label: AXIS_LABEL[axis],
          stroke: '#333',
          grid: { stroke: '#eee' },
          values: (_u, vals) => vals.map((v) => formatX(v, axis)),
          // Updates are whole: no ticks between them (a short run would repeat its labels).
          ...(axis === 'iter' ? { incrs: UPDATE_TICKS } : {}),
        },
        // A short chart (an embed, a phone) has room for a short label only.
        { label: this.size().height < 300 ? (this.settings.shortLabel ?? this.yLabel) : this.yLabel, stroke: '#333', grid: { stroke: '#eee' }, size: 60 },
      ],
      legend: { show: false },
      // A drag selects an x range; the chart zooms to it itself (setSelect) and keeps it.
      cursor: { drag: { x: true, y: false, setScale: false } },
      hooks: {
        draw: [(u) => this.drawErrorBars(u)],
        setSelect: [
          (u) => {
            if (u.select.width < 2) return;
            const a = u.posToVal(u.select.left, 'x');
            const b = u.posToVal(u.select.left + u.select.width, 'x');
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            if (b > a) this.setZoom([a, b]);
          },
        ],
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
