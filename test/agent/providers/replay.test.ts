import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ModelError } from "../../../server/src/agent/model.js";
import type { FunctionCall, Message, ModelEvent } from "../../../server/src/agent/model.js";
import {
  createReplayModel,
  latestFileStates,
  loadReplayScript,
} from "../../../server/src/agent/providers/replay.js";
import type { ReplayScript } from "../../../server/src/agent/providers/replay.js";
import { runTurnLoop } from "../../../server/src/agent/turn-loop.js";
import type { ToolRunner } from "../../../server/src/agent/turn-loop.js";
import { errorEnvelope, okEnvelope } from "../../../server/src/tools/envelope.js";
import type { Envelope } from "../../../server/src/tools/envelope.js";

const never = (): AbortSignal => new AbortController().signal;
const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
const state = (file_path: string, content: string): Record<string, unknown> => ({
  file_path,
  uri: `file:///w/${file_path}`,
  version: null,
  sha256: sha(content),
  content,
  open: false,
});

/** A history in which the tools answered with these envelopes, oldest first. */
function answered(...responses: { name: string; envelope: Envelope }[]): Message[] {
  return [
    { role: "user", parts: [{ text: "go" }] },
    ...responses.flatMap(({ name, envelope }): Message[] => [
      { role: "assistant", parts: [{ functionCall: { name, args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name, response: envelope } }] },
    ]),
  ];
}

async function play(script: ReplayScript, history: Message[], signal = never()): Promise<ModelEvent[]> {
  const model = createReplayModel(script);
  const events: ModelEvent[] = [];
  for await (const event of model.stream({ system: "", history, tools: [] }, signal)) events.push(event);
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe("loadReplayScript", () => {
  it.each<{ name: string; json: unknown }>([
    { name: "text only", json: { turns: [{ text: ["Hi"] }] } },
    {
      name: "calls with object args",
      json: { turns: [{ calls: [{ name: "read_file", args: { file_path: "a" } }] }] },
    },
    {
      name: "args as JSON text with a placeholder",
      json: { turns: [{ calls: [{ name: "edit", args: '{"base_content_sha256":"{{sha256:a}}"}' }] }] },
    },
    { name: "structured answers", json: { turns: [{}], json: [{ search: "a" }] } },
  ])("accepts $name", ({ json }) => {
    expect(loadReplayScript(json)).toMatchObject({ ok: true, value: json });
  });

  it.each<{ name: string; json: unknown; mentions: string }>([
    { name: "not an object", json: "turns", mentions: "(root)" },
    { name: "no turns", json: { turns: [] }, mentions: "turns" },
    { name: "text not a list", json: { turns: [{ text: "Hi" }] }, mentions: "turns.0.text" },
    {
      name: "call without a name",
      json: { turns: [{ calls: [{ args: {} }] }] },
      mentions: "turns.0.calls.0.name",
    },
    {
      name: "args string that is not a JSON object",
      json: { turns: [{ calls: [{ name: "x", args: "[1]" }] }] },
      mentions: "turns.0.calls.0.args",
    },
    {
      name: "args a number",
      json: { turns: [{ calls: [{ name: "x", args: 3 }] }] },
      mentions: "turns.0.calls.0.args",
    },
  ])("rejects $name, naming where", ({ json, mentions }) => {
    const outcome = loadReplayScript(json);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("invalid_argument");
    expect(outcome.error.message).toContain(mentions);
  });
});

describe("playing turns", () => {
  it("plays turn i on the i-th request: text chunks, then calls", async () => {
    const model = createReplayModel({
      turns: [
        { text: ["Look", "ing."], calls: [{ name: "list_files", args: { path: "." } }] },
        { text: ["Done."] },
      ],
    });
    const request = { system: "", history: [], tools: [] };
    const first: ModelEvent[] = [];
    for await (const event of model.stream(request, never())) first.push(event);
    const second: ModelEvent[] = [];
    for await (const event of model.stream(request, never())) second.push(event);
    expect(first).toEqual([
      { type: "text", text: "Look" },
      { type: "text", text: "ing." },
      { type: "functionCall", call: { name: "list_files", args: { path: "." } } },
    ]);
    expect(second).toEqual([{ type: "text", text: "Done." }]);
    const error = await rejection(play({ turns: [] }, []));
    expect(error.code).toBe("bad_response");
  });

  it("a request past the end of the script is a bad_response", async () => {
    const model = createReplayModel({ turns: [{ text: ["only"] }] });
    for await (const _ of model.stream({ system: "", history: [], tools: [] }, never())) void _;
    const error = await rejection(
      (async () => {
        for await (const _ of model.stream({ system: "", history: [], tools: [] }, never())) void _;
      })(),
    );
    expect(error.message).toMatch(/1 turns; the agent asked for turn 2/);
  });

  it("an aborted signal stops the replay with cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await rejection(play({ turns: [{ text: ["x"] }] }, [], controller.signal))).code).toBe(
      "cancelled",
    );
  });

  it("generateJson answers the scripted structured answers in order, then refuses", async () => {
    const model = createReplayModel({ turns: [{}], json: [{ n: 1 }, { n: 2 }] });
    const ask = (): Promise<unknown> => model.generateJson({ system: "", prompt: "", schema: {} }, never());
    expect(await ask()).toEqual({ n: 1 });
    expect(await ask()).toEqual({ n: 2 });
    expect((await rejection(ask())).code).toBe("bad_response");
  });
});

