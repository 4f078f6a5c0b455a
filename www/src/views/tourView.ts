// A guided tour on the page (the tours are data: tour.ts, www/tours/*.json): a card with the
// step's text, Back / Next and End; each step sets the page up through the App's actions and
// outlines the element it is about (scrolled into view). `tour=ID` in the link opens a tour.
import type { App } from '../app/app';
import { planStep, type Tour, type TourStep, watchText } from '../app/tour';
import { $, el, setText } from './dom';

export class TourView {
  private readonly card: HTMLElement;
  private readonly title = el('h2', { id: 'tour-title' });
  private readonly count = el('p', { className: 'tour-count', id: 'tour-count' });
  private readonly text = el('p', { className: 'tour-text', id: 'tour-text' });
  private readonly watch = el('p', { className: 'tour-watch', id: 'tour-watch' });
  private readonly back = el('button', { type: 'button', id: 'tour-back', textContent: 'Back' });
  private readonly next = el('button', { type: 'button', id: 'tour-next', className: 'primary' });
  private tour: Tour | null = null;
  private at = 0;
  private target: Element | null = null;

  constructor(
    private readonly app: App,
    readonly tours: Tour[],
    /** Draws the page now (a step's lanes must have their cards before one is outlined). */
    private readonly render: () => void,
  ) {
    const end = el('button', { type: 'button', className: 'close', id: 'tour-end', textContent: 'End tour' });
    end.addEventListener('click', () => this.close());
    this.back.addEventListener('click', () => this.go(this.at - 1));
    this.next.addEventListener('click', () => (this.tour && this.at + 1 < this.tour.steps.length ? this.go(this.at + 1) : this.close()));
    this.text.setAttribute('aria-live', 'polite');
    this.card = el(
      'aside',
      { id: 'tour', className: 'tour', hidden: true },
      el('div', { className: 'dialog-head' }, this.title, end),
      this.count,
      this.text,
      this.watch,
      el('div', { className: 'tour-buttons' }, this.back, this.next),
    );
    this.card.setAttribute('aria-labelledby', 'tour-title');
    document.body.append(this.card);
    this.menu();
  }

  /** The header's button: one tour starts at once, several are listed. */
  private menu(): void {
    const button = $<HTMLButtonElement>('#tour-button');
    if (!this.tours.length) return;
    button.disabled = false;
    if (this.tours.length === 1) {
      button.title = this.tours[0].summary;
      button.addEventListener('click', () => this.start(this.tours[0].id));
      return;
    }
    const list = el('div', { id: 'tour-menu', className: 'tip-pop tour-menu' });
    list.setAttribute('popover', '');
    for (const t of this.tours) {
      const b = el('button', { type: 'button', textContent: t.title, title: t.summary });
      b.dataset.tour = t.id;
      b.addEventListener('click', () => {
        list.hidePopover();
        this.start(t.id);
      });
      list.append(b);
    }
    button.setAttribute('popovertarget', 'tour-menu');
    button.after(list);
  }

  start(id: string): void {
    const tour = this.tours.find((t) => t.id === id);
    if (!tour) return;
    this.tour = tour;
    this.app.view.tour = id;
    setText(this.title, tour.title);
    this.card.hidden = false;
    document.documentElement.classList.add('touring');
    this.go(0);
  }

  close(): void {
    this.outline(null);
    this.tour = null;
    this.card.hidden = true;
    document.documentElement.classList.remove('touring');
    this.app.view.tour = null;
    this.render();
  }

  private go(i: number): void {
    const tour = this.tour;
    if (!tour || i < 0 || i >= tour.steps.length) return;
    this.at = i;
    const step = tour.steps[i];
    const app = this.app;
    const { plan } = planStep(app.catalog, app.state(), step);
    if (plan.load) app.load(plan.load);
    if (plan.axis) app.setAxis(plan.axis);
    if (plan.run === 'start') app.start();
    else if (plan.run === 'pause') app.pause();
    else if (plan.run === 'reset') app.reset();
    setText(this.count, `Step ${i + 1} of ${tour.steps.length}`);
    setText(this.text, step.text);
    this.back.disabled = i === 0;
    setText(this.next, i + 1 < tour.steps.length ? 'Next' : 'Finish');
    this.render();
    this.outline(this.find(step));
    this.update();
    this.next.focus({ preventScroll: true });
  }

  /** The element a step points at: the first shown one of its part (in its lane). */
  private find(step: TourStep): Element | null {
    if (!step.highlight) return null;
    let root: ParentNode = document;
    if (step.lane !== undefined) {
      const lane = this.app.lanes[step.lane];
      const card = lane ? document.querySelector(`article[data-lane-id="${lane.id}"]`) : null;
      if (!card) return null;
      root = card;
    }
    const all = [...root.querySelectorAll(`[data-part~="${CSS.escape(step.highlight)}"]`)];
    return all.find((e) => e.checkVisibility?.() ?? true) ?? null;
  }

  private outline(e: Element | null): void {
    this.target?.classList.remove('tour-target');
    this.target = e;
    if (!e) return;
    e.classList.add('tour-target');
    // To the top of the screen: on a phone the card covers the lower part.
    e.scrollIntoView({ block: 'start', behavior: 'smooth' });
    // Lane cards draw their panels once on screen, so the page grows under a long scroll and
    // the element moves on: follow it until it stays near the top.
    this.follow(e, 6);
  }

  private follow(e: Element, tries: number): void {
    setTimeout(() => {
      if (this.target !== e || tries <= 0) return;
      const top = e.getBoundingClientRect().top;
      if (top < -1 || top > window.innerHeight / 3) e.scrollIntoView({ block: 'start', behavior: 'smooth' });
      this.follow(e, tries - 1);
    }, 400);
  }

  /** The step's watch: how far the lane it talks about (else the slowest lane) is towards its
   * update (on every draw). */
  update(): void {
    const step = this.tour?.steps[this.at];
    if (!step?.watch) {
      setText(this.watch, '');
      return;
    }
    const lanes = this.app.lanes;
    const who = step.lane !== undefined && lanes[step.lane] ? this.app.laneTitle(lanes[step.lane]) : 'all lanes';
    setText(this.watch, watchText(step, lanes, who));
  }
}
