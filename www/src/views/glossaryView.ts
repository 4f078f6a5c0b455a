// The glossary dialog: every term of glossary.ts, opened by the header's Glossary button or by
// any element with `data-term="ID"` (it then shows that term first and highlighted).

import { GLOSSARY } from '../app/glossary';
import { $, el } from './dom';

export class GlossaryView {
  private readonly dialog: HTMLDialogElement;

  constructor() {
    const close = el('button', { type: 'button', className: 'close', textContent: 'Close' });
    close.addEventListener('click', () => this.dialog.close());
    const list = el('dl', { className: 'glossary-list' });
    for (const t of GLOSSARY) {
      const dt = el('dt', { id: `term-${t.id}`, tabIndex: -1 }, t.term);
      list.append(dt, el('dd', {}, t.text));
    }
    this.dialog = el(
      'dialog',
      { id: 'glossary', className: 'glossary' },
      el('div', { className: 'dialog-head' }, el('h2', { id: 'glossary-title' }, 'Glossary'), close),
      list,
    );
    this.dialog.setAttribute('aria-labelledby', 'glossary-title');
    // A click on the backdrop closes it.
    this.dialog.addEventListener('click', (e) => {
      if (e.target === this.dialog) this.dialog.close();
    });
    document.body.append(this.dialog);
    $('#glossary-button').addEventListener('click', () => this.open());
    document.addEventListener('click', (e) => {
      const t = (e.target as Element | null)?.closest?.('[data-term]');
      if (t instanceof HTMLElement && t.dataset.term) {
        e.preventDefault();
        this.open(t.dataset.term);
      }
    });
  }

  /** Opens the glossary, at term `id` when given. */
  open(id?: string): void {
    for (const dt of this.dialog.querySelectorAll('dt.current')) dt.classList.remove('current');
    if (!this.dialog.open) this.dialog.showModal();
    const dt = id ? this.dialog.querySelector<HTMLElement>(`#term-${CSS.escape(id)}`) : null;
    if (dt) {
      dt.classList.add('current');
      dt.scrollIntoView({ block: 'nearest' });
      dt.focus();
    }
  }
}
