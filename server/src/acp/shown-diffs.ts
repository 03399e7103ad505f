// A change's diffs between the live update and the session store: kept as they were sent (root-
// relative paths), and sent again by session/load as the same update. What comes back from the
// store is input: each diff is sized again by the live rules (a diff that fit then fits the same
// way, so it comes back unchanged; anything larger is cut or named), and words are kept short.
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk";
import type { ProposedChange } from "../review/proposal.js";
import type { ShownDiff } from "../sessions/format.js";
import { sizedDiff, UPDATE_DIFF_BUDGET, type SizedDiff } from "./diff-content.js";
import type { Locations } from "./updates.js";

/** Characters of the words that name a change too large to show (live writes one sentence). */
const MAX_NAMED_CHARS = 2_000;
/** Files listed as the update's locations, as live. */
const MAX_LOCATIONS = 20;

/** The sized diffs of a change (one per file, in order) as the store keeps them. */
export function shownOf(change: ProposedChange, sized: readonly SizedDiff[]): ShownDiff[] {
  const files = change.files && change.files.length > 0 ? change.files : [change];
  return sized.flatMap((d, i): ShownDiff[] => {
    const file_path = files[i]?.file_path;
    if (file_path === undefined) return [];
    const c = d.content;
    if (c.type === "diff")
      return [
        {
          file_path,
          old_text: c.oldText ?? null,
          new_text: c.newText,
          ...(d.location?.line != null ? { line: d.location.line } : {}),
        },
      ];
    if (c.type === "content" && c.content.type === "text") return [{ file_path, text: c.content.text }];
    return [];
  });
}

/** The update that showed these diffs live: its content and locations (the cuts' lines first). */
export function shownUpdate(
  files: readonly ShownDiff[],
  where: Locations,
): { content: ToolCallContent[]; locations: ToolCallLocation[] } {
  let room = UPDATE_DIFF_BUDGET;
  const sized = files.map((f): SizedDiff => {
    const one = sizedAgain(f, where.abs(f.file_path), room);
    room = Math.max(0, room - Buffer.byteLength(JSON.stringify(one.content)));
    return one;
  });
  const cuts = sized.flatMap((d) => (d.location?.line !== undefined ? [d.location] : []));
  const named = files
    .slice(0, MAX_LOCATIONS)
    .map((f) => ({ path: where.abs(f.file_path) }))
    .filter((l) => !cuts.some((c) => c.path === l.path));
  return { content: sized.map((d) => d.content), locations: [...cuts, ...named] };
}

function sizedAgain(f: ShownDiff, abs: string, room: number): SizedDiff {
  if ("text" in f)
    return {
      content: { type: "content", content: { type: "text", text: f.text.slice(0, MAX_NAMED_CHARS) } },
      location: { path: abs },
    };
  const again = sizedDiff(
    {
      file_path: f.file_path,
      before: f.old_text === null ? null : { content: f.old_text },
      after: f.new_text,
    },
    abs,
    room,
  );
  // Sent whole again: it was the cut it says it was, starting at its stored line.
  const whole = again.location === undefined && f.line !== undefined;
  return whole ? { ...again, location: { path: abs, line: f.line } } : again;
}
