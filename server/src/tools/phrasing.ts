// The same error, phrased for its reader. Tools speak to a model, which calls
// tools by name; a person at a shell acts with commands and options. Messages are
// written once, for the model (the engine's among them); for another reader they
// pass through here, where a tool's advice becomes a command's. The reader is a
// parameter of the tool context (`ToolContext.reader`), applied by invokeTool.
import type { Envelope } from "./envelope.js";

/** Who reads a tool's answer: a model (tool names, parameters) or a person at a shell (commands, options). */
export type Reader = "model" | "shell";

/** Tool names and the phrases that use them, as a person at a shell would act on them. */
const PHRASES: [RegExp, string][] = [
  [/Call safe_patch with file_path "([^"]+)"/g, 'Run lockstep apply-patch "$1"'],
  [/Call list_files to see which files exist\./g, "List the directory (ls) to see which files exist."],
  [/list_files on "([^"]*)" shows what is there/g, 'ls "$1" shows what is there'],
  [/use list_files to see its entries/gi, "list it (ls) to see its entries"],
  [/list_files on "([^"]*)"/g, 'ls "$1"'],
  [/use read_file to read it/g, "use lockstep read to read it"],
  [/(re-read the file|Re-read the file) with read_file/g, "$1 with lockstep read"],
  [/call read_file first/g, "run lockstep read first"],
  [/\bread_many_files\b/g, "lockstep read"],
  [/\bread_file\b/g, "lockstep read"],
  [/\bsearch_files\b/g, "lockstep search"],
  [/\bfind_files\b/g, "lockstep find"],
  [/\bapply_edit_blocks\b/g, "lockstep apply-blocks"],
  [/\bsafe_patch\b/g, "lockstep apply-patch"],
  [/\bwrite_file\b/g, "a write of the whole file"],
  [/\bedit tool\b/g, "lockstep edit"],
  [/base_content_sha256/g, "--base-sha256"],
  [/`?\bunified_diff\b`?/g, "the diff (stdin or --diff)"],
  [/`?\bfile_path\b`?/g, "FILE"],
  [/\bold_string\b/g, "--old"],
  [/\bnew_string\b/g, "--new"],
  [/\bexpected_replacements\b/g, "--expected-replacements"],
  [/latest_file_state \(attached\)/g, "latest_file_state (in this answer)"],
];

function rephrase(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PHRASES) out = out.replace(pattern, replacement);
  return out;
}

/** The envelope with its message and suggestions phrased for `reader`; the data is left as it is. */
export function phrasedFor(envelope: Envelope, reader: Reader): Envelope {
  if (envelope.ok || reader === "model") return envelope;
  return {
    ...envelope,
    error: {
      ...envelope.error,
      message: rephrase(envelope.error.message),
      suggestions: envelope.error.suggestions.map(rephrase),
    },
  };
}
