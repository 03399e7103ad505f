import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  MAX_FILE_BYTES,
  listDirectory,
  readTextFile,
  writeTextFileAtomic,
} from "../../server/src/workspace/disk.js";

// Root ignores permission bits, so the tests that rely on them only run as a normal user.
const isRoot = process.getuid?.() === 0;
const isWindows = process.platform === "win32";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "lockstep-disk-"));
});
afterEach(async () => {
  await fs.chmod(dir, 0o755).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const at = (name: string) => path.join(dir, name);

describe("readTextFile", () => {
  it.each<[name: string, bytes: Buffer, content: string]>([
    ["empty", Buffer.alloc(0), ""],
    ["CRLF kept", Buffer.from("one\r\ntwo\r\n"), "one\r\ntwo\r\n"],
    ["no final newline", Buffer.from("last"), "last"],
    ["BOM kept", Buffer.from("\uFEFFhello\n"), "\uFEFFhello\n"],
    ["multi-byte", Buffer.from("naïve → 日本\n"), "naïve → 日本\n"],
    ["NUL after the first 8 KB", Buffer.from(`${"a".repeat(9000)}\0`), `${"a".repeat(9000)}\0`],
  ])("reads %s exactly", async (_name, bytes, content) => {
    await fs.writeFile(at("f.txt"), bytes);
    expect(await readTextFile(at("f.txt"))).toEqual({
      ok: true,
      value: { content, mode: expect.any(Number) as number },
    });
  });

  it.skipIf(isWindows)("reports the permission bits", async () => {
    await fs.writeFile(at("f.sh"), "#!/bin/sh\n");
    await fs.chmod(at("f.sh"), 0o751);
    const result = await readTextFile(at("f.sh"));
    expect(result.ok && result.value.mode).toBe(0o751);
  });

  it.each<[name: string, bytes: Buffer, message: RegExp]>([
    ["a NUL byte", Buffer.from("text\0more"), /binary file \(it has a NUL byte in its first 8 KB\)/],
    ["invalid UTF-8", Buffer.from([0x61, 0xff, 0x62]), /not valid UTF-8/],
    ["Latin-1 text", Buffer.from("caf\xe9\n", "latin1"), /not valid UTF-8/],
    ["a truncated sequence", Buffer.from([0x61, 0xe2, 0x82]), /not valid UTF-8/],
  ])("refuses %s as binary_file", async (_name, bytes, message) => {
    await fs.writeFile(at("b.bin"), bytes);
    const result = await readTextFile(at("b.bin"));
    expect(result).toMatchObject({ ok: false, error: { code: "binary_file", message } });
  });

  it("refuses a file over the limit, naming the size and the limit, without reading it", async () => {
    const handle = await fs.open(at("huge.log"), "w");
    await handle.truncate(MAX_FILE_BYTES + 1); // sparse: no 64 MiB written
    await handle.close();
    const result = await readTextFile(at("huge.log"));
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(!result.ok && result.error.message).toMatch(
      /67108865 bytes.*over the 64 MiB \(67108864 bytes\) limit/,
    );
  });

  it("reports a missing file as not_found", async () => {
    expect(await readTextFile(at("nope.txt"))).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("refuses a directory with a pointer to list_files", async () => {
    await fs.mkdir(at("sub"));
    const result = await readTextFile(at("sub"));
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: /is a directory.*list_files/ },
    });
  });

  it.skipIf(isWindows)("refuses a named pipe at once instead of waiting for a writer", async () => {
    execFileSync("mkfifo", [at("pipe")]);
    const result = await readTextFile(at("pipe"));
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: /not a regular file/ },
    });
  });

  it.skipIf(isRoot || isWindows)("reports an unreadable file as permission_denied", async () => {
    await fs.writeFile(at("locked.txt"), "x");
    await fs.chmod(at("locked.txt"), 0o000);
    expect(await readTextFile(at("locked.txt"))).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
  });
});

