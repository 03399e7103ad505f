// An editor at the byte level, for what the usual test client cannot do: send
// frames that are not JSON-RPC, stop reading lockstep's output for a while, and
// see every message as it came (a response with id null included). Its frame
// parser is its own, so a fault in the relay's framing cannot hide itself here.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createWorkspace, serverEntry } from "../support/lsp-client.js";

export type Json = Record<string, unknown>;

const live = new Set<RawEditor>();

/** Kills every lockstep a test started (afterEach). */
export function killRawEditors(): void {
  for (const editor of live) editor.kill();
  live.clear();
}

export class RawEditor {
  readonly messages: Json[] = [];
  /** The child's window/logMessage notifications are counted, not kept: a flood would fill the test's memory. */
  logMessages = 0;
  stderr = "";
  readonly exited: Promise<number | string | null>;
  private pending = Buffer.alloc(0);
  private nextId = 1;
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly root: string,
    readonly process: ChildProcessWithoutNullStreams,
  ) {
    process.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    process.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    process.stdin.on("error", () => undefined);
    this.exited = new Promise((resolve) => process.once("exit", (code, signal) => resolve(code ?? signal)));
    live.add(this);
  }

  /** lockstep with `args` (after --stdio) in a new workspace holding `files`; not yet initialized. */
  static async start(
    files: Record<string, string>,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<RawEditor> {
    const root = await createWorkspace(files);
    // LOCKSTEP_TEST_BIN: another build of lockstep to run the same test against (an older one, to see it fail).
    const child = spawn(
      process.execPath,
      [process.env["LOCKSTEP_TEST_BIN"] ?? serverEntry(), "--stdio", ...args],
      { cwd: root, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] },
    );
    return new RawEditor(root, child);
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  uri(rel: string): string {
    return pathToFileURL(`${this.root}/${rel}`).href;
  }

  /** Writes bytes as they are (a broken frame, a body that is not JSON). */
  writeRaw(bytes: string | Buffer): void {
    this.process.stdin.write(bytes);
  }

  /** Writes one well-framed body. */
  writeBody(body: string | Buffer): void {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
    this.writeRaw(Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, "ascii"), bytes]));
  }

  send(message: Json): void {
    this.writeBody(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }

  notify(method: string, params: unknown = {}): void {
    this.send({ method, params });
  }

  /** Sends a request (with `id` when given) and resolves with its response, result or error. */
  request(
    method: string,
    params: unknown = {},
    id: number | string = this.nextId++,
    ms = 20_000,
  ): Promise<Json> {
    const from = this.messages.length;
    this.send({ id, method, params });
    return this.waitFor(
      (m) => m["id"] === id && !("method" in m),
      `the answer to ${method} (id ${JSON.stringify(id)})`,
      ms,
      from,
    );
  }

  async initialize(lockstep: Json = { approval: "auto" }): Promise<Json> {
    const answer = await this.request("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(this.root).href,
      capabilities: {},
      initializationOptions: { lockstep },
    });
    this.notify("initialized");
    return answer;
  }

  /** The first message (from index `from`) that satisfies `match`, waiting for it. */
  waitFor(match: (m: Json) => boolean, what: string, ms = 20_000, from = 0): Promise<Json> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.messages.slice(from).find(match);
        if (!found) return false;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}; stderr: ${this.stderr.slice(-500)}`));
      }, ms);
      if (!check()) this.waiters.add(wake);
    });
  }

  /** Stops reading lockstep's output: the pipe fills and lockstep's writes wait. */
  pause(): void {
    this.process.stdout.pause();
  }

  resume(): void {
    this.process.stdout.resume();
  }

  /** lockstep.session's `wrapped`. */
  async wrapped(): Promise<Json> {
    const answer = await this.request("workspace/executeCommand", {
      command: "lockstep.session",
      arguments: [{}],
    });
    return ((answer["result"] as Json)["data"] as Json)["wrapped"] as Json;
  }

  /** lockstep's resident memory now and at its peak, in MB (Linux's /proc: VmRSS, VmHWM). */
  memory(): { rss: number; peak: number } {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    const kb = (field: string): number =>
      Number(new RegExp(`^${field}:\\s*(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.process.kill(signal);
  }

  private read(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const end = this.pending.indexOf("\r\n\r\n");
      if (end < 0) break;
      const length = Number(
        /Content-Length: *(\d+)/i.exec(this.pending.subarray(0, end).toString("ascii"))?.[1],
      );
      if (!Number.isFinite(length))
        throw new Error(
          `lockstep wrote a header without Content-Length: ${this.pending.subarray(0, end).toString("ascii")}`,
        );
      if (this.pending.length < end + 4 + length) break;
      const message = JSON.parse(this.pending.subarray(end + 4, end + 4 + length).toString("utf8")) as Json;
      // lockstep's own lines are kept; the child's are counted.
      if (
        message["method"] === "window/logMessage" &&
        !String((message["params"] as Json)["message"]).startsWith("lockstep:")
      )
        this.logMessages++;
      else this.messages.push(message);
      this.pending = this.pending.subarray(end + 4 + length);
    }
    for (const wake of [...this.waiters]) wake();
  }
}
