// Writes the page's copy of a claims-explorer run (issue 29): from the JSON lines of
// `rbm explore PRESET …` (docs/explorer.md), the header's set-up and every `claim` line, as
// www/explorer/PRESET.json, which the page draws as maps of where each claim holds
// (www/src/views/claimMapView.ts). The command is stored with the data, so the page says how to
// reproduce every cell.
//
//   node scripts/explorer-data.mjs RUN.jsonl "rbm explore PRESET --lrs … --seed 1"
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './lib/tools.mjs';

const [file, command] = process.argv.slice(2);
if (!file || !command?.startsWith('rbm explore ')) {
  console.error('usage: node scripts/explorer-data.mjs RUN.jsonl "rbm explore PRESET …"');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const header = lines.find((l) => l.type === 'header' && l.command === 'explore');
if (!header) throw new Error(`${file}: no explorer header line`);
const keep = [
  'cell',
  'lr',
  'init_sigma',
  'k',
  'd',
  'kprime',
  'chains',
  'batch',
  'preset_point',
  'claim',
  'holds',
  'detail',
  'trials',
  'quantity',
  'value',
  'margin',
];
const claims = lines.filter((l) => l.type === 'claim').map((l) => ({ type: 'claim', ...Object.fromEntries(keep.filter((k) => k in l).map((k) => [k, l[k]])) }));
if (claims.length === 0) throw new Error(`${file}: no claim lines`);
const out = {
  preset: header.preset.name,
  command,
  seed: header.seed,
  trials_per_cell: header.trials_per_cell,
  iters: header.iters,
  own_init_sigma: header.own_init_sigma,
  claims,
};
const path = join(root, 'www', 'explorer', `${out.preset}.json`);
writeFileSync(`${path}.part`, `${JSON.stringify(out)}\n`);
renameSync(`${path}.part`, path);
console.log(`wrote ${path}: ${claims.length} claim lines over ${header.cells} cells`);
