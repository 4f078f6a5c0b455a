// Vite (page) and Vitest (unit tests of the page's pure logic). The page lives in www/; the
// wasm-bindgen output it imports is generated into www/pkg/ by scripts/build-wasm.mjs.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'www',
  // Relative asset paths: the built page works from any folder (embeddable in lecture notes).
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
  },
  worker: { format: 'es' },
  server: { port: 5173 },
  preview: { port: 4173 },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
