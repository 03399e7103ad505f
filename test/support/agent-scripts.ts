// Scripted Gemini turns for the agent's end-to-end tests, and the small tools to
// read back what the fake endpoint received. The turns are FakeTurns of
// fake-gemini.ts; `startGate` puts a loopback relay in front of the fake so a
// test can hold a request until the user has acted, and time each turn;
// `startAgent` spawns the server (test/support/lsp-client.ts) wired to them and
// cleans everything up when the test ends.
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { MessageActionItem, ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { onTestFinished } from "vitest";
import { listenOnLoopback, startFakeGemini } from "./fake-gemini.js";
import type { FakeChunk, FakeGemini, FakeScript, FakeTurn, RecordedRequest } from "./fake-gemini.js";
import { createWorkspace, removeWorkspace, startServer, WAIT_MS } from "./lsp-client.js";
import type { EditorStyle, StartOptions, TestClient } from "./lsp-client.js";

/** The key every test server gets; long and unusual, so a leak is unmistakable. */
export const TEST_API_KEY = "e2e-KEY-7f3a9c1d5b2e8f4a6c0d-DO-NOT-LEAK";

/** A TypeScript file for the model to change: area() and perimeter(). */
export const GEOMETRY_TS = [
  "export function area(w: number, h: number): number {",
  "  return w * h;",
  "}",
  "",
  "export function perimeter(w: number, h: number): number {",
  "  return 2 * (w + h);",
  "}",
  "",
].join("\n");

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export interface Call {
  name: string;
  args?: Record<string, unknown>;
  id?: string;
}

/** One turn: text pieces (one chunk each) first, then every call, one chunk each; `hang` keeps the stream open. */
export function turn(options: { text?: string[]; calls?: Call[]; hang?: boolean }): FakeTurn {
  const chunks: FakeChunk[] = [
    ...(options.text ?? []).map((text): FakeChunk => ({ parts: [{ text }] })),
    ...(options.calls ?? []).map((functionCall): FakeChunk => ({ parts: [{ functionCall }] })),
  ];
  return options.hang === true ? { chunks, hang: true } : { chunks };
}

export const readCall = (file_path: string): Call => ({ name: "read_file", args: { file_path } });

export function patchCall(file_path: string, unified_diff: string, base_content_sha256: string): Call {
  return { name: "safe_patch", args: { file_path, unified_diff, base_content_sha256 } };
}

export function writeCall(file_path: string, content: string, base_content_sha256?: string): Call {
  return {
    name: "write_file",
    args: { file_path, content, ...(base_content_sha256 === undefined ? {} : { base_content_sha256 }) },
  };
}

/** A diff of `file_path` replacing one line, with the whole file as context (the tool places it by content). */
export function replaceLineDiff(file_path: string, before: string, oldLine: string, newLine: string): string {
  const lines = before.replace(/\n$/, "").split("\n");
  const at = lines.indexOf(oldLine);
  if (at < 0) throw new Error(`replaceLineDiff: ${JSON.stringify(oldLine)} is not a line of the file`);
  const body = lines.map((line, i) => (i === at ? `-${oldLine}\n+${newLine}` : ` ${line}`));
  return `--- a/${file_path}\n+++ b/${file_path}\n@@ -1,${lines.length} +1,${lines.length} @@\n${body.join("\n")}\n`;
}

// ---- reading the recorded requests ----

export type WirePart = Record<string, unknown>;
export interface WireContent {
  role?: string;
  parts?: WirePart[];
}

export function contentsOf(request: RecordedRequest | undefined): WireContent[] {
  if (request === undefined) throw new Error("no such request: the fake endpoint received fewer requests");
  return request.body.contents ?? [];
}

export const rolesOf = (request: RecordedRequest | undefined): (string | undefined)[] =>
  contentsOf(request).map((c) => c.role);

export interface WireFunctionResponse {
  id?: string;
  name: string;
  response: {
    ok: boolean;
    data?: Record<string, unknown>;
    error?: { code: string; message: string; suggestions?: string[] };
  };
}

/** The functionResponse parts of the last message of a request (the answers to the previous turn). */
export function lastResponses(request: RecordedRequest | undefined): WireFunctionResponse[] {
  const last = contentsOf(request).at(-1);
  return (last?.parts ?? []).map((part) => {
    const response = part["functionResponse"];
    if (response === undefined)
      throw new Error(`expected only functionResponse parts, got ${JSON.stringify(part)}`);
    return response as WireFunctionResponse;
  });
}

/** Every text of a request's first user message, joined. */
export function promptText(request: RecordedRequest | undefined): string {
  const first = contentsOf(request)[0];
  return (first?.parts ?? []).map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("");
}

// ---- a relay that can hold requests and times every turn ----

export interface TurnTiming {
  /** When the relay had received request i completely (ms, performance clock). */
  requestAt: number;
  /** When the last byte of answer i had been handed to the server's socket. */
  answeredAt?: number;
}

export interface Gate {
  baseUrl: string;
  timings: TurnTiming[];
  /** Request `index` (0-based) waits until `release` resolves before reaching the fake. */
  hold(index: number, release: Promise<void>): void;
  /** Resolves when request `index` has reached the relay. */
  arrived(index: number): Promise<void>;
  close(): Promise<void>;
}

export async function startGate(upstream: string): Promise<Gate> {
  const timings: TurnTiming[] = [];
  const holds = new Map<number, Promise<void>>();
  const waiters = new Map<number, (() => void)[]>();
  const target = new URL(upstream);

  const server = createServer((req, res) => {
    void relay(req, res).catch(() => res.destroy());
  });

  async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pieces: Buffer[] = [];
    for await (const piece of req) pieces.push(piece as Buffer);
    const index = timings.length;
    const timing: TurnTiming = { requestAt: performance.now() };
    timings.push(timing);
    for (const wake of waiters.get(index) ?? []) wake();
    waiters.delete(index);
    await holds.get(index);
    if (res.destroyed) return;
    const upstreamReq = httpRequest({
      host: target.hostname,
      port: target.port,
      method: req.method ?? "POST",
      path: req.url ?? "/",
      headers: req.headers,
    });
    res.on("close", () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    upstreamReq.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      answer.on("data", (data: Buffer) => res.write(data));
      answer.on("end", () => res.end(() => (timing.answeredAt = performance.now())));
      answer.on("error", () => res.destroy());
    });
    upstreamReq.on("error", () => res.destroy());
    upstreamReq.end(Buffer.concat(pieces));
  }

  return {
    baseUrl: await listenOnLoopback(server),
    timings,
    hold: (index, release) => holds.set(index, release),
    arrived: (index) =>
      index < timings.length
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.set(index, [...(waiters.get(index) ?? []), resolve])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A promise and the function that resolves it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// ---- a spawned server wired to a fake endpoint ----

export interface JobView {
  job_id: string;
  prompt: string;
  status: "running" | "done" | "failed" | "cancelled";
  text: string;
  tool_calls: { name: string; file_path?: string; ok: boolean; message: string }[];
  files_changed: string[];
  error?: { code: string; message: string };
}

export type StreamEvent =
  | { job_id: string; kind: "text"; text: string }
  | { job_id: string; kind: "tool_call"; tool: string; file_path?: string }
  | { job_id: string; kind: "tool_result"; tool: string; ok: boolean; message: string; file_path?: string }
  | { job_id: string; kind: "status"; status: string; message?: string }
  | { job_id: string; kind: "done"; status: string; text: string; message?: string };

export interface AgentRigOptions {
  files: Record<string, string>;
  /** The fake's script; omit for a server without an endpoint (replay, no key). */
  script?: FakeScript;
  style?: EditorStyle;
  initializationOptions?: Record<string, unknown>;
  showMessageRequest?: StartOptions["showMessageRequest"];
  approve?: StartOptions["approve"];
  args?: string[];
  /** Extra environment; the key and base URL are set unless `noKey`. */
  env?: Record<string, string>;
  /** Start without GEMINI_API_KEY / GOOGLE_API_KEY (set empty, which the server treats as unset). */
  noKey?: boolean;
  /** Put a relay (startGate) between the server and the fake. */
  gate?: boolean;
  /** Reuse this workspace (a second server on the same files); it is not removed by this rig. */
  root?: string;
  beforeApplyEdit?: StartOptions["beforeApplyEdit"];
}

export interface AgentRig {
  root: string;
  client: TestClient;
  fake?: FakeGemini;
  gate?: Gate;
  /** lockstep.ask; returns the job id (fails the test if the command is refused). */
  ask(prompt: string, extra?: Record<string, unknown>): Promise<string>;
  job(id: string): Promise<JobView>;
  /** Polls lockstep.job every 20 ms until the job is no longer running. */
  finished(id: string, timeoutMs?: number): Promise<JobView>;
  /** Every lockstep/stream event of this job received so far, in order. */
  events(id: string): StreamEvent[];
  /** Waits for a lockstep/stream event of this job. */
  waitForEvent(
    id: string,
    predicate: (event: StreamEvent) => boolean,
    timeoutMs?: number,
  ): Promise<StreamEvent>;
  disk(rel: string): Promise<string>;
}

export async function startAgent(options: AgentRigOptions): Promise<AgentRig> {
  const root = options.root ?? (await createWorkspace(options.files, "lockstep-agent-e2e-"));
  if (options.root === undefined) onTestFinished(() => removeWorkspace(root));
  else
    for (const [rel, content] of Object.entries(options.files))
      await fs.writeFile(path.join(root, rel), content);
  const fake = options.script === undefined ? undefined : await startFakeGemini(options.script);
  if (fake) onTestFinished(() => fake.close());
  const gate = fake && options.gate === true ? await startGate(fake.baseUrl) : undefined;
  if (gate) onTestFinished(() => gate.close());
  const baseUrl = gate?.baseUrl ?? fake?.baseUrl;
  const env: Record<string, string> = {
    ...(options.noKey === true
      ? { GEMINI_API_KEY: "", GOOGLE_API_KEY: "" }
      : { GEMINI_API_KEY: TEST_API_KEY }),
    ...(baseUrl === undefined ? {} : { GOOGLE_GEMINI_BASE_URL: baseUrl }),
    ...options.env,
  };
  const client = await startServer({
    root,
    style: options.style ?? "helix",
    env,
    ...(options.initializationOptions ? { initializationOptions: options.initializationOptions } : {}),
    ...(options.showMessageRequest ? { showMessageRequest: options.showMessageRequest } : {}),
    ...(options.approve ? { approve: options.approve } : {}),
    ...(options.args ? { args: options.args } : {}),
    ...(options.beforeApplyEdit ? { beforeApplyEdit: options.beforeApplyEdit } : {}),
  });
  onTestFinished(() => client.kill());

  const job = async (id: string): Promise<JobView> => {
    const envelope = await client.command("job", { job_id: id });
    if (!envelope.ok) throw new Error(`lockstep.job failed: ${JSON.stringify(envelope)}`);
    return envelope.data as unknown as JobView;
  };
  const events = (id: string): StreamEvent[] =>
    client.notifications
      .filter((m) => m.method === "lockstep/stream" && (m.params as StreamEvent).job_id === id)
      .map((m) => m.params as StreamEvent);
  return {
    root,
    client,
    ...(fake ? { fake } : {}),
    ...(gate ? { gate } : {}),
    async ask(prompt, extra = {}) {
      const envelope = await client.command("ask", { prompt, ...extra });
      if (!envelope.ok) throw new Error(`lockstep.ask refused: ${JSON.stringify(envelope)}`);
      return String(envelope.data["job_id"]);
    },
    job,
    async finished(id, timeoutMs = 10_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const view = await job(id);
        if (view.status !== "running") return view;
        if (performance.now() > deadline)
          throw new Error(`job ${id} still running after ${timeoutMs} ms: ${JSON.stringify(view)}`);
        await sleep(20);
      }
    },
    events,
    async waitForEvent(id, predicate, timeoutMs = WAIT_MS) {
      const hit = await client.waitForNotification(
        "lockstep/stream",
        (params) => (params as StreamEvent).job_id === id && predicate(params as StreamEvent),
        timeoutMs,
      );
      return hit.params as StreamEvent;
    },
    disk: (rel) => fs.readFile(path.join(root, rel), "utf8"),
  };
}

/** An answer for the showMessageRequest handler: the action whose title starts with `prefix`. */
export function pick(params: ShowMessageRequestParams, prefix: string): MessageActionItem {
  const action = params.actions?.find((a) => a.title.startsWith(prefix));
  if (!action) throw new Error(`no action starting with ${prefix} in ${JSON.stringify(params.actions)}`);
  return action;
}
