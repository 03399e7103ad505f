// A fake Gemini REST endpoint on loopback. The real @google/genai SDK talks to it
// (through `baseUrl` / GOOGLE_GEMINI_BASE_URL), so tests exercise the SDK's request
// building and SSE parsing instead of a mock of it. Each request plays the next
// scripted turn; every request is recorded for assertions.
import { createServer, type Server } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakePart =
  | { text: string; thought?: boolean }
  | {
      functionCall: { name: string; args?: Record<string, unknown>; id?: string };
      thoughtSignature?: string;
    };

export interface FakeChunk {
  parts: FakePart[];
  /** Wait this long before sending the chunk. */
  delayMs?: number;
  /** Send the chunk only once this has resolved (then `delayMs`): an event in the test, not a guess of time. */
  after?: Promise<unknown>;
  /** Write the SSE event in several pieces, so its JSON arrives split across reads. */
  fragmented?: boolean;
  finishReason?: string;
}

export type FakeTurn =
  /**
   * A streamed answer. `hang` keeps the response open after the chunks until the
   * client leaves; `drop` destroys the connection after them; `failWith` sends an
   * error event with that status after them (both mid-stream failures).
   */
  | StreamTurn
  /** A Gemini-style error body with this HTTP status; `retryDelay` like "0.05s" adds RetryInfo. */
  | { status: number; message?: string; retryDelay?: string }
  /** A `generateContent` answer whose text is this value as JSON. */
  | { json: unknown }
  /** Accept the request, then destroy the socket without answering. */
  | { dropConnection: true };

export interface StreamTurn {
  chunks: FakeChunk[];
  hang?: boolean;
  drop?: boolean;
  failWith?: { status: number; message: string };
}

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  model: string;
  stream: boolean;
  /** Lower-cased headers; the API key header's value is replaced by `[REDACTED]`. */
  headers: Record<string, string>;
  /** Last four characters of the key the client sent, enough to tell keys apart. */
  apiKeySuffix: string | undefined;
  body: GeminiRequestBody;
  /** True once the client went away before the response ended (abort, timeout). */
  closedByClient: boolean;
}

export interface GeminiRequestBody {
  contents?: { role?: string; parts?: Record<string, unknown>[] }[];
  systemInstruction?: { role?: string; parts?: { text?: string }[] };
  tools?: { functionDeclarations?: Record<string, unknown>[] }[];
  generationConfig?: Record<string, unknown>;
  [key: string]: unknown;
}

export type FakeScript = FakeTurn[] | ((request: RecordedRequest, index: number) => FakeTurn);

