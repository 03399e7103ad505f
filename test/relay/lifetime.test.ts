// No wrapped server outlives lockstep: whatever ends lockstep (SIGTERM, SIGHUP,
// SIGINT, the end of its input, SIGKILL), before and after initialize, with no
// companion, the child is gone with it, and so is a process the child started.
// The child here ignores the end of its input and every signal it can.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RawEditor, killRawEditors } from "./raw-editor.js";
import { eventually, pidsIn } from "./wrap-support.js";

afterEach(killRawEditors);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");

/** Whether a process runs (a zombie, dead but not yet reaped by whoever adopted it, does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The child's pid and its helper's, once the child has written both. */
async function family(editor: RawEditor): Promise<number[]> {
  let pids: number[] = [];
  await eventually(
    () => (pids = pidsIn(path.join(editor.root, "child.pid"))).length === 2 && pids.every(running),
    "the child and its helper to start",
  );
  return pids;
}

const ENDS = [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
  ["SIGINT", 130],
  ["the end of its input", 1],
  ["SIGKILL", "SIGKILL"],
] as const;

describe("wrap mode: no wrapped server outlives lockstep", () => {
  for (const stage of ["before initialize", "after initialize"] as const) {
    for (const [end, code] of ENDS) {
      it(`ended by ${end}, ${stage}`, async () => {
        const editor = await RawEditor.start({ "a.ts": "x\n" }, [
          "--wrap",
          "--",
          SCRIPTED,
          "deaf",
          "child.pid",
        ]);
        const pids = await family(editor);
        if (stage === "after initialize") await editor.initialize();
        if (end === "the end of its input") editor.process.stdin.end();
        else editor.kill(end);
        expect(await editor.exited).toBe(code);
        await eventually(
          () => !pids.some(running),
          `the child ${pids[0]} and its helper ${pids[1]} to end`,
          10_000,
        );
      }, 30_000);
    }
  }
});
