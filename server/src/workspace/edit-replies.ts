// What the editor's answer to an edit means when it did not take the edit: a
// failure naming what happened and the next step.
import { fail, type ErrorCode, type Outcome } from "../shared/outcome.js";
import type { EditReply } from "./editor-link.js";

/** The failure an editor's reply stands for, or undefined when it applied the edit. */
export function replyFailure(reply: EditReply, rel: string): Outcome<never> | undefined {
  if (reply.timedOut) {
    return fail(
      "timeout",
      "Timeout: the editor did not answer the edit in time. It may still apply it, so the file's state is uncertain.",
      ["Read the file again before the next change; its sha256 tells what the buffer holds."],
    );
  }
  if (reply.declined)
    return fail(
      "rejected",
      `Rejected: the user declined the edit to ${rel} in the editor's own prompt. Nothing was applied.`,
      ["Ask the user what they want instead; do not retry the same change."],
    );
  if (!reply.applied && reply.refused) {
    return fail(
      "permission_denied",
      `Permission Denied: the editor cannot take this change to ${rel}: ${reply.reason ?? "it refused it"}. Nothing was applied.`,
      [
        "Tell the user why it could not land; do not send it again until they have done what the reason asks.",
      ],
    );
  }
  if (!reply.applied) {
    return fail(
      "state_mismatch",
      `State Mismatch: the editor refused the edit${reply.reason ? ` (${reply.reason})` : ""}; the buffer most likely changed meanwhile. Nothing was applied.`,
      ["Retry from the latest file state attached here."],
    );
  }
  return undefined;
}

/** A second edit to a buffer whose first the editor claimed but never reported: not sent. */
export function unreportedEdit(rel: string, waitMs: number): Outcome<never> {
  return fail(
    "state_mismatch",
    `State Mismatch: the editor answered that it applied lockstep's previous edit to ${rel}, but has not reported the change ` +
      `(no didChange within ${waitMs} ms), so what its buffer holds is unconfirmed. This change was not sent.`,
    [
      "Read the file again and rebuild the change from what the editor reports. If this repeats, the editor reports edits as applied without applying them.",
    ],
  );
}

/** An edit claimed on a file that was not open, neither opened nor saved since: the next one is not sent. */
export function unconfirmedClosedClaim(rel: string, waitMs: number): Outcome<never> {
  return fail(
    "state_mismatch",
    `State Mismatch: the editor answered that it applied lockstep's previous edit to ${rel}, a file it did not have open, but neither opened it ` +
      `nor saved it (nothing within ${waitMs} ms), so what it holds for that file is unconfirmed. This change was not sent.`,
    [
      `Ask the user to open ${rel} in the editor (or save it), then read it again and rebuild the change from what it shows.`,
      'If the opened buffer lacks the previous edit, the editor reports edits as applied without applying them; the closedFileEdits setting "disk" avoids this.',
    ],
  );
}

/** The file is no longer the text the change was built on. */
export function notTheBase(rel: string): Outcome<never> {
  return fail(
    "state_mismatch",
    `State Mismatch: ${rel} is not the text the change was built on (the editor or another program changed it). Nothing was applied.`,
    ["Read the file again and rebuild the change from its latest state."],
  );
}

/** A file that is nowhere (disk, buffer, claim), with the names that look like it. */
export function fileNotFound(rel: string, suggestions: readonly string[]): Outcome<never> {
  return fail(
    "not_found",
    `File not found: ${rel}.` +
      (suggestions.length ? ` Did you mean ${suggestions.map((s) => `\`${s}\``).join(", ")}?` : ""),
    suggestions.length
      ? suggestions.map((s) => `Did you mean ${s}?`)
      : ["Call list_files to see which files exist."],
  );
}

/** A file lockstep created and meant to remove on a revert, left where it is, and why. */
export function leftInPlace(code: ErrorCode, rel: string, why: string): Outcome<never> {
  return fail(code, `${rel} was left in place: ${why}.`, [`Delete ${rel} yourself if you do not want it.`]);
}
