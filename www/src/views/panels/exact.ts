// The exact evaluation a lane waits for when its smaller layer is above 20 units (e.g. 784×25):
// how far the page's evaluation workers are through the 2^k states, and a Cancel button (the
// lane then trains on without that point). Hidden when nothing is under way.

import type { ExactJob, LaneHandle } from '../../app/lane';
import { formatDuration } from '../../app/progress';
import { el, setAttr, setText } from '../dom';
import type { LanePanel, PanelContext, PanelKind } from './panel';

/** The panel's line: "Exact log-likelihood of update 2,000: 96 of 512 blocks (19%) of 2^25
 * states in 2 evaluation workers, 14 s, about 1 min left; training waits for it", or, while other
 * lanes' points are ahead of it in the pool, "queued: 2 points ahead of it". */
export function exactProgressText(job: ExactJob, workers: number, now: number): string {
  const what = `Exact log-likelihood of update ${job.iter.toLocaleString('en')}`;
  if (job.state === 'failed') return `${what}: ${job.message ?? 'failed'} (skipped)`;
  const pool = `${workers} evaluation worker${workers === 1 ? '' : 's'}`;
  if (job.ahead > 0)
    return `${what}: queued: ${job.ahead} point${job.ahead === 1 ? '' : 's'} of other lanes ahead of it in the ${pool}, ${formatDuration(now - job.started)} so far; training waits for it`;
  const pct = job.total > 0 ? Math.floor((100 * job.done) / job.total) : 0;
  const states = `2^${Math.round(Math.log2(Math.max(1, job.total)) + 16)} states`;
  // Time left at the pace of the blocks done since the pool began this point (none yet: unknown).
  const since = job.began === null ? 0 : now - job.began;
  const left = job.done > 0 && since > 0 ? `, about ${formatDuration(((job.total - job.done) * since) / job.done)} left` : '';
  return `${what}: ${job.done.toLocaleString('en')} of ${job.total.toLocaleString('en')} blocks (${pct}%) of ${states} in ${pool}, ${formatDuration(now - job.started)}${left}; training waits for it`;
}

class ExactPanel implements LanePanel {
  private root!: HTMLElement;
  private bar!: HTMLProgressElement;
  private text!: HTMLElement;
  private cancel!: HTMLButtonElement;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.bar = el('progress', { className: 'exact-bar', max: 1, value: 0 });
    this.text = el('span', { className: 'exact-progress', role: 'status' });
    this.cancel = el('button', { type: 'button', className: 'exact-cancel', textContent: 'Cancel' });
    this.cancel.title = 'skip this point of the exact curve: the lane trains on';
    this.cancel.addEventListener('click', () => ctx.cancelExact());
    this.root = el('div', { className: 'exact', hidden: true }, this.bar, ' ', this.text, ' ', this.cancel);
    container.append(this.root);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const job = lane.exact;
    this.root.hidden = job === null;
    if (!job) return;
    setAttr(this.root, 'data-state', job.state);
    this.bar.hidden = job.state !== 'running';
    this.bar.value = job.total > 0 ? job.done / job.total : 0;
    this.cancel.hidden = job.state !== 'running';
    setText(this.text, exactProgressText(job, ctx.evalWorkers, performance.now()));
  }
}

export const exactPanel: PanelKind = { name: 'exact', create: () => new ExactPanel() };
