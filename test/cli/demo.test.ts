import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../bin/lockstep.js", import.meta.url));

it("the demo finishes a task offline, with a stale patch refused and recovered", () => {
  const env = { ...process.env };
  delete env["GEMINI_API_KEY"];
  delete env["GOOGLE_API_KEY"];
  const run = spawnSync(process.execPath, [bin, "demo"], { encoding: "utf8", env, timeout: 30_000 });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("State Mismatch:");
  expect(run.stdout).toContain(
    "a stale patch was refused and the retry on the fresh state landed; your edit is kept",
  );
  expect(run.stdout).toContain("const sorted = [...values].sort((a, b) => a - b);");
});
