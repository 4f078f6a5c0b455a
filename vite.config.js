// Vite (page) and Vitest (unit tests of the page's pure logic). The page lives in www/; the
// wasm-bindgen output it imports is generated into www/pkg/ by scripts/build-wasm.mjs.
import { defineConfig } from 'vite';
import { offlineHtml } from './scripts/offline-html.mjs';

export default defineConfig({
  root: 'www',
  // Relative asset paths: the built page works from any folder (embeddable in lecture notes).
  base: './',
  // Also writes www/dist/rbm-playground.html: the page in one file that works from file://.
  plugins: [offlineHtml()],
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
