/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Tauri serves the built files itself; the dev server is only for `tauri dev`.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    target: "safari15",
    outDir: "dist",
    chunkSizeWarningLimit: 2000,
  },
  test: {
    environment: "jsdom",
    // A test may wait 5 s for the page (src/test/setup.ts); it fails after 20 s.
    testTimeout: 20000,
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts", "src/test/tauri.ts"],
  },
});
