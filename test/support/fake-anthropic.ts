// A fake Anthropic Messages endpoint on loopback: the real @anthropic-ai/sdk talks to it as to
// the API. Each request takes the next scripted answer, streamed as the API streams it
// (message_start, content_block_start/delta/stop for thinking, text and tool_use with its input
// in input_json_delta pieces, message_delta with stop_reason and usage, message_stop), or an
// HTTP failure, an error event in the stream, or a stream that stops half-way and hangs.
// Its usage accounting models the prompt cache as the API documents it: a request's prefix up to
// each cache_control breakpoint is remembered; at each breakpoint the API looks for a remembered
// prefix ending there or up to 20 blocks before; the longest found is read, the rest up to the
// last breakpoint written. Tokens are counted as a quarter of the characters of each block's JSON.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StreamedAnswer {
  thinking?: { text: string; signature: string }[];
  redacted?: string;
  text?: string;
  calls?: { name: string; args: Record<string, unknown>; id?: string }[];
  stopReason?: string;
  /** Stop after the text (no message_delta/stop) and keep the connection open. */
  hangAfterText?: true;
}

export type AnthropicAnswer =
  | StreamedAnswer
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { streamError: string };

export interface UsageFigures {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens: number;
}

export interface FakeAnthropic {
  url: string;
  requests: Record<string, unknown>[];
  headers: Record<string, string | string[] | undefined>[];
  usage: UsageFigures[];
  /** Resolves when the client closed the connection of request `index` before its end. */
  closed(index: number): Promise<void>;
  close(): Promise<void>;
}

function sse(res: ServerResponse, event: Record<string, unknown> & { type: string }): void {
  res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

/** Three pieces, as the API splits a block's deltas. */
function pieces(text: string): string[] {
  const third = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += third) out.push(text.slice(i, i + third));
  return out;
}

type Blk = Record<string, unknown>;

/** How many blocks before a breakpoint the API looks for an earlier cached prefix. */
const LOOKBACK = 20;

function tokens(blocks: Blk[]): number {
  return blocks.reduce((sum, b) => sum + Math.ceil(JSON.stringify(b).length / 4), 0);
}

/** The request as the cache sees it: tools, system, then every message's blocks; and where the breakpoints are. */
function flatten(body: Record<string, unknown>): { blocks: Blk[]; breakpoints: number[] } {
  const blocks: Blk[] = [];
  const breakpoints: number[] = [];
  const add = (b: Blk, role?: string): void => {
    const { cache_control, ...rest } = b;
    blocks.push(role === undefined ? rest : { role, ...rest });
    if (cache_control !== undefined) breakpoints.push(blocks.length);
  };
  for (const t of (body["tools"] ?? []) as Blk[]) add(t);
  const system = body["system"];
  if (typeof system === "string") add({ type: "text", text: system });
  else for (const s of (system ?? []) as Blk[]) add(s);
  for (const m of (body["messages"] ?? []) as { role: string; content: string | Blk[] }[]) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const b of content) add(b, m.role);
  }
  return { blocks, breakpoints };
}

function account(body: Record<string, unknown>, cache: Set<string>, outputTokens: number): UsageFigures {
  const { blocks, breakpoints } = flatten(body);
  const key = (n: number): string =>
    createHash("sha256")
      .update(JSON.stringify(blocks.slice(0, n)))
      .digest("hex");
  const total = tokens(blocks);
  const candidates = breakpoints.flatMap((n) =>
    Array.from({ length: Math.min(n, LOOKBACK + 1) }, (_, back) => n - back),
  );
  const hit = candidates.filter((n) => cache.has(key(n))).sort((a, b) => b - a)[0];
  const read = hit === undefined ? 0 : tokens(blocks.slice(0, hit));
  const last = breakpoints[breakpoints.length - 1];
  const written = last === undefined || last === hit ? 0 : tokens(blocks.slice(0, last)) - read;
  for (const n of breakpoints) cache.add(key(n));
  return {
    input_tokens: total - read - written,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
    output_tokens: outputTokens,
  };
}

