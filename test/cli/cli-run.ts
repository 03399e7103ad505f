// What the CLI tests share: running `node bin/lockstep.js` as a user does (a real
// process in a temporary directory, one JSON envelope on stdout) and the
// greet.py fixture with the diffs that fix it or miss it.
import { spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { beforeAll } from "vitest";
import { lines, tempDir, writeTree, type FileTree } from "../support/workspace-fixture.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(REPO, "bin/lockstep.js");
const BUILT = path.join(REPO, "dist/server/src/cli/main.js");

/** Fails the file's tests early, with the command to run, when the build is missing (call at the top of a test file). */
export function requireBuild(): void {
  beforeAll(() => {
    if (!existsSync(BUILT))
      throw new Error(`${BUILT} is missing: run \`npx tsc -p tsconfig.build.json\` before the CLI tests.`);
  });
}

export interface Envelope {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; suggestions: string[] };
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The one JSON line on stdout. */
  envelope: Envelope;
}

type Stdin = string | (() => AsyncIterable<Buffer>);

/** Runs `node bin/lockstep.js ...args`; fails the test unless stdout is exactly one JSON line. */
export async function lockstep(args: string[], options: { cwd: string; stdin?: Stdin }): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
  // The command may stop reading early (a refusal); a broken pipe is then expected.
  child.stdin.on("error", () => undefined);
  const stdin = options.stdin;
  if (typeof stdin === "function") await pipeline(Readable.from(stdin()), child.stdin).catch(() => undefined);
  else child.stdin.end(stdin ?? "");
  const status = await closed;

  const stdout = Buffer.concat(out).toString("utf8");
  const stderr = Buffer.concat(err).toString("utf8");
  const linesOut = stdout.split("\n");
  if (linesOut.length !== 2 || linesOut[1] !== "") {
    throw new Error(
      `stdout is not exactly one line (exit ${status}):\n${stdout.slice(0, 2000)}\nstderr:\n${stderr.slice(0, 2000)}`,
    );
  }
  return { status, stdout, stderr, envelope: JSON.parse(linesOut[0]!) as Envelope };
}

/** A workspace directory with `tree` in it. */
export async function workspace(tree: FileTree): Promise<string> {
  const root = await fs.realpath(tempDir("lockstep-cli-"));
  await writeTree(root, tree);
  return root;
}

export const GREETING = lines(
  "#!/usr/bin/env python3",
  "import sys",
  "",
  "",
  "def greet(name):",
  "    print('Hello, ' + name)",
  "",
  "",
  "if __name__ == '__main__':",
  "    greet(sys.argv[1])",
);
export const GREETING_FIXED = GREETING.replace("print('Hello, ' + name)", "print(f'Hello, {name}!')");
export const FIX_DIFF = lines(
  "--- a/greet.py",
  "+++ b/greet.py",
  "@@ -5,2 +5,2 @@",
  " def greet(name):",
  "-    print('Hello, ' + name)",
  "+    print(f'Hello, {name}!')",
);
/** Context that is nowhere in greet.py. */
export const STRAY_DIFF = lines(
  "@@ -5,2 +5,2 @@",
  " def welcome(name):",
  "-    print('Hi ' + name)",
  "+    print(f'Hi {name}')",
);
