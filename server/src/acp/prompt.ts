// An ACP prompt (content blocks) as lockstep's prompt text: text as it is,
// links to files inside the session's cwd as `@path` mentions (expanded into
// versioned file states like any mention), embedded text resources quoted.
// A file outside the cwd is refused before anything is read.
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { Sandbox } from "../workspace/sandbox.js";

export type PromptText = { ok: true; text: string } | { ok: false; message: string };

/** A file URI's path inside the sandbox (and whether it is a folder), or why it is not one. */
async function fileInside(
  uri: string,
  sandbox: Sandbox,
): Promise<{ rel: string; folder: boolean } | { outside: string } | undefined> {
  if (!uri.startsWith("file:")) return undefined;
  let abs: string;
  try {
    abs = fileURLToPath(uri);
  } catch {
    return { outside: `${uri} is not a usable file URI` };
  }
  const resolved = await sandbox.resolve(abs, "read");
  if (resolved.ok) return { rel: resolved.value.rel, folder: false };
  // A folder inside the cwd is not a file to read, but the user means it: it is named as a folder.
  const folder = await sandbox.resolve(abs, "list");
  if (folder.ok) return { rel: folder.value.rel, folder: true };
  return { outside: `${abs}: ${resolved.error.message.replace(/\.$/, "")}` };
}

/** The lines a URI's fragment names: `#L2`, `#L2:5` or `#L2-5` (Zed and VS Code spell ranges so). */
export function linesOf(uri: string): { from: number; to: number } | undefined {
  const match = /#L(\d{1,9})(?:[:-]L?(\d{1,9}))?$/.exec(uri);
  if (!match) return undefined;
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : Number(match[2]);
  return from >= 1 && to >= from ? { from, to } : undefined;
}

/** A linked or embedded path: a file as a mention, a folder as words the model can act on. */
function named(file: { rel: string; folder: boolean }): string {
  return file.folder ? `the folder "${file.rel}" (see what it holds with list_files)` : mention(file.rel);
}

/** `@path` for a mention; a path the mention syntax cannot carry (spaces) is named in words instead. */
function mention(rel: string): string {
  return /^[\w.\-/]+$/.test(rel) ? `@${rel}` : `the file "${rel}" (read it with read_file)`;
}

export async function promptText(blocks: readonly ContentBlock[], sandbox: Sandbox): Promise<PromptText> {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "resource_link") {
      const file = await fileInside(block.uri, sandbox);
      if (file && "outside" in file)
        return {
          ok: false,
          message: `The prompt links ${file.outside}. lockstep reads only files inside the session's cwd; nothing was read.`,
        };
      parts.push(file ? named(file) : `(linked: ${block.title ?? block.name} <${block.uri}>)`);
    } else if (block.type === "resource") {
      const resource = block.resource;
      const file = await fileInside(resource.uri, sandbox);
      if (file && "outside" in file)
        return {
          ok: false,
          message: `The prompt embeds ${file.outside}. lockstep reads only files inside the session's cwd; nothing was read.`,
        };
      if (!("text" in resource)) {
        parts.push(
          file ? named(file) : `(a binary resource <${resource.uri}> was attached; lockstep reads text only)`,
        );
        continue;
      }
      // A file is mentioned, so the model gets its versioned state (read through the editor) to edit from.
      const lines = linesOf(resource.uri);
      if (file && lines && !file.folder) {
        // A selection: the text the user selected, as sent, with the file mentioned for its state.
        const which = lines.from === lines.to ? `line ${lines.from}` : `lines ${lines.from}-${lines.to}`;
        parts.push(
          `${mention(file.rel)} (the user's selection is ${which} of ${file.rel}:\n\`\`\`\n${resource.text}\n\`\`\`\n)`,
        );
      } else
        parts.push(file ? named(file) : `Context from <${resource.uri}>:\n\`\`\`\n${resource.text}\n\`\`\``);
    } else {
      return {
        ok: false,
        message: `The prompt holds ${block.type === "image" ? "an image" : "audio"}, which lockstep does not take (promptCapabilities says so); send text and files.`,
      };
    }
  }
  const text = parts.join(" ").trim();
  return text === "" ? { ok: false, message: "The prompt is empty: say what to do." } : { ok: true, text };
}