describe("writeTextFileAtomic", () => {
  it("creates missing parent directories and writes the text byte for byte", async () => {
    const text = "line one\r\nnaïve → 日本\n";
    const target = at("a/b/c/new.ts");
    expect(await writeTextFileAtomic(target, text)).toEqual({ ok: true, value: undefined });
    expect(await fs.readFile(target, "utf8")).toBe(text);
  });

  it.skipIf(isWindows)("keeps the existing file's mode", async () => {
    await fs.writeFile(at("run.sh"), "old\n");
    await fs.chmod(at("run.sh"), 0o755);
    expect((await writeTextFileAtomic(at("run.sh"), "new\n")).ok).toBe(true);
    expect((await fs.stat(at("run.sh"))).mode & 0o7777).toBe(0o755);
    expect(await fs.readFile(at("run.sh"), "utf8")).toBe("new\n");
  });

  it.skipIf(isWindows)("uses options.mode when given, exactly (no umask)", async () => {
    expect((await writeTextFileAtomic(at("key.txt"), "k", { mode: 0o666 })).ok).toBe(true);
    expect((await fs.stat(at("key.txt"))).mode & 0o7777).toBe(0o666);
  });

  it("replaces the file rather than writing into it, and leaves no temporary file", async () => {
    await fs.writeFile(at("f.txt"), "before\n");
    await fs.link(at("f.txt"), at("hard-link.txt")); // shares the old inode
    expect((await writeTextFileAtomic(at("f.txt"), "after\n")).ok).toBe(true);
    expect(await fs.readFile(at("f.txt"), "utf8")).toBe("after\n");
    expect(await fs.readFile(at("hard-link.txt"), "utf8")).toBe("before\n");
    expect((await fs.readdir(dir)).sort()).toEqual(["f.txt", "hard-link.txt"]);
  });

  it("refuses a directory as target and leaves it as it was", async () => {
    await fs.mkdir(at("sub"));
    await fs.writeFile(at("sub/inner.txt"), "inner\n");
    const result = await writeTextFileAtomic(at("sub"), "text");
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: /is a directory/ },
    });
    expect(await fs.readdir(at("sub"))).toEqual(["inner.txt"]);
    expect(await fs.readdir(dir)).toEqual(["sub"]);
  });

  it("refuses a path below a file and leaves the file as it was", async () => {
    await fs.writeFile(at("plain.txt"), "plain\n");
    const result = await writeTextFileAtomic(at("plain.txt/child.txt"), "text");
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_argument", message: /is a file/ } });
    expect(await fs.readFile(at("plain.txt"), "utf8")).toBe("plain\n");
  });

  it.skipIf(isRoot || isWindows)(
    "fails in a read-only directory, leaving the original and no temporary file",
    async () => {
      await fs.writeFile(at("f.txt"), "original\n");
      await fs.chmod(dir, 0o555);
      const result = await writeTextFileAtomic(at("f.txt"), "changed\n");
      expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
      expect(await fs.readFile(at("f.txt"), "utf8")).toBe("original\n");
      expect(await fs.readdir(dir)).toEqual(["f.txt"]);
    },
  );

  it.skipIf(isRoot || isWindows)("refuses to replace a read-only file", async () => {
    await fs.writeFile(at("ro.txt"), "original\n");
    await fs.chmod(at("ro.txt"), 0o444);
    expect(await writeTextFileAtomic(at("ro.txt"), "changed\n")).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    expect(await fs.readFile(at("ro.txt"), "utf8")).toBe("original\n");
  });
});

describe("listDirectory", () => {
  it("lists directories first, then files and links, each group by name", async () => {
    for (const d of ["zeta", "Alpha"]) await fs.mkdir(at(d));
    for (const f of ["b.ts", "a.ts", "C.md"]) await fs.writeFile(at(f), "");
    await fs.symlink("a.ts", at("link.ts"));
    expect(await listDirectory(dir)).toEqual({
      ok: true,
      value: [
        { name: "Alpha", type: "directory" },
        { name: "zeta", type: "directory" },
        { name: "C.md", type: "file" },
        { name: "a.ts", type: "file" },
        { name: "b.ts", type: "file" },
        { name: "link.ts", type: "symlink" },
      ],
    });
  });

  it.each<[name: string, code: string, message: RegExp]>([
    ["missing", "not_found", /does not exist/],
    ["file.txt", "invalid_argument", /is a file/],
  ])("refuses %s with %s", async (name, code, message) => {
    await fs.writeFile(at("file.txt"), "");
    expect(await listDirectory(at(name))).toMatchObject({ ok: false, error: { code, message } });
  });
});

