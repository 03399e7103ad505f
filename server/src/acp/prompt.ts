// An ACP prompt (content blocks) as lockstep's prompt text: text as it is,
// links to files inside the session's cwd as `@path` mentions (expanded into
// versioned file states like any mention), embedded text resources quoted.
// A file outside the cwd is refused before anything is read.
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { Sandbox } from "../workspace/sandbox.js";

export type PromptText = { ok: true; text: string } | { ok: false; message: string };

/** A file URI's path inside the sandbox, or why it is not one. */
async function fileInside(uri: string, sandbox: Sandbox): Promise<{ rel: string } | { outside: string } | undefined> {
  if (!uri.startsWith("file:")) return undefined;
  let abs: string;
  try {
    abs = fileURLToPath(uri);
  } catch {
    return { outside: `${uri} is not a usable file URI` };
  }
  const resolved = await sandbox.resolve(abs, "read");
  return resolved.ok ? { rel: resolved.value.rel } : { outside: `${abs}: ${resolved.error.message}` };
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
      if (file && "outside" in file) return { ok: false, message: `The prompt links ${file.outside}. lockstep reads only files inside the session's cwd; nothing was read.` };
      parts.push(file ? mention(file.rel) : `(linked: ${block.title ?? block.name} <${block.uri}>)`);
    } else if (block.type === "resource") {
      const resource = block.resource;
      const file = await fileInside(resource.uri, sandbox);
      if (file && "outside" in file) return { ok: false, message: `The prompt embeds ${file.outside}. lockstep reads only files inside the session's cwd; nothing was read.` };
      if (!("text" in resource)) {
        parts.push(file ? mention(file.rel) : `(a binary resource <${resource.uri}> was attached; lockstep reads text only)`);
        continue;
      }
      // A file is mentioned, so the model gets its versioned state (read through the editor) to edit from.
      parts.push(file ? mention(file.rel) : `Context from <${resource.uri}>:\n\`\`\`\n${resource.text}\n\`\`\``);
    } else {
      return { ok: false, message: `The prompt holds ${block.type === "image" ? "an image" : "audio"}, which lockstep does not take (promptCapabilities says so); send text and files.` };
    }
  }
  const text = parts.join(" ").trim();
  return text === "" ? { ok: false, message: "The prompt is empty: say what to do." } : { ok: true, text };
}
