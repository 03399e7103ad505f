// An agent's side of lockstep's companion endpoint, with the real MCP SDK client:
// find the discovery file the way gemini-cli does (by the editor's PID and the
// port), connect with its token, call tools, collect notifications. No vitest
// import: bench/ uses it too.
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WAIT_MS, type Envelope, type TestClient } from "./lsp-client.js";
import { eventually } from "./poll.js";

export interface Discovery {
  port: number;
  workspacePath: string;
  authToken: string;
  ideInfo: { name: string; displayName: string };
  lockstep: { pid: number; version: string };
}

export const discoveryDirIn = (tmp: string): string => path.join(tmp, "gemini", "ide");

/** The file named for this editor PID and port, as gemini-cli looks it up. */
export async function readDiscovery(
  tmp: string,
  editorPid: number,
  port: number,
): Promise<{ file: string; info: Discovery; mode: number }> {
  const file = path.join(discoveryDirIn(tmp), `gemini-ide-server-${editorPid}-${port}.json`);
  const stat = await fs.stat(file);
  return { file, info: JSON.parse(await fs.readFile(file, "utf8")) as Discovery, mode: stat.mode & 0o777 };
}

/** lockstep.session's companion facts, once the endpoint is up (it starts after \`initialized\`). */
export async function companionFacts(
  client: TestClient,
  timeoutMs = WAIT_MS,
): Promise<Record<string, unknown>> {
  let facts: Record<string, unknown> | undefined;
  const settled = (f: Record<string, unknown>): boolean =>
    typeof f["port"] === "number" || (f["enabled"] === false && !String(f["reason"]).startsWith("starting"));
  await eventually(
    async () => {
      facts = (await client.command("session", {})).data?.["companion"] as
        | Record<string, unknown>
        | undefined;
      return facts !== undefined && settled(facts);
    },
    () => `the companion endpoint to start: ${JSON.stringify(facts)}`,
    timeoutMs,
  );
  return facts!;
}

/**
 * The editor's notifications (didOpen, didChange) reach the server over LSP, an agent's call over
 * HTTP: nothing orders the two. An LSP round trip after them means the server has handled them.
 */
export async function serverCaughtUp(client: TestClient): Promise<void> {
  await client.command("session", {});
}

export const fileGone = (file: string) => (): boolean => !existsSync(file);

export interface Note {
  method: string;
  params: Record<string, unknown>;
}

export class AgentClient {
  readonly notes: Note[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    readonly client: Client,
    readonly transport: StreamableHTTPClientTransport,
  ) {
    client.fallbackNotificationHandler = async (n) => {
      this.notes.push({ method: n.method, params: (n.params ?? {}) as Record<string, unknown> });
      for (const w of this.waiters.splice(0)) w();
    };
  }

  static async connect(port: number, token: string, name = "test-agent"): Promise<AgentClient> {
    const client = new Client({ name, version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const agent = new AgentClient(client, transport);
    await client.connect(transport);
    return agent;
  }

  /** A tool call; lockstep's own tools answer with an envelope as their one text block. */
  async call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
    const result = await this.client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text?: string }[];
    return { isError: result.isError === true, text: content.map((c) => c.text ?? "").join("") };
  }

  async envelope(name: string, args: Record<string, unknown>): Promise<Envelope> {
    return JSON.parse((await this.call(name, args)).text) as Envelope;
  }

  /** The first notification of `method` from index `from` on that satisfies `predicate`. */
  async waitFor(
    method: string,
    predicate: (params: Record<string, unknown>) => boolean = () => true,
    timeoutMs = WAIT_MS,
    from = 0,
  ): Promise<Note> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.notes.slice(from).find((n) => n.method === method && predicate(n.params));
      if (found) return found;
      const left = until - Date.now();
      if (left <= 0)
        throw new Error(
          `no ${method} notification within ${timeoutMs} ms; received: ${JSON.stringify(this.notes.map((n) => n.method))}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
