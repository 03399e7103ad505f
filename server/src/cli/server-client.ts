// The terminal client's connection: it spawns the language server and talks LSP to it
// exactly as an editor would. It takes the WorkspaceEdits (disk-editor.ts), answers the
// approval prompts (questions.ts), shows the lockstep/stream notifications
// (stream-view.ts), and ends the server with shutdown and exit.
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Message,
  type MessageConnection,
  type MessageWriter,
} from "vscode-jsonrpc/node.js";
import type { ApplyWorkspaceEditParams, ShowMessageRequestParams } from "vscode-languageserver";
import type { StreamEvent } from "../agent/events.js";
import { askQuestion, readQuestion } from "./approval-question.js";
import { applyToDisk } from "./disk-editor.js";
import type { Io } from "./io.js";
import { packageRoot } from "./package-root.js";
import type { Prompter } from "./prompt.js";
import { askUser, offerUndo, type JobView } from "./questions.js";
import { eventView, paint } from "./stream-view.js";
import { terminalSafe } from "./terminal-text.js";

export interface AskOptions {
  root: string;
  prompt: string;
  yes: boolean;
  replay?: string;
  replayDelayMs?: number;
  /** The settings in force (lockstep's settings files, LOCKSTEP_* and flags), sent as initializationOptions. */
  settings?: Record<string, unknown>;
  /** Where the answers to the prompts come from (a terminal: one key; else one line each). */
  prompter?: Prompter;
  debug?: boolean;
  /** `--continue` or `--resume ID`: a stored session the server resumes before the prompt. */
  resume?: { latest: true } | { id: string };
  /** Called on each stream event before it is rendered (the demo uses it to edit a file mid-run). */
  onEvent?: (event: StreamEvent) => Promise<void>;
}

export interface AskResult {
  status: string;
  job: Record<string, unknown>;
  kept: "kept" | "undone" | "no-answer";
}

type Answer<T> = { ok: boolean; data?: T; error?: { message: string } };

function initializeParams(options: AskOptions): Record<string, unknown> {
  const root = pathToFileURL(options.root).href;
  return {
    processId: process.pid,
    // lockstep's own client: it asks about the folder's trust itself, before the server starts.
    clientInfo: { name: "lockstep" },
    rootUri: root,
    workspaceFolders: [{ uri: root, name: path.basename(options.root) }],
    capabilities: {
      workspace: {
        applyEdit: true,
        workspaceEdit: { documentChanges: true, resourceOperations: ["create", "delete"] },
      },
      window: { showMessage: { messageActionItem: { additionalPropertiesSupport: false } } },
      // The approval question comes as lockstep/approve, with each file's diff (approval-question.ts).
      // Commands and MCP calls too: the command line, the sandbox, the call's arguments (approval-details.ts).
      experimental: { lockstepApproval: true, lockstepApprovalKinds: ["command", "call"] },
    },
    initializationOptions: {
      ...options.settings,
      ...(options.replay ? { replay: options.replay, replayDelayMs: options.replayDelayMs ?? 0 } : {}),
    },
  };
}

