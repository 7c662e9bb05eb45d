import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The bundle lands in console-api's classes, so the server jar serves it from the classpath (/console).
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: '../../../target/classes/console',
    emptyOutDir: true,
    // one file per library family keeps the first load cacheable; nothing is fetched at run time
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
  },
  server: {
    proxy: { '/nacos': 'http://127.0.0.1:8848', '/lodestar': { target: 'ws://127.0.0.1:8848', ws: true } },
  },
});
