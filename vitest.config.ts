import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Every server a test spawns keeps its sessions here, never in the user's own state directory.
    env: { XDG_STATE_HOME: mkdtempSync(path.join(tmpdir(), "lockstep-test-state-")) },
  },
});
