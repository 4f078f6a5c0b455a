// The estimator bench's figure (issue 29; `rbm estimators`, docs/algorithms.md §7): each method's
// error against the exact value — the mean over its runs with a bar of ± one standard deviation
// — against its compute in Gibbs sweeps (log scale), one line per method through its settings.
// AIS and BAR estimate log Z, RAISE bounds the ATLL; all three are drawn as the ATLL's error
// (for AIS and BAR, minus their log Z's error), so one axis holds them. Plain SVG, no dependency.

/** Colours and markers by method. */
const STYLE = {
  ais: { colour: '#1f4e9c', label: 'AIS' },
  raise: { colour: '#b5452b', label: 'RAISE' },
  'bar-pt': { colour: '#2a7d4f', label: 'BAR over PT' },
};

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** "Nice" ticks (1, 2, 5 × 10^k) covering [lo, hi]. */
function ticks(lo, hi, count = 6) {
  const span = hi - lo || 1;
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

/** The points of each method from the bench's lines: `{method: [{sweeps, mean, sd, label}]}`,
 * sorted by sweeps. Throws on a line that is not the bench's. */
export function benchPoints(lines) {
  const out = {};
  for (const l of lines) {
    if (typeof l.method !== 'string' || typeof l.sweeps !== 'number' || typeof l.atll_error_mean !== 'number' || typeof l.atll_error_sd !== 'number')
      throw new Error(`not a line of rbm estimators: ${JSON.stringify(l).slice(0, 120)}`);
    const label = l.method === 'bar-pt' ? `${l.betas} T` : l.schedule === 'sm2008' ? 'S&M' : `${l.betas} β`;
    if (!out[l.method]) out[l.method] = [];
    out[l.method].push({ sweeps: l.sweeps, mean: l.atll_error_mean, sd: l.atll_error_sd, label });
  }
  for (const k of Object.keys(out)) out[k].sort((a, b) => a.sweeps - b.sweeps);
  return out;
}

/** The figure as an SVG document. */
export function estimatorsSvg(lines, { width = 720, height = 420 } = {}) {
  const points = benchPoints(lines);
  const all = Object.values(points).flat();
  if (all.length === 0) throw new Error('no bench lines to plot');
  const first = lines[0];
  const margin = { left: 70, right: 140, top: 48, bottom: 52 };
  const w = width - margin.left - margin.right;
  const h = height - margin.top - margin.bottom;
  const lx = all.map((p) => Math.log10(p.sweeps));
  const [x0, x1] = [Math.floor(Math.min(...lx) * 2) / 2, Math.ceil(Math.max(...lx) * 2) / 2 + (Math.min(...lx) === Math.max(...lx) ? 0.5 : 0)];
  const ys = all.flatMap((p) => [p.mean - p.sd, p.mean + p.sd, 0]);
  const pad = (Math.max(...ys) - Math.min(...ys)) * 0.08 || 0.01;
  const [y0, y1] = [Math.min(...ys) - pad, Math.max(...ys) + pad];
  const X = (s) => margin.left + ((Math.log10(s) - x0) / (x1 - x0)) * w;
  const Y = (v) => margin.top + (1 - (v - y0) / (y1 - y0)) * h;
  const parts = [];
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`);
  const title = `Estimator bench: ${first.visible}×${first.hidden} model on ${first.data}, ${first.runs} runs per setting (seed ${first.seed})`;
  parts.push(`<text x="${margin.left}" y="20" font-size="14" font-weight="600">${esc(title)}</text>`);
  parts.push(
    `<text x="${margin.left}" y="38" font-size="11" fill="#444">${esc(`error of the ATLL against the exact ${first.exact_atll.toFixed(4)} nats: mean over runs ± 1 sd; protocol ${first.protocol}`)}</text>`,
  );
  for (const t of ticks(y0, y1)) {
    parts.push(`<line x1="${margin.left}" x2="${margin.left + w}" y1="${Y(t)}" y2="${Y(t)}" stroke="${t === 0 ? '#888' : '#eee'}"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${Y(t) + 4}" font-size="11" text-anchor="end">${esc(Number(t.toPrecision(3)))}</text>`);
  }
  for (let e = Math.ceil(x0); e <= x1; e++) {
    parts.push(`<line x1="${X(10 ** e)}" x2="${X(10 ** e)}" y1="${margin.top}" y2="${margin.top + h}" stroke="#eee"/>`);
    parts.push(`<text x="${X(10 ** e)}" y="${margin.top + h + 16}" font-size="11" text-anchor="middle">10${esc(superscript(e))}</text>`);
  }
  parts.push(`<rect x="${margin.left}" y="${margin.top}" width="${w}" height="${h}" fill="none" stroke="#333"/>`);
  parts.push(`<text x="${margin.left + w / 2}" y="${height - 12}" font-size="12" text-anchor="middle">Gibbs sweeps per run (log scale)</text>`);
  parts.push(`<text transform="translate(16 ${margin.top + h / 2}) rotate(-90)" font-size="12" text-anchor="middle">ATLL − exact ATLL (nats)</text>`);
  let legend = 0;
  for (const [method, ps] of Object.entries(points)) {
    const s = STYLE[method] ?? { colour: '#555', label: method };
    parts.push(`<polyline fill="none" stroke="${s.colour}" stroke-width="1.5" points="${ps.map((p) => `${X(p.sweeps)},${Y(p.mean)}`).join(' ')}"/>`);
    for (const p of ps) {
      const [x, lo, hi] = [X(p.sweeps), Y(p.mean - p.sd), Y(p.mean + p.sd)];
      parts.push(`<line x1="${x}" x2="${x}" y1="${lo}" y2="${hi}" stroke="${s.colour}"/>`);
      parts.push(
        `<line x1="${x - 4}" x2="${x + 4}" y1="${lo}" y2="${lo}" stroke="${s.colour}"/><line x1="${x - 4}" x2="${x + 4}" y1="${hi}" y2="${hi}" stroke="${s.colour}"/>`,
      );
      parts.push(
        `<circle cx="${x}" cy="${Y(p.mean)}" r="3.5" fill="${s.colour}"><title>${esc(`${s.label} ${p.label}: ${p.mean.toFixed(4)} ± ${p.sd.toFixed(4)} at ${p.sweeps} sweeps`)}</title></circle>`,
      );
    }
    const ly = margin.top + 12 + legend * 18;
    parts.push(`<circle cx="${margin.left + w + 16}" cy="${ly - 4}" r="4" fill="${s.colour}"/>`);
    parts.push(`<text x="${margin.left + w + 26}" y="${ly}" font-size="12">${esc(s.label)}</text>`);
    legend++;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">\n${parts.join('\n')}\n</svg>\n`;
}

function superscript(n) {
  const d = '⁰¹²³⁴⁵⁶⁷⁸⁹';
  return `${n < 0 ? '⁻' : ''}${String(Math.abs(n))
    .split('')
    .map((c) => d[Number(c)])
    .join('')}`;
}
