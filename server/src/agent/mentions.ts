// `@path`, `@dir/` and `@glob` in a prompt become versioned file states before
// the model sees the prompt, so it can patch at once without reading first.
import type { Envelope } from "../tools/envelope.js";
import { invokeTool } from "../tools/registry.js";
import type { ToolContext } from "../tools/tool.js";

/** `@` at the start or after whitespace, then a path-like word (`\@` escapes). */
const MENTION = /(?<=^|\s)@([\w.\-/*?[\]{}]+[\w/*}\]])/g;

export function findMentions(prompt: string): string[] {
  const out: string[] = [];
  for (const m of prompt.matchAll(MENTION)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

function asPattern(mention: string): string {
  return mention.endsWith("/") ? `${mention}**/*` : mention;
}

export interface ExpandedPrompt {
  text: string;
  files: string[];
  errors: { file_path: string; message: string }[];
}

/** The prompt followed by the mentioned files' states, as the model will read them. */
export async function expandMentions(prompt: string, ctx: ToolContext): Promise<ExpandedPrompt> {
  const mentions = findMentions(prompt);
  if (mentions.length === 0) return { text: prompt, files: [], errors: [] };
  const result: Envelope = await invokeTool("read_many_files", { file_paths: mentions.map(asPattern) }, ctx);
  if (!result.ok)
    return {
      text: prompt,
      files: [],
      errors: [{ file_path: mentions.join(" "), message: result.error.message }],
    };
  const files = (result.data["files"] ?? []) as { file_path: string }[];
  const errors = (result.data["errors"] ?? []) as { file_path: string; message: string }[];
  const blocks = [
    prompt,
    "",
    "Files mentioned above, with their current versioned state (use the sha256 as base_content_sha256 when you edit them):",
  ];
  for (const f of files) blocks.push(JSON.stringify(f));
  for (const e of errors) blocks.push(`Could not read ${e.file_path}: ${e.message}`);
  return { text: blocks.join("\n"), files: files.map((f) => f.file_path), errors };
}
