// The inputs of a panel's view options (scope `view` in the core's schema: e.g. the gradient
// error's interval): built from the schema like the lane options' (label, input, help, message),
// one value for the page, each cell marked with its key so a classroom link can hide it.

import { formatValue, optionSpec } from '../../protocol/schema';
import { el, errorFor, optionInput, showError } from '../dom';
import type { PanelContext } from './panel';

interface Field {
  key: string;
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
  shown: string;
}

export class ViewFields {
  readonly el: HTMLElement;
  private readonly fields: Field[] = [];

  constructor(ctx: PanelContext, keys: string[], ...extra: (Node | string)[]) {
    this.el = el('div', { className: 'view-fields' });
    for (const key of keys) {
      const spec = optionSpec(ctx.catalog, key);
      if (!spec) continue;
      const id = `${ctx.idPrefix}-${key}`;
      const input = optionInput(spec, id);
      input.title = spec.help;
      input.addEventListener('change', () => ctx.setViewOption(key, input.value));
      const error = errorFor(input, `${id}-err`, 'span');
      const cell = el('span', { className: 'view-field' }, el('label', { htmlFor: id, title: spec.help }, spec.label), ' ', input, error);
      cell.dataset.part = key;
      this.fields.push({ key, input, error, shown: '\u0000' });
      this.el.append(cell);
    }
    this.el.append(...extra);
  }

  /** The page's values into the inputs (a refused text stays, with its message). */
  update(ctx: PanelContext): void {
    for (const f of this.fields) {
      const text = formatValue(ctx.viewOption(f.key));
      if (text !== f.shown) {
        f.input.value = text;
        f.shown = text;
      }
      showError(f.input, f.error, ctx.viewError(f.key));
    }
  }

  /** The page's value of `key` as a number (its schema default when unset). */
  static number(ctx: PanelContext, key: string, fallback: number): number {
    const v = ctx.viewOption(key);
    return typeof v === 'number' ? v : fallback;
  }
}
