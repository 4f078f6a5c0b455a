import { describe, expect, it } from 'vitest';
import { GLOSSARY } from '../src/app/glossary';

describe('the glossary (issue 27)', () => {
  it("covers the page's own vocabulary: the algorithms, trials, medians and bands, ISL, total variation and the samplers", () => {
    const terms = GLOSSARY.map((t) => t.term).join(' | ');
    for (const word of ['S-DCP', 'CS-DCP', 'CG', 'FPCD', 'MF-CD', 'Trial', 'Median and bands', 'ISL', 'Total variation', 'Rates-FPCD', 'rates-herding'])
      expect(terms, word).toContain(word);
    expect(new Set(GLOSSARY.map((t) => t.id)).size).toBe(GLOSSARY.length);
    for (const t of GLOSSARY) expect(t.text.length, t.id).toBeGreaterThan(60);
  });
});

describe('every algorithm of the core has its glossary entry (the lane header links it)', () => {
  it('by its name', async () => {
    const { catalog } = await import('./fixture');
    const { glossaryTerm } = await import('../src/app/glossary');
    for (const a of catalog.algorithms) expect(glossaryTerm(a.name), a.name).toBeDefined();
  });
});
