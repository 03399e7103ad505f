// A pid read from a file (a lock, a journal, a discovery file) is input: 0 and negative
// numbers would ask signal 0 about a whole process group and always hear "alive".
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isProcessAlive } from "../../server/src/shared/process-alive.js";

describe("isProcessAlive", () => {
  it("says yes for this process and no for one that has ended", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const ended = spawnSync(process.execPath, ["-e", ""]).pid!;
    expect(isProcessAlive(ended)).toBe(false);
  });

  it.each([0, -1, -process.pid, 1.5, Number.NaN])("says no for %s, which names no one process", (pid) => {
    expect(isProcessAlive(pid)).toBe(false);
  });
});