/** Runs one agent request through a spawned server; resolves with the job's final status. */
export async function askThroughServer(options: AskOptions, io: Io): Promise<AskResult> {
  const bin = path.join(packageRoot(), "bin", "lockstep.js");
  const child = spawn(process.execPath, [bin, "--stdio", ...(options.debug ? ["--debug"] : [])], {
    cwd: options.root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  // The end of the server's stderr, to say why it died if it does; shown as it comes with --debug.
  let stderrTail = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (options.debug) process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
  });
  const conn: MessageConnection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    unfailingWriter(new StreamMessageWriter(child.stdin)),
  );
  let finish: (event: StreamEvent & { kind: "done" }) => void = () => undefined;
  const done = new Promise<StreamEvent & { kind: "done" }>((resolve) => (finish = resolve));
  let events = Promise.resolve();
  let thinking = false;
  // Files whose diff the question showed: written, they get one line, not the diff again.
  const shown = new Set<string>();
  conn.onRequest("workspace/applyEdit", (params: ApplyWorkspaceEditParams) =>
    applyToDisk(params, options.root, io, shown),
  );
  conn.onRequest("lockstep/approve", async (params: unknown) => {
    const answer = await askQuestion(
      params,
      {
        yes: options.yes,
        ...(options.prompter ? { prompter: options.prompter } : {}),
        ...(process.stdout.isTTY ? { rows: process.stdout.rows } : {}),
      },
      io,
    );
    if (answer?.decision === "apply" || answer?.decision === "always")
      for (const f of readQuestion(params)?.files ?? []) shown.add(f.file_path);
    return answer;
  });
  conn.onRequest("window/showMessageRequest", (params: ShowMessageRequestParams) =>
    askUser(params, options, io),
  );
  conn.onRequest("window/workDoneProgress/create", () => null);
  conn.onNotification("window/showMessage", (p: { message: string }) =>
    io.stderr(paint.dim(`[lockstep] ${terminalSafe(p.message)}\n`)),
  );
  conn.onNotification("lockstep/stream", (event: StreamEvent) => {
    // Events are handled one after another, in the order they came.
    events = events.then(async () => {
      await options.onEvent?.(event);
      // Thoughts stream dimmed, and end their line before the answer or a tool goes on.
      if (thinking && event.kind !== "thought") io.stdout("\n");
      thinking = event.kind === "thought";
      io.stdout(eventView(event));
      if (event.kind === "done") finish(event);
    });
  });
  conn.listen();
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  const execute = <T>(command: string, args: Record<string, unknown>): Promise<Answer<T>> =>
    conn.sendRequest("workspace/executeCommand", { command, arguments: [args] }) as Promise<Answer<T>>;
  // Every request races the server's exit: a request left pending for ever let this process end
  // with 0, silent.
  let stopping = false;
  const died = new Promise<never>((_, reject) => {
    child.once("exit", (code, signal) => {
      if (stopping) return;
      const tail = stderrTail.trim();
      const said = tail === "" ? "; it said nothing on stderr" : `; the end of its stderr:\n${tail}`;
      reject(
        new Error(`the language server exited (${signal ?? `code ${code}`}) before the run ended${said}`),
      );
    });
  });
  died.catch(() => undefined);
  try {
    return await Promise.race([converse(), died]);
  } finally {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      await conn.sendRequest("shutdown").catch(() => undefined);
      await conn.sendNotification("exit").catch(() => undefined);
    }
    conn.dispose();
    setTimeout(() => child.kill(), 1000).unref();
  }

  async function converse(): Promise<AskResult> {
    await conn.sendRequest("initialize", initializeParams(options));
    await conn.sendNotification("initialized", {});
    if (options.resume)
      await (await import("./sessions-commands.js")).resumeThroughServer(conn, options.resume, io);
    const started = await execute<{ job_id: string }>("lockstep.ask", { prompt: options.prompt });
    if (!started.ok || !started.data)
      throw new Error(started.error?.message ?? "the server did not start the job");
    const end = await Promise.race([done, exited.then(() => undefined)]);
    if (!end) throw new Error("the language server exited before the job finished");
    const job = await execute<Record<string, unknown>>("lockstep.job", { job_id: started.data.job_id });
    const asking = { ...options, autoApproval: options.settings?.["approval"] === "auto" };
    const kept = await offerUndo(conn, started.data.job_id, (job.data ?? {}) as JobView, asking, io);
    return { status: end.status, job: job.data ?? {}, kept };
  }
}

/**
 * A writer whose write never rejects. A request written to a server that has just died fails with
 * EPIPE, and vscode-jsonrpc 8.2 rethrows that inside a promise nobody awaits: an unhandled
 * rejection that ended `lockstep ask` with a stack trace. The server's exit is what is reported
 * (every request races it), so a failed write is left pending instead.
 */
function unfailingWriter(writer: MessageWriter): MessageWriter {
  return {
    write: (message: Message) => writer.write(message).catch(() => undefined),
    onError: writer.onError,
    onClose: writer.onClose,
    end: () => writer.end(),
    dispose: () => writer.dispose(),
  };
}