describe("{{sha256:path}} placeholders", () => {
  const patchCall = {
    name: "safe_patch",
    args: { file_path: "src/a.ts", base_content_sha256: "{{sha256:src/a.ts}}" },
  };

  it.each<{ name: string; history: Message[]; expected: string }>([
    {
      name: "from read_file data",
      history: answered({ name: "read_file", envelope: okEnvelope(state("src/a.ts", "v1")) }),
      expected: sha("v1"),
    },
    {
      name: "from read_many_files files",
      history: answered({
        name: "read_many_files",
        envelope: okEnvelope({ files: [state("src/b.ts", "b"), state("src/a.ts", "many")], errors: [] }),
      }),
      expected: sha("many"),
    },
    {
      name: "from latest_file_state of a successful edit",
      history: answered(
        { name: "read_file", envelope: okEnvelope(state("src/a.ts", "v1")) },
        {
          name: "safe_patch",
          envelope: okEnvelope({
            message: "Patch applied successfully.",
            latest_file_state: state("src/a.ts", "v2"),
            applied: true,
          }),
        },
      ),
      expected: sha("v2"),
    },
    {
      name: "from latest_file_state of a state mismatch error",
      history: answered(
        { name: "read_file", envelope: okEnvelope(state("src/a.ts", "v1")) },
        {
          name: "safe_patch",
          envelope: errorEnvelope("state_mismatch", "State Mismatch: changed.", [], {
            latest_file_state: state("src/a.ts", "user edit"),
          }),
        },
      ),
      expected: sha("user edit"),
    },
    {
      name: "the newest state wins over an older read",
      history: answered(
        { name: "read_file", envelope: okEnvelope(state("src/a.ts", "old")) },
        { name: "read_file", envelope: okEnvelope(state("src/b.ts", "other")) },
        { name: "read_file", envelope: okEnvelope(state("src/a.ts", "new")) },
      ),
      expected: sha("new"),
    },
  ])("resolves $name", async ({ history, expected }) => {
    const events = await play({ turns: [{ calls: [patchCall] }] }, history);
    expect(events).toEqual([
      {
        type: "functionCall",
        call: { name: "safe_patch", args: { file_path: "src/a.ts", base_content_sha256: expected } },
      },
    ]);
  });

  it("resolves inside args given as JSON text and in nested values", async () => {
    const history = answered({ name: "read_file", envelope: okEnvelope(state("a.txt", "A")) });
    const events = await play(
      {
        turns: [
          {
            calls: [
              { name: "edit", args: '{"file_path":"a.txt","base_content_sha256":"{{sha256:a.txt}}"}' },
              { name: "note", args: { list: ["sha {{sha256:./a.txt}} here"] } },
            ],
          },
        ],
      },
      history,
    );
    expect(events.map((event) => (event.type === "functionCall" ? event.call.args : undefined))).toEqual([
      { file_path: "a.txt", base_content_sha256: sha("A") },
      { list: [`sha ${sha("A")} here`] },
    ]);
  });

  it.each<{ name: string; args: Record<string, unknown>; message: RegExp }>([
    {
      name: "a path with no state yet",
      args: { base_content_sha256: "{{sha256:missing.ts}}" },
      message: /missing\.ts.*no file state/,
    },
    { name: "an unknown placeholder kind", args: { x: "{{version:a.txt}}" }, message: /unknown placeholder/ },
  ])("refuses $name", async ({ args, message }) => {
    const history = answered({ name: "read_file", envelope: okEnvelope(state("a.txt", "A")) });
    const error = await rejection(play({ turns: [{ calls: [{ name: "edit", args }] }] }, history));
    expect(error.code).toBe("bad_response");
    expect(error.message).toMatch(message);
  });

  it("ignores responses that carry no file state", () => {
    const history = answered(
      { name: "list_files", envelope: okEnvelope({ entries: [{ name: "a", type: "file" }] }) },
      { name: "read_file", envelope: errorEnvelope("not_found", "No such file.") },
    );
    expect(latestFileStates(history).size).toBe(0);
  });

  it("drives the turn loop: read, then patch on the hash the read returned", async () => {
    const files = new Map([["src/a.ts", "const a = 1;\n"]]);
    const seen: FunctionCall[] = [];
    const tools: ToolRunner = {
      declarations: () => [],
      run: (call) => {
        seen.push(call);
        const path = String(call.args["file_path"]);
        const content = files.get(path) ?? "";
        if (call.name === "read_file") return Promise.resolve(okEnvelope(state(path, content)));
        if (call.args["base_content_sha256"] !== sha(content))
          return Promise.resolve(errorEnvelope("state_mismatch", "State Mismatch: stale."));
        files.set(path, "const a = 2;\n");
        return Promise.resolve(
          okEnvelope({
            message: "Patch applied successfully.",
            latest_file_state: state(path, "const a = 2;\n"),
            applied: true,
          }),
        );
      },
    };
    const script = loadReplayScript({
      turns: [
        { text: ["Reading."], calls: [{ name: "read_file", args: { file_path: "src/a.ts" } }] },
        {
          calls: [
            {
              name: "safe_patch",
              args: {
                file_path: "src/a.ts",
                unified_diff: "...",
                base_content_sha256: "{{sha256:src/a.ts}}",
              },
            },
          ],
        },
        { text: ["Changed a to 2."] },
      ],
    });
    if (!script.ok) throw new Error(script.error.message);
    const result = await runTurnLoop({
      model: createReplayModel(script.value),
      tools,
      system: "",
      history: [],
      prompt: [{ text: "set a to 2" }],
      signal: never(),
    });
    expect(result.status).toBe("done");
    expect(result.toolCalls.map((call) => `${call.name}:${String(call.ok)}`)).toEqual([
      "read_file:true",
      "safe_patch:true",
    ]);
    expect(seen[1]?.args["base_content_sha256"]).toBe(sha("const a = 1;\n"));
    expect(files.get("src/a.ts")).toBe("const a = 2;\n");
    expect(result.text).toBe("Reading.\n\nChanged a to 2.");
  });
});
