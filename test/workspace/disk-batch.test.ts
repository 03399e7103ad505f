// The journaled batch write: all files or none, and what the next run does with
// a journal a killed process left (staging: undone; committed: finished).
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recoverBatches, writeBatch } from "../../server/src/workspace/disk-batch.js";
import { tempDir } from "../support/workspace-fixture.js";

async function root(files: Record<string, string>): Promise<string> {
  const dir = await fs.realpath(tempDir("lockstep-batch-"));
  for (const [name, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fs.writeFile(path.join(dir, name), text);
  }
  return dir;
}

const read = (dir: string, name: string): Promise<string | undefined> => fs.readFile(path.join(dir, name), "utf8").catch(() => undefined);

/** The pid of a process that has exited: a journal under it belongs to nobody alive. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

describe("writeBatch", () => {
  it("writes, creates and deletes together", async () => {
    const dir = await root({ "a.txt": "a\n", "b/c.txt": "c\n" });
    const result = await writeBatch(dir, [
      { abs: path.join(dir, "a.txt"), before: "a\n", after: "A\n" },
      { abs: path.join(dir, "b/c.txt"), before: "c\n", after: null },
      { abs: path.join(dir, "new/d.txt"), before: null, after: "d\n" },
    ]);
    expect(result.ok).toBe(true);
    expect([await read(dir, "a.txt"), await read(dir, "b/c.txt"), await read(dir, "new/d.txt")]).toEqual(["A\n", undefined, "d\n"]);
    expect((await fs.readdir(dir)).filter((n) => n.includes("lockstep-batch"))).toEqual([]);
  });

  it("writes nothing when one file is not its base", async () => {
    const dir = await root({ "a.txt": "a\n", "b.txt": "changed\n" });
    const result = await writeBatch(dir, [
      { abs: path.join(dir, "a.txt"), before: "a\n", after: "A\n" },
      { abs: path.join(dir, "b.txt"), before: "b\n", after: "B\n" },
    ]);
    expect(!result.ok && result.error.code).toBe("state_mismatch");
    expect([await read(dir, "a.txt"), await read(dir, "b.txt")]).toEqual(["a\n", "changed\n"]);
  });
});

describe("recoverBatches", () => {
  it("finishes a committed journal of a dead process: the renames not done yet, the deletes", async () => {
    const dir = await root({ "a.txt": "A\n", "b.txt": "b\n", "gone.txt": "g\n", ".b.txt.1-00000000.lockstep-batch": "B\n" });
    const pid = deadPid();
    // a.txt was renamed before the kill; b.txt's rename and the delete were not.
    const entries = [
      { target: path.join(dir, "a.txt"), temp: path.join(dir, ".a.txt.1-11111111.lockstep-batch") },
      { target: path.join(dir, "b.txt"), temp: path.join(dir, ".b.txt.1-00000000.lockstep-batch") },
      { target: path.join(dir, "gone.txt"), temp: null },
    ];
    await fs.writeFile(path.join(dir, `.lockstep-batch.${pid}-abcdef01.json`), JSON.stringify({ version: 1, state: "committed", entries }));
    expect(await recoverBatches(dir)).toBe(1);
    expect([await read(dir, "a.txt"), await read(dir, "b.txt"), await read(dir, "gone.txt")]).toEqual(["A\n", "B\n", undefined]);
    expect((await fs.readdir(dir)).filter((n) => n.includes("lockstep-batch"))).toEqual([]);
  });

  it("undoes a staging journal: its temporary files go, every file stays", async () => {
    const dir = await root({ "a.txt": "a\n", ".a.txt.1-00000000.lockstep-batch": "A\n" });
    const pid = deadPid();
    const entries = [{ target: path.join(dir, "a.txt"), temp: path.join(dir, ".a.txt.1-00000000.lockstep-batch") }];
    await fs.writeFile(path.join(dir, `.lockstep-batch.${pid}-abcdef02.json`), JSON.stringify({ version: 1, state: "staging", entries }));
    await fs.writeFile(path.join(dir, `.lockstep-batch.${pid}-abcdef03.json.tmp`), JSON.stringify({ version: 1, state: "committed", entries }));
    await recoverBatches(dir);
    expect(await read(dir, "a.txt")).toBe("a\n");
    expect((await fs.readdir(dir)).filter((n) => n.includes("lockstep-batch"))).toEqual([]);
  });

  it("leaves a live process's journal alone", async () => {
    const dir = await root({ "a.txt": "a\n" });
    const journal = `.lockstep-batch.${process.pid}-abcdef04.json`;
    await fs.writeFile(path.join(dir, journal), JSON.stringify({ version: 1, state: "committed", entries: [] }));
    expect(await recoverBatches(dir)).toBe(0);
    expect(await fs.readdir(dir)).toContain(journal);
  });
});
