// A stored session put into the live one: its history (compacted before each
// request, as any history), its usage, the files the model was shown, and its
// journal, so its runs can be reverted here.
import { addUsage } from "../agent/model.js";
import type { Session } from "../agent/session.js";
import type { Journal } from "../review/journal.js";
import { lastShownStates } from "./refresh.js";
import type { StoredSession } from "./session-reader.js";

export function loadIntoSession(stored: StoredSession, session: Session, journal: Journal): void {
  // "Always allow" is the process's, not the conversation's: it is never stored, and a resume keeps it.
  const allowed = [...session.alwaysAllowed];
  session.reset();
  for (const tool of allowed) session.alwaysAllowed.add(tool);
  session.history = [...stored.history];
  addUsage(session.usage, stored.usage);
  for (const file of lastShownStates(stored.history).keys()) session.filesInContext.add(file);
  journal.load(stored.journal);
}