describe("writes that name their base", () => {
  it("land while the file holds the base, and are refused with state_mismatch once another writer changed it", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-disk-"));
    const file = path.join(dir, "a.txt");
    await fs.writeFile(file, "one\n");
    expect((await writeTextFileAtomic(file, "two\n", { base: "one\n" })).ok).toBe(true);
    const stale = await writeTextFileAtomic(file, "three\n", { base: "one\n" });
    expect(!stale.ok && stale.error.code).toBe("state_mismatch");
    expect(await fs.readFile(file, "utf8")).toBe("two\n");
    const created = await writeTextFileAtomic(path.join(dir, "new.txt"), "x", { base: null });
    expect(created.ok).toBe(true);
    const again = await writeTextFileAtomic(path.join(dir, "new.txt"), "y", { base: null });
    expect(!again.ok && again.error.code).toBe("state_mismatch");
    expect((await fs.readdir(dir)).sort()).toEqual(["a.txt", "new.txt"]);
  });

  it("takes over the lock of a writer that died (older than the stale time) and leaves no lock behind", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-disk-"));
    const file = path.join(dir, "a.txt");
    await fs.writeFile(file, "one\n");
    const lock = path.join(dir, ".a.txt.lockstep-lock");
    await fs.mkdir(lock);
    const past = new Date(Date.now() - 60_000);
    await fs.utimes(lock, past, past);
    expect((await writeTextFileAtomic(file, "two\n", { base: "one\n" })).ok).toBe(true);
    expect(await fs.readdir(dir)).toEqual(["a.txt"]);
  });

  it("removes the temporary files of writers that died, and keeps those of live ones", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-disk-"));
    const dead = path.join(dir, ".a.txt.2147483646-0badf00d.lockstep-tmp");
    const live = path.join(dir, `.a.txt.${process.ppid}-0badf00d.lockstep-tmp`);
    await fs.writeFile(dead, "half");
    await fs.writeFile(live, "busy");
    expect((await writeTextFileAtomic(path.join(dir, "a.txt"), "whole\n")).ok).toBe(true);
    expect((await fs.readdir(dir)).sort()).toEqual([path.basename(live), "a.txt"].sort());
  });
});

describe.runIf(process.platform === "linux")("a write pinned to its checked directory", () => {
  it("never lands outside while a symbolic link is swapped in and out for the directory", async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-swap-")));
    const root = path.join(base, "root");
    const sub = path.join(root, "sub");
    const aside = path.join(root, "sub.real");
    const outside = path.join(base, "outside");
    await fs.mkdir(sub, { recursive: true });
    await fs.mkdir(outside);
    // A second process swaps root/sub between the real directory and a link to `outside`, as fast as it can.
    const swapper = spawnSwapper(sub, aside, outside);
    const results: Awaited<ReturnType<typeof writeTextFileAtomic>>[] = [];
    try {
      // Once the swapping has begun, write for a while (bounded): each write is checked before it starts.
      for (let seen = false; !seen; await new Promise((r) => setTimeout(r, 5)))
        seen = (await fs.lstat(sub).catch(() => undefined))?.isSymbolicLink() ?? false;
      const file = path.join(sub, "target.txt"); // the real path the sandbox checked, before any swap
      // Plain writes, writes that take the cross-process lock (a lock directory beside the file),
      // and writes that create missing directories first: none may reach `outside`.
      // Until the race was met both ways (a loaded machine may run the swapper seldom), at most 20 s.
      const met = (): boolean => results.some((r) => !r.ok) && results.some((r) => r.ok);
      for (let i = 0, t0 = Date.now(); Date.now() - t0 < 20_000 && (Date.now() - t0 < 1500 || !met()); i++) {
        results.push(await writeTextFileAtomic(file, `write ${i}\n`, { pinned: true }));
        const now = await fs.readFile(file, "utf8").catch(() => null);
        results.push(await writeTextFileAtomic(file, `locked ${i}\n`, { pinned: true, base: now }));
        results.push(
          await writeTextFileAtomic(path.join(sub, `new-${i}`, "deeper", "made.txt"), "made\n", {
            pinned: true,
          }),
        );
      }
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((r) => swapper.once("exit", r));
    }
    expect(await fs.readdir(outside)).toEqual([]);
    // The race was met: some writes found the link and were refused, others landed inside.
    expect(results.some((r) => !r.ok)).toBe(true);
    expect(results.some((r) => r.ok)).toBe(true);
  }, 30_000);
});

function spawnSwapper(dir: string, aside: string, target: string): ChildProcess {
  const script = `
    const fs = require("node:fs");
    const [dir, aside, target] = process.argv.slice(1);
    for (;;) {
      // Each step alone, so the loop heals itself when a writer re-creates the directory meanwhile.
      try { fs.renameSync(dir, aside); } catch {}
      try { fs.symlinkSync(target, dir); } catch {}
      try { fs.rmSync(dir, { recursive: true, force: true }); } catch {}
      try { fs.renameSync(aside, dir); } catch {}
    }`;
  return spawn(process.execPath, ["-e", script, dir, aside, target], { stdio: "ignore" });
}
