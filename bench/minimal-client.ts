// The fewest moving parts an LSP client can have: its own framing over the server's
// stdio, one open buffer, edits spliced into a string, didChange sent before the reply
// (as Helix does); lines end in \n only. Native clients (Neovim's C JSON decoder, Helix
// in Rust) are closer to this than to the vscode-jsonrpc test client, so the bench
// measures the safe_patch round trip with both; the gap is the test client's own share.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import path from "node:path";
import { pathToFileURL } from "node:url";

interface Position {
  line: number;
  character: number;
}

interface TextEdit {
  range: { start: Position; end: Position };
  newText: string;
}

interface Message {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message: string };
}

const HEADER_END = "\r\n\r\n";

export class MinimalClient {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly waiting = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();
  private input: Buffer = Buffer.alloc(0);
  private nextId = 0;
  private uri = "";
  private version = 0;
  /** The open buffer's text. */
  text = "";
  /** Called when an edit arrives, before it is checked: a user typing while the server's edit is on its way. */
  beforeApplyEdit: (() => void) | undefined;

  private constructor(
    entry: string,
    private readonly root: string,
  ) {
    this.child = spawn(process.execPath, [entry, "--stdio"], {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    this.child.once("exit", (code) => {
      for (const { reject } of this.waiting.values())
        reject(new Error(`the server exited (${String(code)})`));
      this.waiting.clear();
    });
  }

  /** Starts `node entry --stdio` in `root` and initializes it with the capabilities a patch needs. */
  static async start(entry: string, root: string): Promise<MinimalClient> {
    const client = new MinimalClient(entry, root);
    await client.request("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      capabilities: { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } } },
    });
    client.send({ method: "initialized", params: {} });
    return client;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  open(rel: string, text: string): void {
    this.uri = pathToFileURL(path.join(this.root, rel)).href;
    this.text = text;
    this.version = 1;
    this.send({
      method: "textDocument/didOpen",
      params: { textDocument: { uri: this.uri, languageId: "typescript", version: this.version, text } },
    });
  }

  /** The user types: the buffer becomes `text`, reported as one full-text didChange. */
  type(text: string): void {
    if (text === this.text) return;
    this.text = text;
    this.version++;
    this.send({
      method: "textDocument/didChange",
      params: { textDocument: { uri: this.uri, version: this.version }, contentChanges: [{ text }] },
    });
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ id, method, params });
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    await this.request("shutdown", null);
    this.send({ method: "exit" });
    await exited;
  }

  private send(message: Message): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}${HEADER_END}`), body]));
  }

  private receive(chunk: Buffer): void {
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    for (;;) {
      const headerEnd = this.input.indexOf(HEADER_END);
      if (headerEnd === -1) return;
      const length = Number(
        /content-length: *(\d+)/i.exec(this.input.subarray(0, headerEnd).toString("ascii"))?.[1],
      );
      if (!Number.isInteger(length))
        throw new Error(
          `no Content-Length in ${JSON.stringify(this.input.subarray(0, headerEnd).toString())}`,
        );
      const start = headerEnd + HEADER_END.length;
      if (this.input.length < start + length) return;
      const message = JSON.parse(this.input.subarray(start, start + length).toString("utf8")) as Message;
      this.input = this.input.subarray(start + length);
      this.handle(message);
    }
  }

  private handle(message: Message): void {
    if (message.method === undefined) {
      const waiter = this.waiting.get(Number(message.id));
      this.waiting.delete(Number(message.id));
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    } else if (message.method === "workspace/applyEdit") {
      this.beforeApplyEdit?.();
      const params = message.params as {
        edit: {
          documentChanges: { textDocument: { uri: string; version: number | null }; edits: TextEdit[] }[];
        };
      };
      const change = params.edit.documentChanges[0];
      const current =
        change !== undefined &&
        change.textDocument.uri === this.uri &&
        (change.textDocument.version ?? this.version) === this.version;
      if (!current) {
        this.send({
          id: message.id,
          result: { applied: false, failureReason: "not the open buffer's version" },
        });
        return;
      }
      this.apply(change.edits);
      this.send({ id: message.id, result: { applied: true } });
    } else if (message.id !== undefined) {
      // workspace/configuration, window/workDoneProgress/create, client/registerCapability…
      this.send({ id: message.id, result: null });
    }
  }

  /** Applies the edits (all against the current text, as LSP says) and reports them in one didChange. */
  private apply(edits: readonly TextEdit[]): void {
    const starts = [0];
    for (let nl = this.text.indexOf("\n"); nl !== -1; nl = this.text.indexOf("\n", nl + 1))
      starts.push(nl + 1);
    const offset = (p: Position): number =>
      Math.min((starts[p.line] ?? this.text.length) + p.character, this.text.length);
    // Last first, so every range still holds when its turn comes; the didChange lists them in that order.
    // Edits starting at one place apply in their given order (LSP), so the later of them goes first here.
    const ordered = edits
      .map((e, i) => ({ e, i }))
      .sort((a, b) => offset(b.e.range.start) - offset(a.e.range.start) || b.i - a.i)
      .map(({ e }) => e);
    for (const e of ordered)
      this.text =
        this.text.slice(0, offset(e.range.start)) + e.newText + this.text.slice(offset(e.range.end));
    this.version++;
    this.send({
      method: "textDocument/didChange",
      params: {
        textDocument: { uri: this.uri, version: this.version },
        contentChanges: ordered.map((e) => ({ range: e.range, text: e.newText })),
      },
    });
  }
}
