// Short explanations where things are: a "?" button beside a control, axis or panel that shows
// its text on hover (its title) and on a tap or click (a popover, so phones get it too), and
// buttons that open the glossary at a term (glossaryView.ts listens for `data-term`).

import { glossaryTerm } from '../app/glossary';
import { el } from './dom';

let next = 0;

/** A button that opens the glossary at term `id` ("average log-likelihood" in a sentence). */
export function termLink(id: string, text: string): HTMLButtonElement {
  const b = el('button', { type: 'button', className: 'term', textContent: text });
  b.dataset.term = id;
  const t = glossaryTerm(id);
  if (t) b.title = `${t.term}: ${t.text}`;
  return b;
}

/** A "?" explaining `label`: hover shows `text`, a tap or click shows it in a popover (with a
 * link to the glossary's `term` when given). */
export function tip(label: string, text: string, term?: string): HTMLElement {
  const id = `tip-${++next}`;
  const pop = el('div', { id, className: 'tip-pop' }, el('strong', {}, label), ': ', text);
  pop.setAttribute('popover', '');
  pop.setAttribute('role', 'note');
  if (term && glossaryTerm(term)) pop.append(' ', termLink(term, 'More in the glossary'));
  const button = el('button', { type: 'button', className: 'tip', title: text, textContent: '?' });
  button.setAttribute('aria-label', `About ${label}`);
  button.setAttribute('popovertarget', id);
  return el('span', { className: 'tip-wrap' }, button, pop);
}
