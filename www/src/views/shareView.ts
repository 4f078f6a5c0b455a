// The Share dialog: checkboxes for every part of the page (classroom.ts: what students see and
// may change), the compact layout, a tour to open; then the link and the `<iframe>` snippet,
// each with a Copy button. It starts from what the page shows now.
import type { App } from '../app/app';
import { type Part, type PartGroup, panelPart, parts, TOOL_PANELS } from '../app/classroom';
import { type ShareChoice, shareLinks } from '../app/share';
import { laneOptionKeys, viewOptions } from '../protocol/schema';
import { $, el } from './dom';
import { PANELS } from './panels';

const GROUPS: Record<PartGroup, string> = {
  run: 'Run',
  settings: 'Settings and lanes',
  'lane options': "Each lane's options",
  panels: "Each lane's views",
  page: 'Page',
};

/** Copies text; falls back to selecting it in `field` (older browsers, no permission). */
async function copy(text: string, field: HTMLInputElement | HTMLTextAreaElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field.focus();
    field.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

export class ShareView {
  private readonly dialog: HTMLDialogElement;
  private readonly boxes = new Map<string, HTMLInputElement>();
  private readonly groups = el('div', { className: 'share-groups' });
  private readonly embed = el('input', { type: 'checkbox', id: 'share-embed' });
  private readonly study = el('input', { type: 'checkbox', id: 'share-study' });
  private readonly studyLabel = el('span', {});
  private readonly studyRow = el('div', { className: 'share-row' }, el('label', {}, this.study, this.studyLabel));
  private readonly tour = el('select', { id: 'share-tour' });
  private readonly link = el('input', { type: 'text', id: 'share-link', readOnly: true });
  private readonly iframe = el('textarea', { id: 'share-iframe', readOnly: true, rows: 3 });
  private readonly preview = el('a', { id: 'share-preview', target: '_blank', rel: 'noopener', textContent: 'Try the link in a new tab' });
  private readonly status = el('p', { className: 'share-status', role: 'status' });

  constructor(
    private readonly app: App,
    private readonly hidden: () => Set<string>,
    tours: { id: string; title: string }[],
  ) {
    const close = el('button', { type: 'button', className: 'close', textContent: 'Close' });
    close.addEventListener('click', () => this.dialog.close());
    this.tour.append(new Option('none', ''), ...tours.map((t) => new Option(t.title, t.id)));
    const copyLink = el('button', { type: 'button', id: 'copy-link', textContent: 'Copy link' });
    const copyIframe = el('button', { type: 'button', id: 'copy-iframe', textContent: 'Copy <iframe>' });
    copyLink.addEventListener('click', () => this.copy(this.link.value, this.link, 'The link'));
    copyIframe.addEventListener('click', () => this.copy(this.iframe.value, this.iframe, 'The <iframe> snippet'));
    const presets = el(
      'div',
      { className: 'share-presets' },
      this.presetButton('Show everything', () => [], true),
      // The "Only …" sets give students one live run per lane (curves that move as soon as they
      // press Start) unless the teacher ticks the study again (issue 27).
      this.presetButton('Only Start and the learning rate', () => this.controlKeys().filter((k) => k !== 'run' && k !== 'lr'), false),
      this.presetButton('Only Start, Pause and Reset', () => this.controlKeys().filter((k) => k !== 'run' && k !== 'reset'), false),
    );
    this.dialog = el(
      'dialog',
      { id: 'share', className: 'share' },
      el('div', { className: 'dialog-head' }, el('h2', { id: 'share-title' }, 'Share this experiment'), close),
      el(
        'p',
        { className: 'share-help' },
        'The link opens the page with these settings and lanes (same seed, same curves). Untick what students should not see or change; the page keeps it hidden after a reload.',
      ),
      presets,
      this.studyRow,
      this.groups,
      el('div', { className: 'share-row' }, el('label', {}, this.embed, ' Compact layout: chart, lanes and Start/Pause/Reset (the <iframe> always uses it)')),
      el('div', { className: 'share-row' }, el('label', { htmlFor: 'share-tour' }, 'Open with the guided tour '), this.tour),
      el('label', { htmlFor: 'share-link', className: 'share-label' }, 'Link'),
      el('div', { className: 'share-out' }, this.link, copyLink),
      el('label', { htmlFor: 'share-iframe', className: 'share-label' }, 'Embed in a course page (800 × 500)'),
      el('div', { className: 'share-out' }, this.iframe, copyIframe),
      this.preview,
      this.status,
    );
    this.dialog.setAttribute('aria-labelledby', 'share-title');
    this.dialog.addEventListener('change', () => this.refresh());
    this.dialog.addEventListener('click', (e) => {
      if (e.target === this.dialog) this.dialog.close();
    });
    document.body.append(this.dialog);
    const button = $<HTMLButtonElement>('#share-button');
    button.disabled = false;
    button.addEventListener('click', () => this.open());
  }

  private presetButton(text: string, hide: () => string[], study: boolean): HTMLButtonElement {
    const b = el('button', { type: 'button', textContent: text });
    b.addEventListener('click', () => {
      const h = new Set(hide());
      for (const [key, box] of this.boxes) box.checked = !h.has(key);
      this.study.checked = study && this.app.trials !== null;
      this.refresh();
    });
    return b;
  }

  private parts(): Part[] {
    // Lane options: the ones the page's lanes read (a link may name any, the dialog lists these).
    const read = new Set(this.app.lanes.flatMap((l) => laneOptionKeys(this.app.catalog, l.algo)));
    return parts(this.app.catalog, PANELS).filter((p) => p.group !== 'lane options' || read.has(p.key));
  }

  /** Every control students could change something with (the views and texts stay). */
  private controlKeys(): string[] {
    // The tool panels, and the options of the panels that compute on request, are controls too.
    const tools = new Set(TOOL_PANELS.map((n) => panelPart(this.app.catalog, n)));
    const views = new Set(viewOptions(this.app.catalog).map((o) => o.key));
    return this.parts()
      .filter(
        (p) =>
          p.group === 'run' ||
          p.group === 'settings' ||
          p.group === 'lane options' ||
          p.key === 'share' ||
          p.key === 'tours' ||
          tools.has(p.key) ||
          views.has(p.key),
      )
      .map((p) => p.key);
  }

  open(): void {
    const hidden = this.hidden();
    this.boxes.clear();
    const byGroup = new Map<PartGroup, Part[]>();
    for (const p of this.parts()) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
    this.groups.replaceChildren(
      ...[...byGroup].map(([group, list]) => {
        const fs = el('fieldset', { className: 'share-group' }, el('legend', {}, GROUPS[group]));
        for (const p of list) {
          const box = el('input', { type: 'checkbox', checked: !hidden.has(p.key), value: p.key });
          box.dataset.part = p.key;
          this.boxes.set(p.key, box);
          fs.append(el('label', {}, box, ` ${p.label}`));
        }
        return fs;
      }),
    );
    this.embed.checked = this.app.view.embed;
    const n = this.app.trials;
    this.studyRow.hidden = n === null;
    this.study.checked = n !== null;
    this.studyLabel.textContent =
      n === null
        ? ''
        : ` Start runs a study of ${n} trial${n === 1 ? '' : 's'} per lane (medians and bands when they end); unticked, one live run per lane that moves at once`;
    this.tour.value = this.app.view.tour ?? '';
    this.status.textContent = '';
    this.refresh();
    if (!this.dialog.open) this.dialog.showModal();
  }

  /** The teacher's choice as the checkboxes say. */
  choice(): ShareChoice {
    return {
      hide: [...this.boxes].filter(([, b]) => !b.checked).map(([key]) => key),
      embed: this.embed.checked,
      tour: this.tour.value || null,
      study: this.study.checked,
    };
  }

  private refresh(): void {
    const links = shareLinks(this.app.catalog, this.app.state(), this.choice(), window.location.href, 'RBM Playground: an RBM training experiment');
    this.link.value = links.link;
    this.iframe.value = links.iframe;
    this.preview.href = links.link;
  }

  private async copy(text: string, field: HTMLInputElement | HTMLTextAreaElement, what: string): Promise<void> {
    const ok = await copy(text, field);
    this.status.textContent = ok ? `${what} is copied.` : `${what} is selected: copy it with Ctrl+C (⌘C).`;
  }
}
