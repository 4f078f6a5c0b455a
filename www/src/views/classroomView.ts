// Applies a classroom link's view (classroom.ts) to the page: one style sheet hiding the parts
// it names (lane cards made later hide too), the compact embed layout, and the embed header's
// link to the full page (the same experiment, nothing hidden).
import type { App } from '../app/app';
import { hiddenCss, hiddenParts, NO_VIEW } from '../app/classroom';
import { encodeState } from '../app/urlState';
import { PANELS } from './panels';

export class ClassroomView {
  private readonly style = document.createElement('style');
  private css = '';
  /** The view the style sheet was made for (it is made again only when that changes). */
  private madeFor = '\u0000';
  private fullHref = '';

  constructor(private readonly app: App) {
    this.style.id = 'hidden-parts';
    document.head.append(this.style);
  }

  /** The parts hidden now. */
  hidden(): Set<string> {
    return hiddenParts(this.app.view, this.app.catalog, PANELS);
  }

  update(): void {
    const app = this.app;
    const key = JSON.stringify([app.view.hide, app.view.embed]);
    if (key !== this.madeFor) {
      this.madeFor = key;
      const css = hiddenCss(this.hidden(), app.catalog);
      if (css !== this.css) {
        this.css = css;
        this.style.textContent = css;
      }
    }
    document.documentElement.classList.toggle('embed', app.view.embed);
    if (app.view.embed) {
      const href = `#${encodeState(app.catalog, app.state(), NO_VIEW)}`;
      if (href !== this.fullHref) {
        this.fullHref = href;
        document.getElementById('full-page')?.setAttribute('href', href);
      }
    }
  }
}
