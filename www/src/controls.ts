// The controls: run and reset, the paper experiments, the settings every lane shares (from the
// core's schema: its shared options, plus the data set and the end point), the lane picker, the
// chart's axis and the keyboard. They call the App's actions and show its state.
import type { App } from './app';
import { AXIS_LABEL, type Axis } from './chartData';
import { $, el, optionInput, setAttr, setText } from './dom';
import { missingNote, presetDescription, rateLabel } from './presets';
import { formatValue, sharedOptions } from './schema';

interface SettingField {
  key: string;
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
  /** The text last written into the input from the page's state. */
  shown: string;
  value(): string;
}

export class Controls {
  private readonly fields: SettingField[] = [];
  private readonly run = $<HTMLButtonElement>('#run');
  private readonly preset = $<HTMLSelectElement>('#preset');
  private readonly rate = $<HTMLSelectElement>('#preset-rate');
  private readonly addAlgo = $<HTMLSelectElement>('#add-algo');
  private rateFor: string | null = '\u0000';

  constructor(
    private readonly app: App,
    onAdd: (algo: string) => void,
  ) {
    const c = app.catalog;
    const settings = $('#settings');
    const data = el('select', { id: 'data' });
    data.append(...c.data_sets.map((d) => new Option(d.description, d.name)));
    this.field(
      settings,
      'data',
      'Data set',
      data,
      'the built-in data set every lane trains on',
      () => app.data,
      (t) => app.setData(t),
    );
    for (const spec of sharedOptions(c)) {
      const input = optionInput(spec, spec.key);
      const label = spec.label.charAt(0).toUpperCase() + spec.label.slice(1);
      this.field(
        settings,
        spec.key,
        label,
        input,
        spec.help,
        () => formatValue(app.shared[spec.key] ?? null),
        (t) => app.setShared(spec.key, t),
      );
    }
    const stop = el('input', { id: 'stop', type: 'text', inputMode: 'numeric', placeholder: 'never', autocomplete: 'off' });
    this.field(
      settings,
      'stop',
      'Stop at update',
      stop,
      'every lane stops at this update (empty: runs on)',
      () => formatValue(app.stop),
      (t) => app.setStop(t),
    );

    this.preset.append(...c.presets.map((p) => new Option(`${p.title} — ${p.paper}`, p.name)));
    this.preset.disabled = false;
    this.preset.addEventListener('change', () => app.applyPreset(this.preset.value || null));
    this.rate.addEventListener('change', () => app.applyRate(Number(this.rate.value)));

    this.addAlgo.replaceChildren(...c.algorithms.map((a) => new Option(`${a.title} — ${a.paper}`, a.name)));
    this.addAlgo.disabled = false;
    const add = $<HTMLButtonElement>('#add');
    add.disabled = false;
    add.addEventListener('click', () => onAdd(this.addAlgo.value));

    this.run.addEventListener('click', () => app.toggle());
    $('#reset').addEventListener('click', () => app.reset());
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="axis"]')) {
      radio.addEventListener('change', () => app.setAxis(radio.value as Axis));
    }
    document.addEventListener('keydown', (e) => {
      const t = e.target as HTMLElement;
      if (e.ctrlKey || e.metaKey || e.altKey || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName) || t.isContentEditable) return;
      if (e.key === 's') app.toggle();
      else if (e.key === 'r') app.reset();
    });
  }

  /** One settings input with its label, help and message. */
  private field(
    parent: HTMLElement,
    key: string,
    label: string,
    input: HTMLInputElement | HTMLSelectElement,
    help: string,
    value: () => string,
    onChange: (text: string) => void,
  ): void {
    const error = el('p', { className: 'field-error', id: `err-${key}`, role: 'alert' });
    input.title = help;
    input.setAttribute('aria-describedby', `err-${key}`);
    input.addEventListener('change', () => onChange(input.value));
    parent.append(el('div', { className: 'field' }, el('label', { htmlFor: input.id }, label), input, error));
    this.fields.push({ key, input, error, shown: '\u0000', value });
  }

  update(): void {
    const app = this.app;
    for (const f of this.fields) {
      const text = f.value();
      // Only a new value replaces the text: refused text stays in its input, with its message.
      if (text !== f.shown) {
        f.input.value = text;
        f.shown = text;
      }
      const msg = app.settingError(f.key);
      setText(f.error, msg);
      setAttr(f.input, 'aria-invalid', String(msg !== ''));
    }
    const running = app.running();
    setText(this.run, running ? 'Pause' : 'Start');
    setAttr(this.run, 'aria-pressed', String(running));
    const p = app.catalog.presets.find((x) => x.name === app.preset) ?? null;
    if (this.preset.value !== (p?.name ?? '')) this.preset.value = p?.name ?? '';
    if (this.rateFor !== (p?.name ?? null)) {
      this.rateFor = p?.name ?? null;
      this.rate.replaceChildren(...(p ? p.rates.map((_, i) => new Option(rateLabel(p, i), String(i))) : []));
      this.rate.disabled = !p;
    }
    if (p && this.rate.value !== String(app.rate)) this.rate.value = String(app.rate);
    setText($('#preset-note'), p ? presetDescription(p) : '');
    setText($('#preset-missing'), missingNote(app.missing));
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="axis"]')) radio.checked = radio.value === app.axis;
    setText($('#chart-axes'), `Vertical: average log-likelihood (exact), in nats per training pattern. Horizontal: ${AXIS_LABEL[app.axis]}.`);
    const notice = $('#notice');
    setText(notice, app.notices.join(' '));
    notice.hidden = app.notices.length === 0;
  }
}
