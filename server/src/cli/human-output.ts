// What a tool command prints for a person at a terminal: what changed (a coloured
// diff), what was found, or why it was refused and what to do next. Programs get the
// JSON envelope instead (stdout not a terminal, or --json); main.ts decides which.
// Reads only the envelope: no tool is called again to say what happened.
import type { Envelope } from "../tools/envelope.js";

export interface HumanStyle {
  color: boolean;
}

/** Colour when standard output is a terminal and NO_COLOR is not set (no-color.org: any non-empty value). */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): HumanStyle {
  return { color: stream.isTTY === true && (env["NO_COLOR"] ?? "") === "" };
}

export type Paint = (s: string) => string;

/** The colours, or none: the one painter of every command's output for a person. */
export function painter(style: HumanStyle): {
  green: Paint;
  red: Paint;
  dim: Paint;
  bold: Paint;
  yellow: Paint;
} {
  const code =
    (n: number): Paint =>
    (s) =>
      style.color ? `\x1b[${n}m${s}\x1b[0m` : s;
  return { green: code(32), red: code(31), dim: code(2), bold: code(1), yellow: code(33) };
}

type FileState = { file_path?: string; version?: number | null; sha256?: string; content?: string };

const asRecord = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const asArray = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(asRecord) : []);
const short = (sha: unknown): string => (typeof sha === "string" ? sha.slice(0, 12) : "?");
const plural = (n: number, word: string): string =>
  `${n} ${word}${n === 1 ? "" : /(ch|sh|s|x)$/.test(word) ? "es" : "s"}`;

/** The file's identity in one line: path, sha256 (short: the full one is in --json), version when open in an editor. */
function stateLine(state: FileState, p: ReturnType<typeof painter>): string {
  const lines =
    typeof state.content === "string"
      ? state.content.split("\n").length - (state.content.endsWith("\n") ? 1 : 0)
      : undefined;
  const parts = [
    `sha256 ${short(state.sha256)}…`,
    ...(typeof state.version === "number" ? [`version ${state.version}`] : []),
    ...(lines !== undefined ? [plural(lines, "line")] : []),
  ];
  return `${p.bold(state.file_path ?? "?")}  ${p.dim(parts.join(" · "))}`;
}

function colorDiff(diff: string, p: ReturnType<typeof painter>): string {
  return diff
    .replace(/\n$/, "")
    .split("\n")
    .filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "))
    .map((l) =>
      l.startsWith("+") ? p.green(l) : l.startsWith("-") ? p.red(l) : l.startsWith("@@") ? p.dim(l) : l,
    )
    .join("\n");
}

function readOutput(data: Record<string, unknown>, p: ReturnType<typeof painter>): string[] {
  const files = "files" in data ? asArray(data["files"]) : [data];
  const out: string[] = [];
  for (const f of files as FileState[]) {
    out.push(stateLine(f, p), typeof f.content === "string" ? f.content.replace(/\n$/, "") : "", "");
  }
  for (const e of asArray(data["errors"]))
    out.push(p.red(`✘ ${String(e["file_path"] ?? "")}: ${String(e["message"] ?? "")}`));
  return out;
}

function searchOutput(data: Record<string, unknown>, p: ReturnType<typeof painter>): string[] {
  const matches = asArray(data["matches"]);
  const out = matches.map(
    (m) => `${p.bold(String(m["file_path"]))}${p.dim(`:${String(m["line"])}:`)} ${String(m["text"] ?? "")}`,
  );
  const files = new Set(matches.map((m) => m["file_path"])).size;
  const searched =
    typeof data["files_searched"] === "number" ? `, ${plural(data["files_searched"], "file")} searched` : "";
  out.push(
    p.dim(
      `${plural(matches.length, "match")} in ${plural(files, "file")}${searched}${data["truncated"] === true ? "; more matched (raise --max-results)" : ""}`,
    ),
  );
  return out;
}

function findOutput(data: Record<string, unknown>, p: ReturnType<typeof painter>): string[] {
  const files = Array.isArray(data["files"]) ? data["files"].map(String) : [];
  return [
    ...files,
    p.dim(
      `${plural(files.length, "file")}${data["truncated"] === true ? "; more matched (narrow the pattern or --path)" : ""}`,
    ),
  ];
}

function blocksOutput(data: Record<string, unknown>, p: ReturnType<typeof painter>): string[] {
  const out = asArray(data["blocks"]).map((b) => {
    const landed = b["status"] === "applied" || b["status"] === "would_apply";
    return `${landed ? p.green("✔") : p.red("✘")} ${p.bold(String(b["file_path"] ?? "?"))}: ${String(b["message"] ?? b["status"] ?? "")}`;
  });
  const changed = Array.isArray(data["files_changed"]) ? data["files_changed"].map(String) : [];
  out.push(p.dim(changed.length > 0 ? `Changed: ${changed.join(", ")}` : "No file changed."));
  if (Array.isArray(data["staged"]))
    out.push(p.dim(`Staged with git add: ${data["staged"].map(String).join(", ")}`));
  if (typeof data["stage_error"] === "string") out.push(p.red(data["stage_error"]));
  return out;
}

/** A change's result (apply-patch, edit): the message, the diff when there is one, the file's new identity. */
function changeOutput(data: Record<string, unknown>, p: ReturnType<typeof painter>): string[] {
  const out = [
    `${data["applied"] === false ? p.yellow("·") : p.green("✔")} ${String(data["message"] ?? "Done.")}`,
  ];
  if (typeof data["diff"] === "string" && data["diff"] !== "") out.push(colorDiff(data["diff"], p));
  const state = asRecord(data["latest_file_state"]) as FileState;
  if (state.file_path !== undefined) out.push(p.dim(`now: `) + stateLine(state, p));
  return out;
}

/** A refusal: why, what to do next, and the file's identity as it is now (never its whole content). */
function refusalOutput(envelope: Extract<Envelope, { ok: false }>, p: ReturnType<typeof painter>): string[] {
  const out = [p.red(`✘ ${envelope.error.message}`)];
  for (const s of envelope.error.suggestions) out.push(`  → ${s}`);
  const state = asRecord(envelope.data?.["latest_file_state"]) as FileState;
  if (state.file_path !== undefined)
    out.push(
      p.dim("The file as it is now: ") +
        stateLine(state, p) +
        p.dim(` (lockstep read ${state.file_path} prints it)`),
    );
  const blocks = envelope.data ? blocksOutput(envelope.data, p) : [];
  if (envelope.data && "blocks" in envelope.data) out.push(...blocks);
  return out;
}

/** The person's view of one command's envelope, ending with a newline. */
export function formatHuman(command: string, envelope: Envelope, style: HumanStyle): string {
  const p = painter(style);
  if (!envelope.ok) return refusalOutput(envelope, p).join("\n") + "\n";
  const data = envelope.data;
  const lines =
    command === "read"
      ? readOutput(data, p)
      : command === "search"
        ? searchOutput(data, p)
        : command === "find"
          ? findOutput(data, p)
          : command === "apply-blocks"
            ? blocksOutput(data, p)
            : changeOutput(data, p);
  return lines.join("\n").replace(/\n+$/, "") + "\n";
}
