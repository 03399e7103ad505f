// Shared by the wrap-mode tests: the real typescript-language-server from npm
// as the wrapped child, and ways to watch what the editor is sent and which
// processes run under lockstep.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { launch, type EditorStyle, type StartOptions, type TestClient } from "../support/lsp-client.js";
import { eventually, sleep } from "../support/poll.js";

export const TSLS = path.resolve("node_modules/.bin/typescript-language-server");
export const WRAP = ["--wrap", "--", TSLS, "--stdio"];
export const TS_FILES = {
  "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
  "src/a.ts": "export const count: number = 1;\n",
};

export function launchWrapped(
  lockstep: Record<string, unknown> = { approval: "auto" },
  style: EditorStyle = "helix",
  files: Record<string, string> = TS_FILES,
  more: Partial<StartOptions> = {},
): Promise<TestClient> {
  return launch(files, { ...more, style, args: WRAP, initializationOptions: { lockstep } });
}

/** The first list the editor was sent for a document (from notification index `from`) that satisfies `until`. */
export async function diagnosticsOf(
  client: TestClient,
  rel: string,
  until: (d: Diagnostic[]) => boolean,
  from = 0,
): Promise<Diagnostic[]> {
  const uri = client.uri(rel);
  const note = await client.waitForNotification(
    "textDocument/publishDiagnostics",
    (p) => (p as PublishDiagnosticsParams).uri === uri && until((p as PublishDiagnosticsParams).diagnostics),
    20_000,
    from,
  );
  return (note.params as PublishDiagnosticsParams).diagnostics;
}

/** Every running process's children, by parent pid, from one `ps`. */
function processTree(): Map<number, number[]> {
  let out = "";
  try {
    out = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  } catch {
    return new Map();
  }
  const children = new Map<number, number[]>();
  for (const line of out.trim().split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  return children;
}

/** Every process below `pid` (children, their children, ...). */
export function descendants(pid: number): number[] {
  const children = processTree();
  const found: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The wrapped server's own process: lockstep's direct child. */
export async function childPid(client: TestClient): Promise<number> {
  let direct: number[] = [];
  await eventually(
    () => (direct = processTree().get(client.pid) ?? []).length > 0,
    "lockstep's child process",
  );
  return direct[0]!;
}

/**
 * The pids a scripted child wrote to `file` (one a line), once there is a whole one: never 0 or NaN, which
 * process.kill would take for this whole process group.
 */
export function pidsIn(file: string): number[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const pids = text.endsWith("\n") ? text.trim().split("\n").map(Number) : [];
  return pids.every((p) => Number.isInteger(p) && p > 0) ? pids : [];
}

/** The first pid in `file`, waiting until it is there. */
export async function pidIn(file: string): Promise<number> {
  let pid: number | undefined;
  await eventually(() => (pid = pidsIn(file)[0]) !== undefined, `a pid in ${file}`);
  return pid!;
}

export { eventually, sleep };
