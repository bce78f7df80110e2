import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The console's page: Preact components bundled into one script and one style sheet, with
// relative URLs so that it works wherever the console is mounted.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline script: the Content-Security-Policy allows the page's own files only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
})
