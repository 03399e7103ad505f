// Our conversation as a Messages API request: pure, no SDK at run time (its types only).
// What the API insists on, and the turn loop's shapes do not say:
// - the tool results that answer one assistant message go back in ONE user message, first in it,
//   each with the tool_use id it answers, `is_error` when the call failed;
// - consecutive messages of one role are one message (a tool answer then the user's next words);
// - thinking blocks go back exactly as received, in their place, signatures included;
// - prompt-cache breakpoints (at most four): the tools, the system prompt, the end of the
//   previous request's conversation (so its cached prefix is read even when a turn added many
//   blocks) and the end of this one (written for the next request);
// - thinking is signed for the model that wrote it: another model's (a session resumed with a
//   different `model`) is left out, which the API accepts for the turns before the last.
import type Anthropic from "@anthropic-ai/sdk";
import {
  isReasoningPart,
  type FunctionDeclaration,
  type GenerateRequest,
  type Message,
  type Part,
} from "../model.js";

type ContentBlock = Anthropic.Messages.ContentBlockParam;
type MessageParam = Anthropic.Messages.MessageParam;

/** `off`, `adaptive`, or a budget of thinking tokens (the older models' form); undefined: the model's default. */
export type ThinkingSetting = "off" | "adaptive" | number;
export type Effort = "low" | "medium" | "high" | "xhigh" | "max";

export interface RequestShape {
  model: string;
  maxOutputTokens: number;
  thinking?: ThinkingSetting | undefined;
  effort?: Effort | undefined;
  /** Prompt-cache breakpoints; on unless turned off (the bench compares). */
  cache: boolean;
}

const EPHEMERAL = { type: "ephemeral" } as const;

export function buildMessagesRequest(
  request: GenerateRequest,
  shape: RequestShape,
): Anthropic.Messages.MessageCreateParamsStreaming {
  const tools = request.tools.map(toTool);
  const last = tools[tools.length - 1];
  if (shape.cache && last !== undefined) tools[tools.length - 1] = { ...last, cache_control: EPHEMERAL };
  const messages = toMessages(request.history, shape.model);
  if (shape.cache) markCacheBreakpoints(messages);
  return {
    model: shape.model,
    max_tokens: shape.maxOutputTokens,
    stream: true,
    messages,
    ...(request.system === ""
      ? {}
      : {
          system: [
            { type: "text", text: request.system, ...(shape.cache ? { cache_control: EPHEMERAL } : {}) },
          ],
        }),
    ...(tools.length === 0 ? {} : { tools }),
    ...thinkingParams(shape),
  };
}

/** What the settings ask of the model's thinking; nothing at all when unset (the model's default). */
export function thinkingParams(shape: Pick<RequestShape, "thinking" | "effort">): {
  thinking?: Anthropic.Messages.ThinkingConfigParam;
  output_config?: Anthropic.Messages.OutputConfig;
} {
  const { thinking, effort } = shape;
  const config: Anthropic.Messages.ThinkingConfigParam | undefined =
    thinking === undefined
      ? undefined
      : thinking === "off"
        ? { type: "disabled" }
        : thinking === "adaptive"
          ? { type: "adaptive" }
          : { type: "enabled", budget_tokens: thinking };
  return {
    ...(config === undefined ? {} : { thinking: config }),
    ...(effort === undefined ? {} : { output_config: { effort } }),
  };
}

function toTool(declaration: FunctionDeclaration): Anthropic.Messages.Tool {
  return {
    name: declaration.name,
    description: declaration.description,
    input_schema: {
      type: "object",
      ...declaration.parametersJsonSchema,
    } as Anthropic.Messages.Tool.InputSchema,
  };
}

/** The API accepts tool_use ids of letters, digits, `_` and `-`; a history from another provider may hold others, or none. */
function toolId(id: string | undefined, fallback: string): string {
  const clean = (id ?? "").replace(/[^A-Za-z0-9_-]/g, "_");
  return clean === "" ? fallback : clean;
}

export function toMessages(history: readonly Message[], model: string): MessageParam[] {
  const out: MessageParam[] = [];
  // The ids of the last assistant message's calls, in order: an answer without an id takes the next.
  let pending: string[] = [];
  history.forEach((message, m) => {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks: ContentBlock[] = [];
    if (role === "assistant") pending = [];
    message.parts.forEach((part, p) => {
      if (isReasoningPart(part) && part.model !== undefined && part.model !== model) return;
      const block = toBlock(part, `toolu_${m}_${p}`, pending);
      if (block !== undefined) blocks.push(block);
    });
    if (blocks.length === 0) return;
    const previous = out[out.length - 1];
    if (previous?.role === role) {
      // One message per role in a row; tool results stay first in a user message.
      const merged = [...(previous.content as ContentBlock[]), ...blocks];
      previous.content =
        role === "user"
          ? [...merged.filter(isToolResult), ...merged.filter((b) => !isToolResult(b))]
          : merged;
    } else {
      out.push({ role, content: blocks });
    }
  });
  return out;
}

function isToolResult(block: ContentBlock): boolean {
  return block.type === "tool_result";
}

function toBlock(part: Part, fallbackId: string, pending: string[]): ContentBlock | undefined {
  if ("text" in part) return part.text === "" ? undefined : { type: "text", text: part.text };
  if ("thinking" in part) return { type: "thinking", thinking: part.thinking, signature: part.signature };
  if ("redactedThinking" in part) return { type: "redacted_thinking", data: part.redactedThinking };
  if ("functionCall" in part) {
    const id = toolId(part.functionCall.id, fallbackId);
    pending.push(id);
    return { type: "tool_use", id, name: part.functionCall.name, input: part.functionCall.args };
  }
  const { id, response } = part.functionResponse;
  const answered = id === undefined ? pending.shift() : toolId(id, fallbackId);
  const at = answered === undefined ? -1 : pending.indexOf(answered);
  if (at >= 0) pending.splice(at, 1);
  return {
    type: "tool_result",
    tool_use_id: answered ?? fallbackId,
    content: JSON.stringify(response),
    // lockstep's tools answer with an envelope; ok: false is a failed call the model should see as one.
    ...(response["ok"] === false ? { is_error: true } : {}),
  };
}

/**
 * The last block of the last message (this request's whole prefix, cached for the next) and of
 * the user message before the last assistant one (the prefix the previous request cached).
 */
function markCacheBreakpoints(messages: MessageParam[]): void {
  const userIndexes = messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  for (const i of userIndexes.slice(-2)) {
    const content = messages[i]!.content as ContentBlock[];
    const lastBlock = content[content.length - 1];
    if (lastBlock !== undefined && (lastBlock.type === "text" || lastBlock.type === "tool_result")) {
      content[content.length - 1] = { ...lastBlock, cache_control: EPHEMERAL };
    }
  }
}
