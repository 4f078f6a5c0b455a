// The catalog fixture: the wasm core's `catalog()` as the page receives it (see
// fixtures/update-catalog.mjs to regenerate it after a change of the core's catalog).
import type { Catalog } from '../src/generated/core';
import json from './fixtures/catalog.json';

export const catalog = json as unknown as Catalog;