function stream(res: ServerResponse, answer: StreamedAnswer, usage: UsageFigures): void {
  res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_fake" });
  sse(res, {
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: "fake",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  sse(res, { type: "ping" });
  let index = 0;
  for (const t of answer.thinking ?? []) {
    sse(res, {
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    for (const p of pieces(t.text))
      sse(res, { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: p } });
    sse(res, {
      type: "content_block_delta",
      index,
      delta: { type: "signature_delta", signature: t.signature },
    });
    sse(res, { type: "content_block_stop", index });
    index++;
  }
  if (answer.redacted !== undefined) {
    sse(res, {
      type: "content_block_start",
      index,
      content_block: { type: "redacted_thinking", data: answer.redacted },
    });
    sse(res, { type: "content_block_stop", index });
    index++;
  }
  if (answer.text !== undefined) {
    sse(res, { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const p of pieces(answer.text))
      sse(res, { type: "content_block_delta", index, delta: { type: "text_delta", text: p } });
    if (answer.hangAfterText) return;
    sse(res, { type: "content_block_stop", index });
    index++;
  }
  (answer.calls ?? []).forEach((call, n) => {
    sse(res, {
      type: "content_block_start",
      index,
      content_block: {
        type: "tool_use",
        id: call.id ?? `toolu_${n}_${call.name}`,
        name: call.name,
        input: {},
      },
    });
    for (const p of pieces(JSON.stringify(call.args)))
      sse(res, { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } });
    sse(res, { type: "content_block_stop", index });
    index++;
  });
  const stop = answer.stopReason ?? (answer.calls?.length ? "tool_use" : "end_turn");
  sse(res, {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(res, { type: "message_stop" });
  res.end();
}

export async function startFakeAnthropic(
  script: AnthropicAnswer[] | ((index: number) => AnthropicAnswer),
): Promise<FakeAnthropic> {
  const requests: Record<string, unknown>[] = [];
  const headers: FakeAnthropic["headers"] = [];
  const usage: UsageFigures[] = [];
  const closes: Promise<void>[] = [];
  const cache = new Set<string>();
  let next = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (b: Buffer) => (body += b.toString()));
    req.on("end", () => {
      const parsed = JSON.parse(body || "{}") as Record<string, unknown>;
      requests.push(parsed);
      headers.push(req.headers);
      closes.push(
        new Promise<void>((resolve) => res.on("close", () => (res.writableEnded ? undefined : resolve()))),
      );
      const answer =
        typeof script === "function" ? script(next++) : script[Math.min(next++, script.length - 1)];
      if (!answer) {
        res.writeHead(500).end();
        return;
      }
      if ("status" in answer) {
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(
          JSON.stringify(
            answer.body ?? {
              type: "error",
              error: { type: "api_error", message: `failure ${answer.status}` },
            },
          ),
        );
        return;
      }
      if ("streamError" in answer) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        sse(res, {
          type: "error",
          error: {
            type: answer.streamError,
            message: answer.streamError === "overloaded_error" ? "Overloaded" : "failed",
          },
        } as never);
        res.end();
        return;
      }
      const figures = account(parsed, cache, 10);
      usage.push(figures);
      if (parsed["stream"] !== true) {
        // A request without streaming (lockstep's structured-output call): the whole message at once.
        const content = answer.text === undefined ? [] : [{ type: "text", text: answer.text }];
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "msg_fake",
            type: "message",
            role: "assistant",
            model: "fake",
            content,
            stop_reason: "end_turn",
            stop_sequence: null,
            usage: figures,
          }),
        );
        return;
      }
      stream(res, answer, figures);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    usage,
    closed: (index) => closes[index] ?? Promise.reject(new Error(`no request ${index}`)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
