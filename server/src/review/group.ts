// A change across files as the user decides it: one ProposedChange whose
// `files` are each file's own change. Its diff and counts sum up every file,
// computed only when a prompt or a client looks (as each file's are).
import type { ProposedChange } from "./proposal.js";

export function groupChange(files: ProposedChange[]): ProposedChange {
  const first = files[0];
  if (!first) throw new Error("groupChange: a change across files needs at least one file");
  return {
    tool: first.tool,
    file_path: first.file_path,
    uri: first.uri,
    before: first.before,
    after: first.after,
    ...(first.job_id !== undefined ? { job_id: first.job_id } : {}),
    files,
    get diff() {
      return files.map((f) => f.diff).join("");
    },
    get added() {
      return files.reduce((n, f) => n + f.added, 0);
    },
    get removed() {
      return files.reduce((n, f) => n + f.removed, 0);
    },
  };
}
