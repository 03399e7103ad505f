// The V8 code cache beside the bundle (bin/load-bundle.js), through real processes:
// `node bin/lockstep.js read` on a copy of the installed package in a temporary
// directory, so the build's own cache is left alone. Needs `npm run build`.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/workspace-fixture.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLE = path.join(REPO, "dist/bundle/lockstep.cjs");
const isRoot = process.getuid?.() === 0;
const isWindows = process.platform === "win32";

beforeAll(() => {
  if (!existsSync(BUNDLE))
    throw new Error(`${BUNDLE} is missing: run \`npm run build\` before the CLI tests.`);
});

interface Install {
  bin: string;
  bundleDir: string;
  cache: string;
  workspace: string;
}

/** bin/ and the bundle (no cache) as npm installs them, and a workspace holding hello.txt. */
function install(): Install {
  const root = tempDir("lockstep-code-cache-");
  const bundleDir = path.join(root, "dist", "bundle");
  mkdirSync(path.join(root, "bin"));
  mkdirSync(bundleDir, { recursive: true });
  for (const file of ["lockstep.js", "load-bundle.js"])
    copyFileSync(path.join(REPO, "bin", file), path.join(root, "bin", file));
  copyFileSync(BUNDLE, path.join(bundleDir, "lockstep.cjs"));
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ type: "module" }));
  const workspace = path.join(root, "workspace");
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, "hello.txt"), "hello\n");
  return {
    bin: path.join(root, "bin", "lockstep.js"),
    bundleDir,
    cache: path.join(bundleDir, "lockstep.cjs.cache"),
    workspace,
  };
}

/** `lockstep read hello.txt`, which must work whatever the cache holds. */
function read(at: Install, codeCache?: "off" | "write"): void {
  const env = { ...process.env };
  delete env["LOCKSTEP_CODE_CACHE"];
  if (codeCache) env["LOCKSTEP_CODE_CACHE"] = codeCache;
  const run = spawnSync(process.execPath, [at.bin, "read", "hello.txt", "--root", at.workspace], {
    encoding: "utf8",
    env,
    timeout: 15_000,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, data: { content: "hello\n" } });
}

/** The cache file's inode: a rewrite (temporary file, then rename) gives it a new one. */
const inode = (file: string): number => statSync(file).ino;

/** What is in the bundle's folder besides the bundle: the cache and any leftover. */
const beside = (at: Install): string[] => readdirSync(at.bundleDir).filter((f) => f !== "lockstep.cjs");

describe("the code cache beside the bundle", () => {
  it("is written by a run that finds none, and the next run uses it as it is", () => {
    const at = install();
    read(at);
    expect(beside(at)).toEqual(["lockstep.cjs.cache"]);
    const written = inode(at.cache);
    read(at);
    expect(inode(at.cache)).toBe(written);
  });

  const damaged: [string, (valid: Buffer) => Buffer][] = [
    ["random bytes", () => randomBytes(64 * 1024)],
    ["the first half of a valid cache", (valid) => valid.subarray(0, valid.length >> 1)],
    [
      "one byte of the V8 data changed, which V8 does not check",
      (valid) => {
        const bytes = Buffer.from(valid);
        const middle = bytes.length >> 1;
        bytes[middle] = bytes[middle]! ^ 0xff;
        return bytes;
      },
    ],
  ];
  it.each(damaged)("holding %s is ignored and replaced", (_, damage) => {
    const at = install();
    read(at);
    const bad = damage(readFileSync(at.cache));
    writeFileSync(at.cache, bad);
    read(at);
    expect(readFileSync(at.cache).equals(bad)).toBe(false);
    const replaced = inode(at.cache);
    read(at);
    expect(inode(at.cache)).toBe(replaced);
  });

  it("is not written with LOCKSTEP_CODE_CACHE=off", () => {
    const at = install();
    read(at, "off");
    expect(beside(at)).toEqual([]);
  });

  it.skipIf(isWindows)("is not read with LOCKSTEP_CODE_CACHE=off", () => {
    const at = install();
    // Opening a FIFO for reading waits for a writer: the run ending shows nothing read it.
    expect(spawnSync("mkfifo", [at.cache]).status).toBe(0);
    read(at, "off");
    expect(statSync(at.cache).isFIFO()).toBe(true);
  });

  it("is rewritten with LOCKSTEP_CODE_CACHE=write even when it was valid", () => {
    const at = install();
    read(at);
    const first = inode(at.cache);
    read(at, "write");
    expect(inode(at.cache)).not.toBe(first);
    expect(beside(at)).toEqual(["lockstep.cjs.cache"]);
  });

  it("is not written for a bundle replaced while the run went on", async () => {
    const at = install();
    const server = spawn(process.execPath, [at.bin, "--stdio"], {
      cwd: at.workspace,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => server.once("exit", resolve));
    // Once it answers, the bundle is loaded; then it is replaced, as a rebuild or an update does.
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { processId: null, rootUri: null, capabilities: {} },
    });
    const answered = new Promise((resolve) => server.stdout.once("data", resolve));
    server.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await answered;
    appendFileSync(path.join(at.bundleDir, "lockstep.cjs"), "\n// rebuilt\n");
    server.stdin.end();
    await exited;
    expect(beside(at)).toEqual([]);
    read(at);
    expect(beside(at)).toEqual(["lockstep.cjs.cache"]);
  });

  it("removes what a writer killed mid-write left behind, and nothing of a live one", () => {
    const at = install();
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const abandoned = path.join(at.bundleDir, `lockstep.cjs.cache.${dead.stdout}.tmp`);
    const inUse = path.join(at.bundleDir, `lockstep.cjs.cache.${process.pid}.tmp`);
    writeFileSync(abandoned, "half a cache");
    writeFileSync(inUse, "being written");
    read(at);
    expect(beside(at).sort()).toEqual(["lockstep.cjs.cache", path.basename(inUse)]);
  });

  it.skipIf(isRoot || isWindows)(
    "cannot be written in a read-only install, and the run works without it",
    () => {
      const at = install();
      chmodSync(at.bundleDir, 0o555);
      try {
        read(at);
        read(at);
        expect(beside(at)).toEqual([]);
      } finally {
        chmodSync(at.bundleDir, 0o755);
      }
    },
  );
});

it("bin/lockstep.js says how to build when the bundle is missing", () => {
  const at = install();
  rmSync(path.join(at.bundleDir, "lockstep.cjs"));
  const run = spawnSync(process.execPath, [at.bin, "--stdio"], {
    cwd: at.workspace,
    encoding: "utf8",
    input: "",
    timeout: 15_000,
  });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain("run `npm run build`");
});
