// What a lane panel is: a unit that builds its elements once per lane (`mount`) and brings them
// up to date on every draw (`update`). A new panel is one file plus one line in index.ts.

import type { LaneHandle } from '../../app/lane';
import type { AlgoEntry, Catalog, DataSetEntry } from '../../generated/core';
import type { OptionValue } from '../../protocol/schema';
import { el } from '../dom';
import { canvasPngButton, type PngFrame, pngName } from '../png';

/** What a panel may know and do, for its lane. */
export interface PanelContext {
  readonly catalog: Catalog;
  /** The lane's algorithm (undefined only if the core no longer registers it). */
  readonly algo: AlgoEntry | undefined;
  /** The data set the lanes train on. */
  dataset(): DataSetEntry | undefined;
  /** The lane's colour (its curve's). */
  readonly colour: string;
  /** Prefix of the lane's element ids, e.g. "lane-3". */
  readonly idPrefix: string;
  /** Width available for drawings, in CSS pixels. */
  width(): number;
  /** The message under the lane's option input `key` ('' for none). */
  inputError(key: string): string;
  /** The text of the lane's option input `key` changed; false when the user declined the
   * rebuild it needs (the input shows the value in use again). */
  setOption(key: string, text: string): boolean;
  /** Pause the lane and make one update in slow motion (its phases come back as lane.trace). */
  traceStep(): void;
  /** Start the lane again (after slow motion). */
  resume(): void;
  /** Continue the lane from a model file the user chose or dropped (modelFile.ts). */
  loadModel(file: File): void;
  /** The page's value of view option `key` (scope `view`: one for every lane's panels). */
  viewOption(key: string): OptionValue;
  /** The message under view option `key`'s inputs ('' for none). */
  viewError(key: string): string;
  /** The text of a view option's input changed. */
  setViewOption(key: string, text: string): void;
  /** Ask the lane's worker for its model file. */
  exportModel(): void;
  /** Download the lane's curve as the page holds it (CSV; also once its worker died). */
  exportCurve(): void;
  /** Skip the exact evaluation the lane waits for (it trains on without that point). */
  cancelExact(): void;
  /** Workers of the page's exact-evaluation pool. */
  readonly evalWorkers: number;
  /** Draw again soon (e.g. a panel was opened). */
  refresh(): void;
  /** What a file of this lane is named after: the preset (or data set) and the lane's label,
   * e.g. "ucd-bas4-cd-1" (png.ts). */
  fileStem(): string;
  /** Whether the lane's card is on screen (drawings off screen wait until it is). */
  visible(): boolean;
}

export interface LanePanel {
  /** Builds the panel's elements inside `container` (once per lane). */
  mount(container: HTMLElement, ctx: PanelContext): void;
  /** Brings the panel up to date with the lane (on every draw: cheap when nothing changed). */
  update(lane: LaneHandle, ctx: PanelContext): void;
}

/** Makes one lane's instance of a panel. */
export interface PanelKind {
  /** A short name (the container's class, `panel-NAME`, and its part name in classroom links). */
  readonly name: string;
  /** What the Share dialog calls it (default: its name). */
  readonly title?: string;
  /** One or two sentences for its "?" (none: no "?"). */
  readonly help?: string;
  /** The glossary term its "?" links to. */
  readonly term?: string;
  create(): LanePanel;
}

/** Remembers what a drawing was made from, so it is redrawn only when that changes. */
export class DrawnFrom {
  private last: unknown[] = [];

  /** True (and remembered) when `inputs` differ from the last ones, compared by identity. */
  changed(...inputs: unknown[]): boolean {
    if (inputs.length === this.last.length && inputs.every((x, i) => x === this.last[i])) return false;
    this.last = inputs;
    return true;
  }

  /** The next `changed` is true whatever its inputs. */
  forget(): void {
    this.last = [];
  }
}

/**
 * A drawing the user can fold away: `<details open>` with its title. A folded (or off-screen)
 * drawing is not redrawn; opening it redraws it at once.
 */
export class Foldable {
  readonly el: HTMLDetailsElement;
  readonly drawn = new DrawnFrom();

  constructor(title: string, className: string, ctx: PanelContext, ...children: Node[]) {
    this.el = document.createElement('details');
    this.el.className = `view ${className}`;
    this.el.open = true;
    const summary = document.createElement('summary');
    summary.textContent = title;
    this.el.append(summary, ...children);
    this.el.addEventListener('toggle', () => {
      if (this.el.open) {
        this.drawn.forget();
        ctx.refresh();
      }
    });
  }

  /** Whether to draw now: shown, open and on screen. */
  showing(ctx: PanelContext): boolean {
    return !this.el.hidden && this.el.open && ctx.visible();
  }
}

/** A PNG button for a lane's picture (filters, samples, bars): the canvas enlarged, titled with
 * the picture and the lane, its caption (what it shows, at which update) and the page's address
 * below (issue 27). */
export function pictureTools(canvas: HTMLCanvasElement, caption: HTMLElement, title: string, ctx: PanelContext): HTMLElement {
  const frame = (): PngFrame => ({
    title: `${title}: ${ctx.fileStem()}`,
    legend: [],
    footer: `${caption.textContent ?? ''} Made with RBM Playground: ${window.location.href}`,
  });
  return el(
    'div',
    { className: 'mini-tools' },
    canvasPngButton(
      () => canvas,
      () => pngName(ctx.fileStem(), title),
      title.toLowerCase(),
      frame,
    ),
  );
}

/** A foldable figure of one canvas and its caption, hidden until a view shows it. */
export class CanvasFigure extends Foldable {
  readonly canvas: HTMLCanvasElement;
  readonly caption: HTMLElement;

  constructor(title: string, className: string, canvasClass: string, ctx: PanelContext, container: HTMLElement) {
    const canvas = document.createElement('canvas');
    Object.assign(canvas, { className: canvasClass, width: 0, height: 0 });
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${title} (drawn once the lane has them)`);
    const caption = document.createElement('figcaption');
    const figure = document.createElement('figure');
    figure.append(canvas, caption, pictureTools(canvas, caption, title, ctx));
    super(title, className, ctx, figure);
    this.canvas = canvas;
    this.caption = caption;
    this.el.hidden = true;
    container.append(this.el);
  }
}
