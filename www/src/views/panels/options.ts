// The lane's option inputs, from the core's schema: the options the algorithm reads (the main
// ones, then the general ones under "more options"), each with its label, help and message.

import { TERM_OF_KEY } from '../../app/glossary';
import type { LaneHandle } from '../../app/lane';
import type { OptionEntry } from '../../generated/core';
import { defaultValue, formatValue, laneOptions } from '../../protocol/schema';
import { el, errorFor, optionInput, showError } from '../dom';
import { termLink } from '../tips';
import type { LanePanel, PanelContext, PanelKind } from './panel';

interface Field {
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
  /** The text last written into the input from the lane's value. */
  shown: string;
}

class OptionsPanel implements LanePanel {
  private fields = new Map<string, Field>();
  private details: HTMLDetailsElement | null = null;
  private more: OptionEntry[] = [];

  mount(container: HTMLElement, ctx: PanelContext): void {
    const algo = ctx.algo?.name ?? '';
    const { main, more } = laneOptions(ctx.catalog, algo);
    const grid = (specs: OptionEntry[]) => {
      const g = el('div', { className: 'options' });
      for (const spec of specs) g.append(...this.field(spec, ctx));
      return g;
    };
    container.append(grid(main));
    if (more.length) {
      this.more = more;
      this.details = el('details', { className: 'more-options' }, el('summary', {}, 'more options'), grid(more));
      container.append(this.details);
    }
  }

  private field(spec: OptionEntry, ctx: PanelContext): Node[] {
    const id = `${ctx.idPrefix}-${spec.key}`;
    const input = optionInput(spec, id);
    input.setAttribute('aria-describedby', `${id}-help`);
    const error = errorFor(input, `${id}-err`);
    const field: Field = { input, error, shown: '\u0000' };
    this.fields.set(spec.key, field);
    input.addEventListener('change', () => {
      if (ctx.setOption(spec.key, input.value)) return;
      field.shown = '\u0000'; // declined: the next draw writes the value in use back
      ctx.refresh();
    });
    const help = el('span', { className: 'help', id: `${id}-help` }, spec.help);
    if (spec.live) help.append(' ', el('em', { className: 'live-note' }, '(applies at once, keeping the curve)'));
    const term = TERM_OF_KEY[spec.key];
    if (term) help.append(' ', termLink(term, '(glossary)'));
    const row = [el('label', { htmlFor: id }, spec.label), input, help, error];
    // Each cell carries the option's key: a classroom link hides the row (classroom.ts).
    for (const cell of row) cell.dataset.part = spec.key;
    return row;
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    for (const [key, f] of this.fields) {
      const text = formatValue(lane.options[key] ?? null);
      // Only a new value replaces the text: refused text stays in its input, with its message
      // (text the core refused goes back to the value in use).
      if (text !== f.shown || lane.reverted.delete(key)) {
        f.input.value = text;
        f.shown = text;
      }
      showError(f.input, f.error, ctx.inputError(key));
    }
    // "More options" opens by itself when one of them is away from its default or refused.
    if (this.details && !this.details.open && this.more.some((s) => (lane.options[s.key] ?? null) !== defaultValue(s) || ctx.inputError(s.key))) {
      this.details.open = true;
    }
  }
}

export const optionsPanel: PanelKind = { name: 'options', title: 'lane options', create: () => new OptionsPanel() };
