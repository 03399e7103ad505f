// The server as a spawned process, fed raw bytes: a well-framed body that is not
// JSON (or not a message) is answered with JSON-RPC's error, id null, and the next
// request is answered; a frame out of step (a Content-Length too short) still ends it.
// A body over the cap (64 MB) is answered at its header and read past, never held.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/lockstep.js", import.meta.url));
const frame = (body: string, length = Buffer.byteLength(body)): string =>
  `Content-Length: ${length}\r\n\r\n${body}`;
const request = (id: number, method: string, params: unknown = null): string =>
  frame(JSON.stringify({ jsonrpc: "2.0", id, method, params }));

interface Answer {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
}

/** The server on stdio, its answers collected as they come. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, "--stdio"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  readonly answers: Answer[] = [];
  stderr = "";
  readonly exited: Promise<number | null>;
  private out = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  constructor() {
    this.child.stderr.on("data", (b: Buffer) => (this.stderr += b.toString()));
    this.child.stdout.on("data", (b: Buffer) => {
      this.out = Buffer.concat([this.out, b]);
      for (;;) {
        const end = this.out.indexOf("\r\n\r\n");
        const length =
          end < 0 ? undefined : /Content-Length: (\d+)/i.exec(this.out.subarray(0, end).toString())?.[1];
        if (length === undefined || this.out.length < end + 4 + Number(length)) break;
        this.answers.push(
          JSON.parse(this.out.subarray(end + 4, end + 4 + Number(length)).toString()) as Answer,
        );
        this.out = this.out.subarray(end + 4 + Number(length));
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.exited.then(
      () => this.waiters.splice(0).forEach((w) => w()),
      () => undefined,
    );
  }

  write(bytes: string): void {
    this.child.stdin.write(bytes);
  }

  /** Writes `size` bytes of filler, waiting whenever the pipe is full. */
  async stream(size: number): Promise<void> {
    const chunk = Buffer.alloc(1024 * 1024, "x");
    for (let sent = 0; sent < size; sent += chunk.length) {
      const piece = sent + chunk.length <= size ? chunk : chunk.subarray(0, size - sent);
      if (!this.child.stdin.write(piece))
        await new Promise((resolve) => this.child.stdin.once("drain", resolve));
    }
  }

  /** The server's peak resident memory, in MB (Linux's /proc: VmHWM). */
  peakMemory(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
    return Number(/^VmHWM:\s*(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
  }

  /** The first answer matching `wanted`; fails if the server exits first. */
  async answer(wanted: (a: Answer) => boolean): Promise<Answer> {
    for (;;) {
      const found = this.answers.find(wanted);
      if (found) return found;
      if (this.child.exitCode !== null)
        throw new Error(
          `the server exited (${this.child.exitCode}) without the answer; stderr: ${this.stderr}`,
        );
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

const servers: RawServer[] = [];
function start(): RawServer {
  const s = new RawServer();
  servers.push(s);
  return s;
}
afterEach(() => {
  for (const s of servers.splice(0)) s.child.kill();
});

describe("a well-framed body that is not a JSON-RPC message", () => {
  it.each<[name: string, chunks: string[], code: number]>([
    ["`{not json`", [frame("{not json")], -32700],
    [
      "`{not json`, its header and body in separate writes",
      ["Content-Length: 9\r\n", "\r\n{not", " json"],
      -32700,
    ],
    ["an empty body (Content-Length: 0)", [frame("")], -32700],
    ["a non-ASCII body, its Content-Length counted in bytes", [frame("{não é json}")], -32700],
    ["a JSON number", [frame("42")], -32600],
    ["a batch (LSP has none)", [frame("[]")], -32600],
  ])("%s: an error answer with id null, then the next request is answered", async (_name, chunks, code) => {
    const server = start();
    for (const c of chunks) server.write(c);
    server.write(request(1, "shutdown"));

    const error = await server.answer((a) => a.id === null);
    expect(error.error?.code).toBe(code);
    expect(error.error?.message).toMatch(
      code === -32700 ? /^Parse error: the message body is not JSON/ : /^Invalid request/,
    );
    expect(await server.answer((a) => a.id === 1)).toMatchObject({ id: 1, result: null });
    expect(server.child.exitCode).toBeNull();
    server.write(frame(JSON.stringify({ jsonrpc: "2.0", method: "exit" })));
    expect(await server.exited).toBe(0);
  });

  it("answers each of several bad bodies in a row, and serves an initialize after them", async () => {
    const server = start();
    server.write(frame("{not json") + frame("hello") + frame("}"));
    server.write(request(7, "initialize", { processId: null, rootUri: null, capabilities: {} }));
    const init = await server.answer((a) => a.id === 7);
    expect(init.result).toMatchObject({ capabilities: expect.any(Object) as object });
    expect(server.answers.filter((a) => a.id === null).map((a) => a.error?.code)).toEqual([
      -32700, -32700, -32700,
    ]);
  });
});

describe("a message nested too deep", () => {
  it("10,000 levels of arrays in a request's params: answered -32600 by its id, naming the bound, and the next request is served", async () => {
    const server = start();
    const deep = "[".repeat(10_000) + "]".repeat(10_000);
    server.write(
      frame(
        `{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"x","arguments":${deep}}}`,
      ),
    );
    server.write(request(1, "shutdown"));
    const refused = await server.answer((a) => a.id === 3);
    expect(refused.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/nests deeper than 256 levels/) as string,
    });
    expect(await server.answer((a) => a.id === 1)).toMatchObject({ id: 1, result: null });
  });
});

describe("a frame out of step still ends the server", () => {
  it.each<[name: string, chunks: string[]]>([
    // The rest of the cut body comes in a write of its own, after the cut head was read whole.
    [
      "a Content-Length too short, the rest of the body written later",
      ['Content-Length: 5\r\n\r\n{"jso', 'nrpc":"2.0","id":1,"method":"shutdown"}'],
    ],
    [
      "a Content-Length too short whose rest starts with a letter",
      [frame('{"jsonrpc":"2.0","id":1,"method":"shutdown"}', 13)],
    ],
    ["garbage where a header should be", ["hello world\r\n\r\n"]],
  ])("%s: says so on stderr and exits 1", async (_name, chunks) => {
    const server = start();
    for (const c of chunks) server.write(c);
    expect(await server.exited).toBe(1);
    expect(server.stderr).toMatch(/broken (header|body)/);
    expect(server.answers.filter((a) => a.id === 1)).toEqual([]);
  });
});

describe("a body over the cap (64 MB)", () => {
  /** The server's peak resident memory may not pass this (it starts near 100 MB; holding the body would pass it). */
  const PEAK_MB = 300;

  it("Content-Length: 3000000000: answered -32600 at its header, its bytes read past and not held, the server alive", async () => {
    const server = start();
    server.write(request(1, "initialize", { processId: null, rootUri: null, capabilities: {} }));
    await server.answer((a) => a.id === 1);
    server.write("Content-Length: 3000000000\r\n\r\n");
    const refused = await server.answer((a) => a.id === null);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toContain(
      "a body of 3000000000 bytes, over lockstep's cap of 64 MB; it was read past and dropped",
    );
    // 320 MB of it: a reader that held the body would be past the bound by now.
    await server.stream(320 * 1024 * 1024);
    expect(server.child.exitCode).toBeNull();
    expect(server.peakMemory()).toBeLessThan(PEAK_MB);
  }, 120_000);

  it("a body over the cap that is all sent is read past, and the next request is answered", async () => {
    const server = start();
    const size = 80 * 1024 * 1024;
    server.write(`Content-Length: ${size}\r\n\r\n`);
    await server.stream(size);
    server.write(request(2, "shutdown"));
    expect((await server.answer((a) => a.id === null)).error?.code).toBe(-32600);
    expect(await server.answer((a) => a.id === 2)).toMatchObject({ id: 2, result: null });
    expect(server.peakMemory()).toBeLessThan(PEAK_MB);
  }, 120_000);
});
