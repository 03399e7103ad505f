// A stored session put into the live conversation: its history (compacted before each
// request, as any history), its usage, the files the model was shown, and its
// journal, so its runs can be reverted here.
import { addUsage } from "../agent/model.js";
import type { Conversation } from "../agent/conversation.js";
import type { Journal } from "../review/journal.js";
import { lastShownStates } from "./refresh.js";
import type { StoredSession } from "./session-reader.js";

export function loadIntoConversation(
  stored: StoredSession,
  conversation: Conversation,
  journal: Journal,
): void {
  // "Always allow" is the process's, not the conversation's: it is never stored, and a resume keeps it.
  const allowed = [...conversation.alwaysAllowed];
  conversation.reset();
  for (const tool of allowed) conversation.alwaysAllowed.add(tool);
  conversation.history = [...stored.history];
  addUsage(conversation.usage, stored.usage);
  for (const file of lastShownStates(stored.history).keys()) conversation.filesInContext.add(file);
  journal.load(stored.journal);
}
