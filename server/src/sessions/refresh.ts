// After a resume, no stale copy is presented as current: every file whose state
// the stored conversation showed the model is read again, and each one that
// moved (or went) is named in a note before the next prompt, with its current
// state. The history's compaction then turns the older copies into markers that
// point at the new one.
import type { Message } from "../agent/model.js";

interface ShownState {
  file_path: string;
  sha256: string;
}

const isShown = (v: unknown): v is ShownState & { content: string } => {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r["file_path"] === "string" && typeof r["sha256"] === "string" && typeof r["content"] === "string"
  );
};

function collect(value: unknown, out: Map<string, string>, depth = 0): void {
  if (depth > 5 || typeof value !== "object" || value === null) return;
  if (isShown(value)) {
    out.set(value.file_path, value.sha256);
    return;
  }
  for (const child of Array.isArray(value) ? value : Object.values(value)) collect(child, out, depth + 1);
}

/** The last sha256 the history showed of each file, in the order the files were last seen. */
export function lastShownStates(history: readonly Message[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const message of history) {
    for (const part of message.parts) {
      if ("functionResponse" in part) collect(part.functionResponse.response, out);
      else if ("text" in part && part.text.includes('{"file_path":')) {
        for (const line of part.text.split("\n")) {
          if (!line.startsWith('{"file_path":')) continue;
          try {
            collect(JSON.parse(line), out);
          } catch {
            // not a state
          }
        }
      }
    }
  }
  return out;
}

type ReadEnvelope =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string } };

/** The note to put before the first prompt after a resume, or "" when every file is as the model saw it. */
export async function changedFilesNote(
  history: readonly Message[],
  read: (file: string) => Promise<unknown>,
): Promise<string> {
  const lines: string[] = [];
  for (const [file, sha] of lastShownStates(history)) {
    const result = (await read(file)) as ReadEnvelope;
    if (result.ok) {
      if (result.data["sha256"] !== sha) lines.push(JSON.stringify(result.data));
    } else if (result.error.code === "not_found") lines.push(`(${file} no longer exists.)`);
    else lines.push(`(${file} cannot be read now: ${result.error.message})`);
  }
  if (lines.length === 0) return "";
  return `This conversation was resumed, and these files changed since you last saw them; the copies shown earlier are out of date. Their current states:\n${lines.join("\n")}\n\n`;
}
