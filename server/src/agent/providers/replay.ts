// An offline Model that plays a recorded conversation, for the demo and for tests
// that need a model but not a network. Turn i of the script answers the i-th
// request. The script cannot know the files' hashes in advance, so string
// arguments may say `{{sha256:path}}`, resolved from the newest file state the
// tools have reported in the request's history.
import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod";
import { fail, succeed } from "../../shared/outcome.js";
import type { Outcome } from "../../shared/outcome.js";
import { ModelError } from "../model.js";
import type { GenerateRequest, JsonRequest, Message, Model, ModelEvent } from "../model.js";

const PLACEHOLDER = /\{\{(\w+):([^}]+)\}\}/g;

const replayCallSchema = z.object({
  name: z.string().min(1),
  // A string is JSON text, for scripts that keep the arguments as one literal.
  args: z.union([
    z.record(z.string(), z.unknown()),
    z.string().refine(isJsonObjectText, {
      message: "args given as a string must be a JSON object (placeholders allowed)",
    }),
  ]),
});

const replayTurnSchema = z.object({
  text: z.array(z.string()).optional(),
  calls: z.array(replayCallSchema).optional(),
});

export const replayScriptSchema = z.object({
  turns: z.array(replayTurnSchema).min(1),
  /** Answers to `generateJson`, in order (edit self-correction in the demo). */
  json: z.array(z.unknown()).optional(),
});

export type ReplayScript = z.infer<typeof replayScriptSchema>;
export type ReplayTurn = z.infer<typeof replayTurnSchema>;

export interface ReplayOptions {
  /** Pause between streamed pieces, so a demo looks like a live model. */
  chunkDelayMs?: number;
}

export function loadReplayScript(json: unknown): Outcome<ReplayScript> {
  const parsed = replayScriptSchema.safeParse(json);
  if (parsed.success) return succeed(parsed.data);
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`,
  );
  return fail("invalid_argument", `Invalid replay script: ${problems.join("; ")}`, [
    'Expected { "turns": [{ "text": ["..."], "calls": [{ "name": "read_file", "args": { ... } }] }] }.',
  ]);
}

export function createReplayModel(script: ReplayScript, options: ReplayOptions = {}): Model {
  let nextTurn = 0;
  let nextJson = 0;
  const pause = async (signal: AbortSignal): Promise<void> => {
    if (options.chunkDelayMs === undefined || options.chunkDelayMs <= 0) return;
    await sleep(options.chunkDelayMs, undefined, { signal }).catch(() => undefined);
  };

  return {
    name: "replay",

    async *stream(request: GenerateRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const index = nextTurn++;
      const turn = script.turns[index];
      if (turn === undefined) {
        throw new ModelError(
          "bad_response",
          `The replay script has ${script.turns.length} turns; the agent asked for turn ${index + 1}.`,
        );
      }
      const states = latestFileStates(request.history);
      for (const text of turn.text ?? []) {
        await pause(signal);
        throwIfAborted(signal);
        yield { type: "text", text };
      }
      for (const call of turn.calls ?? []) {
        await pause(signal);
        throwIfAborted(signal);
        yield { type: "functionCall", call: { name: call.name, args: resolveArgs(call.args, states) } };
      }
    },

    generateJson(_request: JsonRequest, signal: AbortSignal): Promise<unknown> {
      if (signal.aborted)
        return Promise.reject(new ModelError("cancelled", "The model request was cancelled."));
      const answers = script.json ?? [];
      if (nextJson >= answers.length) {
        return Promise.reject(
          new ModelError(
            "bad_response",
            `The replay script has ${answers.length} structured answers; the agent asked for one more.`,
          ),
        );
      }
      return Promise.resolve(answers[nextJson++]);
    },
  };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ModelError("cancelled", "The model request was cancelled.");
}

/**
 * sha256 of the newest state of each file found in the tools' answers: a read's
 * data, read_many_files' `files`, and `latest_file_state` of ok and error
 * envelopes alike (a state mismatch carries the state to retry from).
 */
export function latestFileStates(history: Message[]): Map<string, string> {
  const states = new Map<string, string>();
  const note = (value: unknown): void => {
    if (isRecord(value) && typeof value["file_path"] === "string" && typeof value["sha256"] === "string") {
      states.set(normalisePath(value["file_path"]), value["sha256"]);
    }
  };
  for (const message of history) {
    for (const part of message.parts) {
      if (!("functionResponse" in part)) continue;
      const data = part.functionResponse.response["data"];
      if (!isRecord(data)) continue;
      note(data);
      if (Array.isArray(data["files"])) data["files"].forEach(note);
      note(data["latest_file_state"]);
    }
  }
  return states;
}

function resolveArgs(
  args: Record<string, unknown> | string,
  states: Map<string, string>,
): Record<string, unknown> {
  if (typeof args === "string") return JSON.parse(resolveText(args, states)) as Record<string, unknown>;
  return resolveValue(args, states) as Record<string, unknown>;
}

function resolveValue(value: unknown, states: Map<string, string>): unknown {
  if (typeof value === "string") return resolveText(value, states);
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, states));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveValue(item, states)]));
  return value;
}

function resolveText(text: string, states: Map<string, string>): string {
  return text.replace(PLACEHOLDER, (_match, kind: string, path: string) => {
    if (kind !== "sha256") {
      throw new ModelError(
        "bad_response",
        `Replay script: unknown placeholder {{${kind}:${path}}}; only {{sha256:path}} exists.`,
      );
    }
    const sha = states.get(normalisePath(path.trim()));
    if (sha === undefined) {
      throw new ModelError(
        "bad_response",
        `Replay script: {{sha256:${path}}} has no file state in the conversation yet; read the file in an earlier turn.`,
      );
    }
    return sha;
  });
}

function normalisePath(path: string): string {
  return path.replace(/^\.\//, "");
}

/** Whether the text is a JSON object once every placeholder stands for a hash. */
function isJsonObjectText(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text.replace(PLACEHOLDER, "0".repeat(64)));
    return isRecord(parsed);
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
