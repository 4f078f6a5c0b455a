// Turns for the lanes' workers (issue 31): a link may ask for 64 lanes, and 64 workers computing
// at once on a few cores starve the page's own thread — Pause then waits seconds or forever.
// With more lanes than `capacity`, the lanes take turns: a lane's worker computes (training,
// an estimate, an analysis) only while it holds a turn, at most `capacity` lanes hold one at a
// time, and a turn is handed back after about TURN_MS of slices (protocol/messages.ts), to the
// lane that has waited longest. With `capacity` lanes or fewer, every lane computes freely, as
// it always did. DOM-free and worker-free: the App wires it to the lanes (app.ts), the unit
// tests drive it directly.

/** How many lanes compute at once on a machine with `cores` logical cores: one per core but the
 * page's own, and never fewer than two (two lanes side by side is the first screen). */
export function lanesAtOnce(cores: number | undefined): number {
  const n = Number.isFinite(cores) && (cores ?? 0) >= 1 ? Math.floor(cores as number) : 2;
  return Math.max(2, n - 1);
}

/** What the page says about the turns: nothing while every lane computes at once. */
export function turnsNote(lanes: number, atOnce: number): string {
  if (lanes <= atOnce) return '';
  return `The ${lanes} lanes take turns, ${atOnce} computing at a time (as many as this machine's cores allow beside the page): each trains about ${atOnce} s in every ${lanes} s.`;
}

/** What the turns tell a lane's worker. */
export interface TurnHost<L> {
  /** Whether lane `lane` must ask for turns (true) or compute freely (false). */
  gate(lane: L, on: boolean): void;
  /** Lane `lane` may compute now, for one turn. */
  grant(lane: L): void;
}

/** Round-robin turns for at most `capacity` lanes at once. */
export class LaneTurns<L> {
  private readonly lanes = new Set<L>();
  /** Lanes holding a turn. */
  private readonly holding = new Set<L>();
  /** Lanes waiting for a turn, longest first. */
  private readonly queue: L[] = [];
  private gated = false;

  constructor(
    readonly capacity: number,
    private readonly host: TurnHost<L>,
  ) {
    if (!(capacity >= 1)) throw new RangeError(`lanes at once must be at least 1 (got ${capacity})`);
  }

  /** Whether the lanes take turns (there are more than `capacity`). */
  get taking(): boolean {
    return this.gated;
  }

  /** How many lanes hold a turn (while they take turns). */
  get holders(): number {
    return this.holding.size;
  }

  /** How many lanes wait for a turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /** A lane joins (its worker is new: it is told whether to ask for turns). */
  add(lane: L): void {
    this.lanes.add(lane);
    this.regate();
    this.host.gate(lane, this.gated);
  }

  /** A lane leaves, or its worker was replaced: its turn (if it held one) goes to the next. */
  remove(lane: L): void {
    this.lanes.delete(lane);
    this.drop(lane);
    this.regate();
    this.fill();
  }

  /** The worker of `lane` was replaced by a new one: whatever the old one held or asked is void. */
  replaced(lane: L): void {
    this.drop(lane);
    this.host.gate(lane, this.gated);
    this.fill();
  }

  /** Lane `lane`'s worker has work and asks for a turn. */
  want(lane: L): void {
    if (!this.lanes.has(lane) || this.holding.has(lane) || this.queue.includes(lane)) return;
    if (!this.gated) {
      // It asked before it learnt the lanes stopped taking turns: it may go at once.
      this.host.grant(lane);
      return;
    }
    this.queue.push(lane);
    this.fill();
  }

  /** Lane `lane`'s worker handed its turn back (or stopped for good); `more`: it has work left
   * and waits for the next. */
  over(lane: L, more: boolean): void {
    if (!this.lanes.has(lane)) return;
    this.drop(lane);
    if (more && this.gated && !this.queue.includes(lane)) this.queue.push(lane);
    else if (more && !this.gated) this.host.grant(lane);
    this.fill();
  }

  private drop(lane: L): void {
    this.holding.delete(lane);
    const i = this.queue.indexOf(lane);
    if (i >= 0) this.queue.splice(i, 1);
  }

  private regate(): void {
    const on = this.lanes.size > this.capacity;
    if (on === this.gated) return;
    this.gated = on;
    if (!on) {
      // Every lane computes freely again: those waiting go at once.
      const waiting = this.queue.splice(0);
      this.holding.clear();
      for (const lane of this.lanes) this.host.gate(lane, false);
      for (const lane of waiting) this.host.grant(lane);
    } else {
      // Lanes computing freely until now ask for a turn at their next slice.
      for (const lane of this.lanes) this.host.gate(lane, true);
    }
  }

  private fill(): void {
    while (this.gated && this.holding.size < this.capacity && this.queue.length > 0) {
      const lane = this.queue.shift() as L;
      this.holding.add(lane);
      this.host.grant(lane);
    }
  }
}
