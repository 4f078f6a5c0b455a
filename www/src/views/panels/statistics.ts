// The algorithm's statistics of the latest record, with the labels and units it declares
// (StatSpec), e.g. "mean stopping time τ 2.41 steps".

import { TERM_OF_KEY } from '../../app/glossary';
import type { LaneHandle } from '../../app/lane';
import type { StatSpec } from '../../generated/core';
import { el, setText } from '../dom';
import { formatStatWithUnit } from '../format';
import { termLink } from '../tips';
import type { LanePanel, PanelContext, PanelKind } from './panel';

class StatisticsPanel implements LanePanel {
  private list!: HTMLDListElement;
  private values = new Map<string, HTMLElement>();
  private shown: Record<string, number> | null = null;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.list = el('dl', { className: 'stats', hidden: true });
    for (const spec of ctx.algo?.stats ?? []) {
      const dd = el('dd', { className: `stat-${spec.key}` });
      dd.dataset.key = spec.key;
      this.values.set(spec.key, dd);
      const term = TERM_OF_KEY[spec.key];
      this.list.append(el('dt', { title: spec.help }, term ? termLink(term, spec.label) : spec.label), dd);
    }
    container.append(this.list);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    if (lane.stats === this.shown) return;
    this.shown = lane.stats;
    const specs: StatSpec[] = ctx.algo?.stats ?? [];
    let any = false;
    for (const spec of specs) {
      const v = lane.stats[spec.key];
      const dd = this.values.get(spec.key);
      if (!dd) continue;
      setText(dd, v === undefined ? '–' : formatStatWithUnit(spec, v));
      any ||= v !== undefined;
    }
    this.list.hidden = !any;
  }
}

export const statisticsPanel: PanelKind = {
  name: 'statistics',
  title: 'statistics',
  help: "What the algorithm measures about its own sampling (e.g. UCD's stopping time τ), at the latest evaluation.",
  term: 'tau',
  create: () => new StatisticsPanel(),
};
