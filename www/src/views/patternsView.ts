// The students' own patterns: a dialog to draw binary patterns on a D×D grid (tap a cell to
// toggle it) and add them to a list of 0/1 lines, which can also be pasted or typed; "Train on
// these" makes them the data set of every lane (App.addPatterns). Opened by the button beside
// "Your own data…".
import type { App } from '../app/app';
import { gridLine, parsePatterns } from '../app/patterns';
import { $, el, setText } from './dom';

const SIDES = [3, 4, 5];

export class PatternsView {
  private readonly dialog: HTMLDialogElement;
  private readonly grid = el('div', { className: 'pattern-grid', id: 'pattern-grid', role: 'group' });
  private readonly side = el('select', { id: 'pattern-side' });
  private readonly lines = el('textarea', { id: 'pattern-lines', rows: 8, spellcheck: false });
  private readonly name = el('input', { type: 'text', id: 'pattern-name', value: 'my-patterns', autocomplete: 'off' });
  private readonly message = el('p', { className: 'field-error', id: 'pattern-error', role: 'alert' });
  private readonly count = el('p', { className: 'field-note', id: 'pattern-count', role: 'status' });
  private cells: HTMLButtonElement[] = [];

  constructor(private readonly app: App) {
    this.side.append(...SIDES.map((s) => new Option(`${s} × ${s}`, String(s), s === 4, s === 4)));
    this.side.addEventListener('change', () => this.makeGrid());
    this.grid.setAttribute('aria-label', 'the pattern: tap a cell to turn it on or off');
    const add = el('button', { type: 'button', id: 'pattern-add', textContent: 'Add this pattern' });
    add.addEventListener('click', () => this.addDrawn());
    const clear = el('button', { type: 'button', id: 'pattern-clear', textContent: 'Clear the grid' });
    clear.addEventListener('click', () => this.setCells(''));
    const train = el('button', { type: 'button', id: 'pattern-train', className: 'primary', textContent: 'Train on these' });
    train.addEventListener('click', () => this.train());
    const close = el('button', { type: 'button', className: 'close', textContent: 'Close' });
    close.addEventListener('click', () => this.dialog.close());
    this.lines.addEventListener('input', () => this.check());
    this.lines.setAttribute('aria-describedby', 'pattern-error pattern-count');
    this.dialog = el(
      'dialog',
      { id: 'patterns', className: 'patterns' },
      el('div', { className: 'dialog-head' }, el('h2', { id: 'patterns-title' }, 'Your own patterns'), close),
      el(
        'p',
        { className: 'share-help' },
        'Draw a pattern (tap cells) and add it; add as many as you like, repeat one to make it more frequent, or paste 0/1 lines below. ',
        'Every lane then trains on them with an exact curve (up to 20 hidden units).',
      ),
      el(
        'div',
        { className: 'pattern-draw' },
        el('div', {}, el('label', { htmlFor: 'pattern-side' }, 'Grid '), this.side, this.grid, el('div', { className: 'pattern-buttons' }, add, clear)),
      ),
      el('label', { htmlFor: 'pattern-lines', className: 'share-label' }, 'Patterns, one 0/1 line each'),
      this.lines,
      this.count,
      this.message,
      el('div', { className: 'share-row pattern-train' }, el('label', { htmlFor: 'pattern-name' }, 'Name '), this.name, ' ', train),
    );
    this.dialog.setAttribute('aria-labelledby', 'patterns-title');
    document.body.append(this.dialog);
    const open = el('button', { type: 'button', id: 'patterns-button', className: 'file-button', textContent: 'Draw or paste patterns…' });
    open.addEventListener('click', () => this.open());
    $('#data-drop').after(el('div', { className: 'patterns-open' }, open));
    this.makeGrid();
  }

  open(): void {
    this.check();
    if (!this.dialog.open) this.dialog.showModal();
  }

  private makeGrid(): void {
    const d = Number(this.side.value);
    this.grid.style.gridTemplateColumns = `repeat(${d}, 1fr)`;
    this.cells = Array.from({ length: d * d }, (_, i) => {
      const b = el('button', { type: 'button', className: 'cell' });
      b.setAttribute('aria-pressed', 'false');
      b.setAttribute('aria-label', `row ${Math.floor(i / d) + 1}, column ${(i % d) + 1}`);
      b.addEventListener('click', () => b.setAttribute('aria-pressed', String(b.getAttribute('aria-pressed') !== 'true')));
      return b;
    });
    this.grid.replaceChildren(...this.cells);
  }

  private setCells(line: string): void {
    this.cells.forEach((c, i) => {
      c.setAttribute('aria-pressed', String(line[i] === '1'));
    });
  }

  private addDrawn(): void {
    const line = gridLine(this.cells.map((c) => c.getAttribute('aria-pressed') === 'true'));
    const text = this.lines.value.replace(/\s+$/, '');
    this.lines.value = `${text ? `${text}\n` : ''}${line}\n`;
    this.check();
  }

  /** The list's message: how many patterns, or what is wrong with it. */
  private check(): boolean {
    const p = parsePatterns(this.lines.value);
    setText(this.message, p.ok || this.lines.value.trim() === '' ? '' : p.message);
    setText(this.count, p.ok ? `${p.rows.length} pattern${p.rows.length === 1 ? '' : 's'} of ${p.m} units, ${new Set(p.rows).size} distinct` : '');
    return p.ok;
  }

  private train(): void {
    const refused = this.app.addPatterns(this.name.value, this.lines.value);
    setText(this.message, refused ?? '');
    if (refused === null) this.dialog.close();
  }
}
