// The conversation one agent holds in memory: the history, the files the model has seen (and
// the sha256 it saw), the tools the user allowed "always" for it, the tokens counted. The
// session store (sessions/) keeps a copy on disk turn by turn through `SessionSink`, and a
// resume loads one back into it (sessions/resume.ts); "always allow" is never stored.
import type { ConversationContext } from "../tools/tool.js";
import type { Message, Usage } from "./model.js";

export class Conversation implements ConversationContext {
  readonly filesInContext = new Set<string>();
  readonly seenSha256 = new Map<string, string>();
  /** Tools the user chose "Always allow … this session" for. */
  readonly alwaysAllowed = new Set<string>();
  history: Message[] = [];
  /** Tokens the provider counted over every run of this conversation. */
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0 };
  /** Moves on every reset: a run that began before it must not write its history back. */
  generation = 0;

  reset(): void {
    this.generation++;
    this.filesInContext.clear();
    this.seenSha256.clear();
    this.alwaysAllowed.clear();
    this.history = [];
    this.usage.input_tokens = 0;
    this.usage.output_tokens = 0;
    delete this.usage.cache_read_input_tokens;
    delete this.usage.cache_creation_input_tokens;
  }

  facts(): Record<string, unknown> {
    return {
      files_in_context: [...this.filesInContext].sort(),
      always_allowed: [...this.alwaysAllowed].sort(),
      history_messages: this.history.length,
      usage: { ...this.usage },
    };
  }
}
