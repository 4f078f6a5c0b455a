// A small element builder (properties and children, text only: never HTML) and the input of an
// option of the core's schema.
import type { OptionSpec } from '../generated/core';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & Record<string, unknown> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props) as HTMLElementTagNameMap[K];
  e.append(...children);
  return e;
}

/** The element `sel` below `root`; throws if the page lacks it. */
export function $<T extends HTMLElement>(sel: string, root: ParentNode = document): T {
  const e = root.querySelector<T>(sel);
  if (!e) throw new Error(`the page has no ${sel}`);
  return e;
}

/** Sets an element's text only when it changed (no needless layout). */
export function setText(e: Element, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

/** Sets an attribute only when it changed. */
export function setAttr(e: Element, name: string, value: string): void {
  if (e.getAttribute(name) !== value) e.setAttribute(name, value);
}

/** An input for one option: a text input for numbers, a list for choices. */
export function optionInput(spec: OptionSpec, id: string): HTMLInputElement | HTMLSelectElement {
  if (spec.kind.type === 'choice') {
    const select = el('select', { id, name: spec.key });
    select.append(...spec.kind.choices.map((c) => new Option(c, c)));
    return select;
  }
  const input = el('input', { id, name: spec.key, type: 'text', inputMode: spec.kind.type === 'int' ? 'numeric' : 'decimal', autocomplete: 'off' });
  if (spec.default.type === 'derived') input.placeholder = spec.default.value;
  return input;
}

/** The element that shows an option input's refusal, beside or under it (`tag`), an alert the
 * input names as its description. */
export function errorFor(input: HTMLInputElement | HTMLSelectElement, id: string, tag: 'p' | 'span' = 'p'): HTMLElement {
  const error = el(tag, { className: 'field-error', id, role: 'alert' });
  const described = input.getAttribute('aria-describedby');
  input.setAttribute('aria-describedby', described ? `${described} ${id}` : id);
  return error;
}

/** Shows an input's refusal (`message`; '' for none) in its error element and marks the input
 * invalid while there is one. */
export function showError(input: HTMLInputElement | HTMLSelectElement, error: HTMLElement, message: string): void {
  setText(error, message);
  setAttr(input, 'aria-invalid', String(message !== ''));
}
