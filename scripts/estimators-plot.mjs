// Draws the estimator bench (`rbm estimators`, issue 29) as an SVG: each method's ATLL error,
// mean ± 1 sd over its runs, against Gibbs sweeps per run (scripts/lib/estimatorsPlot.mjs).
//
//   rbm estimators --model M --data D --pt-temperatures 4,8,16 --seed 1 > bench.jsonl
//   node scripts/estimators-plot.mjs bench.jsonl out.svg
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { estimatorsSvg } from './lib/estimatorsPlot.mjs';

const [file, out] = process.argv.slice(2);
if (!file || !out?.endsWith('.svg')) {
  console.error('usage: node scripts/estimators-plot.mjs BENCH.jsonl OUT.svg');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const svg = estimatorsSvg(lines);
// Never a half-written figure: write beside it, then move it in place.
writeFileSync(`${out}.tmp`, svg);
renameSync(`${out}.tmp`, out);
console.log(`wrote ${out} (${lines.length} settings)`);
