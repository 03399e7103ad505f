// A fake OpenAI-compatible Chat Completions endpoint on loopback: the real
// `openai` package talks to it as to Ollama or OpenRouter. Each request takes the
// next scripted answer: streamed text and tool calls (split into deltas the way
// real servers split them), or an HTTP failure. Every request body is kept.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeAnswer =
  | { text?: string; calls?: { name: string; args: Record<string, unknown> }[] }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
  /** Streams the text, then neither finishes nor closes: a model cut off mid-answer. */
  | { text: string; thenHang: true };

export interface FakeOpenAi {
  url: string;
  /** Request bodies as received, in order. */
  requests: Record<string, unknown>[];
  /** Authorization headers as received. */
  authorizations: (string | undefined)[];
  /** When each request arrived and when its answer was fully sent (performance.now). */
  timings: { requestAt: number; answeredAt?: number }[];
  close(): Promise<void>;
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

type Streamed = { text?: string; calls?: { name: string; args: Record<string, unknown> }[]; thenHang?: true };

function stream(res: ServerResponse, answer: Streamed, withUsage: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(chunk({ role: "assistant" }));
  const text = answer.text ?? "";
  for (let i = 0; i < text.length; i += 7) res.write(chunk({ content: text.slice(i, i + 7) }));
  if (answer.thenHang) return;
  (answer.calls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.args);
    // Name and id first, then the arguments in three pieces, as streaming servers send them.
    res.write(
      chunk({
        tool_calls: [
          {
            index,
            id: `call_${index}_${call.name}`,
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    );
    const third = Math.ceil(args.length / 3);
    for (let i = 0; i < args.length; i += third)
      res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + third) } }] }));
  });
  res.write(chunk({}, answer.calls?.length ? "tool_calls" : "stop"));
  // As OpenAI does when asked (stream_options.include_usage): a last chunk with no choices and the counts.
  if (withUsage)
    res.write(
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "fake", choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } })}\n\n`,
    );
  res.end("data: [DONE]\n\n");
}

export async function startFakeOpenAi(
  script: FakeAnswer[] | ((index: number) => FakeAnswer),
): Promise<FakeOpenAi> {
  const requests: Record<string, unknown>[] = [];
  const authorizations: (string | undefined)[] = [];
  const timings: { requestAt: number; answeredAt?: number }[] = [];
  let next = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (b: Buffer) => (body += b.toString()));
    req.on("end", () => {
      const timing: { requestAt: number; answeredAt?: number } = { requestAt: performance.now() };
      timings.push(timing);
      res.on("finish", () => (timing.answeredAt = performance.now()));
      requests.push(JSON.parse(body || "{}") as Record<string, unknown>);
      authorizations.push(req.headers.authorization);
      const answer =
        typeof script === "function" ? script(next++) : script[Math.min(next++, script.length - 1)];
      if (!answer) {
        res.writeHead(500).end();
        return;
      }
      if ("hang" in answer) return; // never answers: the client must give up or be cancelled
      if ("status" in answer) {
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(JSON.stringify(answer.body ?? { error: { message: `failure ${answer.status}` } }));
        return;
      }
      const options = requests.at(-1)?.["stream_options"] as { include_usage?: boolean } | undefined;
      stream(res, answer, options?.include_usage === true);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    timings,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
