// A scripted ACP editor for tests: `lockstep acp` spawned as a process, spoken to
// through the SDK's client side. It holds unsaved buffers (path → text) that a
// test may change at any read, answers permission requests as told, and keeps
// every update, read, write and permission request it saw.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  client,
  methods,
  ndJsonStream,
  RequestError,
  type ClientConnection,
  type RequestPermissionRequest,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { withTerminals, type TerminalLog } from "./client-terminals.js";

/** Files to create: root-relative path → text. (Not workspace-fixture's: this file also serves the bench, outside vitest.) */
export type FileTree = Record<string, string>;

async function writeTree(dir: string, tree: FileTree): Promise<void> {
  for (const [rel, content] of Object.entries(tree)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), content);
  }
}

export const BIN = path.resolve("bin/lockstep.js");

export interface EditorOptions {
  /** Which fs methods the editor offers (none: the agent uses the disk). */
  fs?: { read: boolean; write: boolean };
  /** The replay script the model plays; without one, the settings (env) name the model. */
  turns?: unknown[];
  /** Extra arguments of `lockstep acp`. */
  args?: string[];
  env?: Record<string, string>;
  /** The answer to each permission request: an optionId, "cancelled", or "error" (the client answers -32601). */
  permission?: (request: RequestPermissionRequest) => string | Promise<string>;
  files?: FileTree;
  /** Awaited before each fs/read_text_file and fs/write_text_file is answered (to hold one open). */
  beforeRead?: (file: string) => Promise<void>;
  beforeWrite?: (file: string) => Promise<void>;
  /** The client refuses every fs/write_text_file with this message. */
  refuseWrites?: string;
  /** An existing project directory to use (kept on close), e.g. the one an earlier editor used. */
  root?: string;
  /** Where the session store lives (kept on close); a fresh directory when absent. */
  stateDir?: string;
  /** The editor offers `terminal` and runs terminal/* for real (client-terminals.ts). */
  terminal?: boolean;
}

export interface ScriptedEditor {
  root: string;
  child: ChildProcess;
  conn: ClientConnection;
  /** Unsaved buffers by absolute path: reads see them before the disk; writes land in them. */
  buffers: Map<string, string>;
  /** Called at each fs/read_text_file, before it is answered (to change a buffer between reads). */
  onRead: (file: string, count: number) => void;
  reads: string[];
  writes: { path: string; content: string }[];
  permissions: RequestPermissionRequest[];
  updates: SessionNotification[];
  /** Every message lockstep wrote, parsed, in the order it wrote them (the SDK may hand a response over before an earlier notification). */
  wire: Record<string, unknown>[];
  /** The terminal/* calls lockstep made, and the processes they started. */
  terminals: TerminalLog;
  /** The length of each line lockstep wrote, in the order written (a default Python SDK reader stops at 64 KB). */
  lineLengths: number[];
  stderr: () => string;
  /** Resolves at the first update that passes `test`. */
  waitForUpdate(test: (n: SessionNotification) => boolean, timeoutMs?: number): Promise<SessionNotification>;
  newSession(extra?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

const live = new Set<ScriptedEditor>();

export async function closeAll(): Promise<void> {
  await Promise.all([...live].map((e) => e.close()));
}

export async function startEditor(options: EditorOptions = {}): Promise<ScriptedEditor> {
  const root = options.root ?? realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-")));
  await writeTree(root, options.files ?? {});
  const scriptDir = mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-script-"));
  const script = path.join(scriptDir, "script.json");
  writeFileSync(script, JSON.stringify({ turns: options.turns ?? [] }));
  const replay = options.turns === undefined ? [] : ["--replay", script];
  const child = spawn(process.execPath, [BIN, "acp", ...replay, ...(options.args ?? [])], {
    cwd: root,
    // The user's own settings and stored sessions stay out of tests.
    env: {
      ...process.env,
      XDG_CONFIG_HOME: scriptDir,
      XDG_STATE_HOME: options.stateDir ?? scriptDir,
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const wire: Record<string, unknown>[] = [];
  const lineLengths: number[] = [];
  let partial = "";
  child.stdout!.on("data", (d: Buffer) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      lineLengths.push(Buffer.byteLength(line) + 1);
      wire.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const buffers = new Map<string, string>();
  const reads: string[] = [];
  const writes: { path: string; content: string }[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const updates: SessionNotification[] = [];
  const waiters: { test: (n: SessionNotification) => boolean; resolve: (n: SessionNotification) => void }[] =
    [];
  const editor = { onRead: (): void => undefined } as unknown as ScriptedEditor;

  const terminals: TerminalLog = { calls: [], pids: [] };
  const base = client({ name: "scripted-editor" })
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      reads.push(params.path);
      editor.onRead(params.path, reads.length);
      await options.beforeRead?.(params.path);
      const held = buffers.get(params.path);
      if (held !== undefined) return { content: held };
      try {
        return { content: await fs.readFile(params.path, "utf8") };
      } catch {
        throw RequestError.resourceNotFound(params.path);
      }
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      await options.beforeWrite?.(params.path);
      if (options.refuseWrites !== undefined)
        throw RequestError.internalError(undefined, options.refuseWrites);
      writes.push({ path: params.path, content: params.content });
      buffers.set(params.path, params.content);
      return {};
    })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      const answer = (await options.permission?.(params)) ?? "allow_once";
      if (answer === "error") throw RequestError.methodNotFound(methods.client.session.requestPermission);
      return answer === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: answer } };
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const w of [...waiters]) {
        if (w.test(params)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(params);
        }
      }
    });
  const app = options.terminal === true ? withTerminals(base, terminals) : base;
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!),
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const conn = app.connect(stream);
  const fsCaps = options.fs ?? { read: true, write: true };
  await conn.agent.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: fsCaps.read, writeTextFile: fsCaps.write },
      ...(options.terminal === true ? { terminal: true } : {}),
    },
    clientInfo: { name: "scripted-editor", version: "1" },
  });

  Object.assign(editor, {
    root,
    child,
    conn,
    buffers,
    reads,
    writes,
    permissions,
    updates,
    wire,
    lineLengths,
    terminals,
    stderr: () => stderr,
    waitForUpdate: (test: (n: SessionNotification) => boolean, timeoutMs = 20_000) => {
      const seen = updates.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise<SessionNotification>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no such update within ${timeoutMs} ms; got ${JSON.stringify(updates.map((u) => u.update.sessionUpdate))}\n${stderr}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({ test, resolve: (n) => (clearTimeout(timer), resolve(n)) });
      });
    },
    newSession: async (extra: Record<string, unknown> = {}) =>
      (await conn.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [], ...extra }))
        .sessionId,
    close: async () => {
      live.delete(editor);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill();
        await exited;
      }
      if (options.root === undefined) rmSync(root, { recursive: true, force: true });
      rmSync(scriptDir, { recursive: true, force: true });
    },
  });
  live.add(editor);
  return editor;
}

/** The text of every agent_message_chunk, joined. */
export function messageText(updates: SessionNotification[]): string {
  return updates
    .map((u) =>
      u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text"
        ? u.update.content.text
        : "",
    )
    .join("");
}

/** An update's content items as JSON text, for matching words in them. */
export function contentText(u: SessionNotification): string {
  return JSON.stringify((u.update as { content?: unknown }).content ?? null);
}

/** The model's `edit` of `file`, on the file's state as the model was given it (the replay fills the hash in). */
export const edit = (file: string, from: string, to: string) => ({
  name: "edit",
  args: { file_path: file, old_string: from, new_string: to, base_content_sha256: `{{sha256:${file}}}` },
});