export interface FakeGemini {
  /** Pass as `baseUrl` (or GOOGLE_GEMINI_BASE_URL). */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const API_KEY_HEADER = "x-goog-api-key";
const ROUTE = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;

/** Starts `server` on a free loopback port; resolves with its base URL. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function startFakeGemini(script: FakeScript): Promise<FakeGemini> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `fake-gemini: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const route = ROUTE.exec(url.pathname);
    const raw = await readBody(req);
    if (req.method !== "POST" || route === null) {
      sendError(res, 404, `fake-gemini: no route for ${req.method ?? "?"} ${url.pathname}`);
      return;
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path: url.pathname + url.search,
      model: route[1] ?? "",
      stream: route[2] === "streamGenerateContent",
      headers: redactHeaders(req),
      apiKeySuffix: headerValue(req, API_KEY_HEADER)?.slice(-4),
      body: parseBody(raw),
      closedByClient: false,
    };
    const index = requests.length;
    requests.push(recorded);
    res.on("close", () => {
      if (!res.writableFinished) recorded.closedByClient = true;
    });
    const turn = typeof script === "function" ? script(recorded, index) : script[index];
    if (turn === undefined) {
      sendError(
        res,
        500,
        `fake-gemini: script has no turn ${index} (it has ${Array.isArray(script) ? script.length : "?"})`,
      );
      return;
    }
    await play(turn, recorded.stream, res);
  }

  return {
    baseUrl: await listenOnLoopback(server),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging streams would otherwise keep close() waiting forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function play(turn: FakeTurn, stream: boolean, res: ServerResponse): Promise<void> {
  if ("status" in turn) {
    sendError(res, turn.status, turn.message ?? `fake-gemini: scripted HTTP ${turn.status}`, turn.retryDelay);
    return;
  }
  if ("dropConnection" in turn) {
    res.socket?.destroy();
    return;
  }
  if ("json" in turn) {
    const chunk: FakeChunk = { parts: [{ text: JSON.stringify(turn.json) }] };
    if (stream) await playStream({ chunks: [chunk] }, res);
    else sendJson(res, 200, responseBody([chunk], true));
    return;
  }
  if (stream) {
    await playStream(turn, res);
    return;
  }
  for (const chunk of turn.chunks) await pause(chunk.delayMs, res);
  if (turn.hang === true) return;
  if (turn.drop === true) {
    res.socket?.destroy();
    return;
  }
  // A unary answer is the whole turn merged into one candidate.
  sendJson(res, 200, responseBody([{ parts: turn.chunks.flatMap((chunk) => chunk.parts) }], true));
}

async function playStream(turn: StreamTurn, res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.socket?.setNoDelay(true);
  res.flushHeaders();
  for (const [i, chunk] of turn.chunks.entries()) {
    if (chunk.after !== undefined) await chunk.after;
    await pause(chunk.delayMs, res);
    if (res.destroyed) return;
    const last =
      i === turn.chunks.length - 1 && turn.hang !== true && turn.drop !== true && turn.failWith === undefined;
    const event = `data: ${JSON.stringify(responseBody([chunk], last))}\n\n`;
    if (chunk.fragmented === true) {
      for (const piece of thirds(event)) {
        res.write(piece);
        await pause(5, res);
      }
    } else {
      res.write(event);
    }
  }
  if (turn.hang === true || res.destroyed) return;
  if (turn.failWith !== undefined) {
    res.end(`data: ${JSON.stringify(errorBody(turn.failWith.status, turn.failWith.message))}\n\n`);
    return;
  }
  if (turn.drop === true) {
    // Let the written chunks reach the client before the connection dies.
    await pause(20, res);
    res.socket?.destroy();
    return;
  }
  if (turn.chunks.length === 0) res.write(`data: ${JSON.stringify(responseBody([], true))}\n\n`);
  res.end();
}

/** The Gemini REST response shape for one chunk (or one unary answer). */
function responseBody(chunks: FakeChunk[], last: boolean): Record<string, unknown> {
  const parts = chunks.flatMap((chunk) => chunk.parts);
  const finishReason =
    chunks.find((chunk) => chunk.finishReason !== undefined)?.finishReason ?? (last ? "STOP" : undefined);
  return {
    candidates: [
      {
        content: { role: "model", parts },
        index: 0,
        ...(finishReason === undefined ? {} : { finishReason }),
      },
    ],
    ...(last
      ? { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } }
      : {}),
    modelVersion: "fake-gemini",
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

function sendError(res: ServerResponse, status: number, message: string, retryDelay?: string): void {
  sendJson(res, status, errorBody(status, message, retryDelay));
}

function errorBody(status: number, message: string, retryDelay?: string): Record<string, unknown> {
  const details =
    retryDelay === undefined ? [] : [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }];
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN", details } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify(body));
}

/** Resolves after `ms`, or at once when the client has gone away. */
function pause(ms: number | undefined, res: ServerResponse): Promise<void> {
  if (ms === undefined || ms <= 0 || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once("close", done);
    function done(): void {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    }
  });
}

function thirds(text: string): string[] {
  const a = Math.floor(text.length / 3);
  const b = Math.floor((2 * text.length) / 3);
  return [text.slice(0, a), text.slice(a, b), text.slice(b)];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of req) pieces.push(piece as Buffer);
  return Buffer.concat(pieces).toString("utf8");
}

function parseBody(raw: string): GeminiRequestBody {
  if (raw === "") return {};
  const parsed: unknown = JSON.parse(raw);
  return typeof parsed === "object" && parsed !== null ? (parsed as GeminiRequestBody) : {};
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function redactHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = name === API_KEY_HEADER ? "[REDACTED]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

// ---- small builders so scripts read as conversations ----

/** A streamed text answer, one chunk per argument. */
export function textTurn(...chunks: string[]): FakeTurn {
  return { chunks: chunks.map((text) => ({ parts: [{ text }] })) };
}

/** A turn that calls these functions, each in its own chunk. */
export function callTurn(
  ...calls: { name: string; args?: Record<string, unknown>; id?: string }[]
): FakeTurn {
  return { chunks: calls.map((functionCall) => ({ parts: [{ functionCall }] })) };
}
