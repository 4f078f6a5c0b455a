// The catalog fixtures: the wasm core's `catalog()` and `samplerCatalog()` as the page receives
// them (see fixtures/update-catalog.mjs to regenerate them after a change of the core's catalog).
import type { Catalog, SamplerEntry } from '../src/generated/core';
import json from './fixtures/catalog.json';
import samplersJson from './fixtures/samplers.json';

export const catalog = json as unknown as Catalog;
export const samplers = samplersJson as unknown as SamplerEntry[];
