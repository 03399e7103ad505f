// The stdio transport to an MCP server (the user's or an ACP client's), in place of the SDK's: the server's
// output is cut by the line splitter every door uses, under the same size and depth
// caps, and a server that sends lines which are not JSON-RPC is dropped (killed,
// named) after a bound. The SDK's transport parses every junk line and reports it,
// for ever: a server that floods junk held the agent's thread and session/new
// waited out its whole connect timeout. Reading also yields to the event loop after
// each chunk, so requests on the editor's connection are answered between them.
import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { parseBounded } from "../jsonrpc/limits.js";
import { LineSplitter } from "../jsonrpc/line-splitter.js";

/** Lines that are not JSON-RPC a server may send before it is dropped: a real server sends none. */
export const MAX_JUNK_LINES = 100;

export interface McpStdioParams {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Each line the server writes on stderr (bounded), to name why it failed. */
  onStderrLine?: (line: string) => void;
}

export class McpStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];
  /** Why the server was dropped, when it was: what the session's status says of it. */
  dropped: string | undefined;
  private child: ChildProcess | undefined;
  private junk = 0;
  private closed = false;
  private readonly lines = new LineSplitter(
    (line) => this.lineRead(line),
    () => this.drop("it sent a line longer than lockstep reads"),
  );

  constructor(
    private readonly name: string,
    private readonly params: McpStdioParams,
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => this.finish());
      child.stdin!.on("error", (error) => this.onerror?.(error));
      this.readStderr(child);
      const stdout = child.stdout!;
      stdout.on("data", (chunk: Buffer) => {
        this.lines.push(chunk);
        // One chunk at a time, the editor's requests served in between.
        if (this.closed) return;
        stdout.pause();
        setImmediate(() => this.closed || stdout.resume());
      });
      stdout.on("error", (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) return reject(new Error(this.dropped ?? "Not connected"));
      if (stdin.write(JSON.stringify(message) + "\n")) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return this.finish();
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin?.end();
    // A server that does not leave at the end of its input is stopped, then killed.
    const wait = (ms: number): Promise<void> =>
      Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    await wait(2000);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await wait(2000);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    this.finish();
  }

  /** stderr is always read (a full pipe would stall the server); only its last whole lines are passed on. */
  private readStderr(child: ChildProcess): void {
    let pending = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      pending = (pending + chunk.toString("utf8")).slice(-4096);
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines.slice(-5))
        if (line.trim() !== "") this.params.onStderrLine?.(line.trim().slice(0, 300));
    });
  }

  private lineRead(line: string): void {
    if (this.closed) return;
    const parsed = parseBounded(line);
    const checked = parsed.ok ? JSONRPCMessageSchema.safeParse(parsed.value) : undefined;
    if (checked?.success) return this.onmessage?.(checked.data);
    if (++this.junk >= MAX_JUNK_LINES) this.drop(`it sent ${this.junk} lines that are not JSON-RPC messages`);
  }

  /** The server is killed at once and named: nothing it sends is read again. */
  private drop(why: string): void {
    if (this.closed) return;
    this.dropped = `the MCP server ${this.name} was dropped: ${why} (a server must write only JSON-RPC on stdout; logs go to stderr)`;
    this.lines.clear();
    this.child?.stdout?.removeAllListeners("data");
    this.child?.stdout?.resume();
    this.child?.kill("SIGKILL");
    this.onerror?.(new Error(this.dropped));
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.lines.clear();
    this.onclose?.();
  }
}
