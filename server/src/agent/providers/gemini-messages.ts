// Our conversation in Gemini's shapes and back: messages as the SDK's contents (the assistant
// is "model", tool results travel as the user's, another provider's signed reasoning left out),
// a streamed chunk as our events (text, calls with their thought signatures, usage), and a
// structured answer as JSON. Knows nothing of keys, deadlines or retries (gemini-errors.ts).
import type { Content, GenerateContentResponse, Part as SdkPart } from "@google/genai";
import { isReasoningPart, ModelError } from "../model.js";
import type { Message, ModelEvent, Part, ReasoningPart } from "../model.js";
import { MalformedCall } from "./gemini-errors.js";

export function toContent(message: Message): Content {
  // Gemini's roles: the assistant is "model", and tool results travel as the user's.
  // Another provider's reasoning (signed for that provider) means nothing here.
  const parts = message.parts.flatMap((part) => (isReasoningPart(part) ? [] : [toSdkPart(part)]));
  return { role: message.role === "assistant" ? "model" : "user", parts };
}

function toSdkPart(part: Exclude<Part, ReasoningPart>): SdkPart {
  if ("text" in part) return { text: part.text };
  if ("functionCall" in part) {
    const { id, name, args } = part.functionCall;
    return {
      functionCall: { ...(id === undefined ? {} : { id }), name, args },
      ...(part.thoughtSignature === undefined ? {} : { thoughtSignature: part.thoughtSignature }),
    };
  }
  const { id, name, response } = part.functionResponse;
  return { functionResponse: { ...(id === undefined ? {} : { id }), name, response } };
}

export function eventsOf(chunk: GenerateContentResponse): ModelEvent[] {
  const candidate = chunk.candidates?.[0];
  if (candidate === undefined) {
    const blocked = chunk.promptFeedback?.blockReason;
    if (blocked !== undefined) {
      throw new ModelError("bad_response", `Gemini refused the prompt (${blocked}). Rephrase the request.`);
    }
    return [];
  }
  const events: ModelEvent[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall !== undefined) {
      const { id, name, args } = part.functionCall;
      if (name === undefined || name === "") {
        throw new ModelError("bad_response", "Gemini sent a function call without a name.");
      }
      events.push({
        type: "functionCall",
        call: { ...(id === undefined ? {} : { id }), name, args: args ?? {} },
        ...(part.thoughtSignature === undefined ? {} : { thoughtSignature: part.thoughtSignature }),
      });
    } else if (typeof part.text === "string" && part.text !== "" && part.thought !== true) {
      events.push({ type: "text", text: part.text });
    }
  }
  if (candidate.finishReason === "MALFORMED_FUNCTION_CALL") {
    throw new MalformedCall();
  }
  // The last chunk carries the request's totals.
  const usage = chunk.usageMetadata;
  if (candidate.finishReason !== undefined && usage?.promptTokenCount !== undefined) {
    events.push({
      type: "usage",
      usage: { input_tokens: usage.promptTokenCount, output_tokens: usage.candidatesTokenCount ?? 0 },
    });
  }
  return events;
}

export function parseJsonAnswer(response: GenerateContentResponse): unknown {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const text = parts
    .filter((part) => part.thought !== true)
    .map((part) => part.text ?? "")
    .join("");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ModelError(
      "bad_response",
      `Gemini's structured answer is not valid JSON: ${text.slice(0, 200)}`,
    );
  }
}
