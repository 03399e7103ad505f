// What one server process remembers about the conversation: the files the
// model has seen, the tools the user allowed for the session, the history.
// Held in memory only; nothing is persisted, and a restart forgets it all.
import type { SessionContext } from "../tools/tool.js";
import type { Message, Usage } from "./model.js";

export class Session implements SessionContext {
  readonly filesInContext = new Set<string>();
  readonly seenSha256 = new Map<string, string>();
  /** Tools the user chose "Always allow … this session" for. */
  readonly alwaysAllowed = new Set<string>();
  history: Message[] = [];
  /** Tokens the provider counted over every run of this session. */
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
