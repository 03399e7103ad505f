// The same error, phrased for its reader. The tools speak to a model, which
// calls tools by name; on the command line the next step is a command. This is
// the one place where a tool's advice becomes a command's.
import type { Envelope } from "../tools/envelope.js";

/** Tool names and the phrases that use them, as a person at a shell would act on them. */
const PHRASES: [RegExp, string][] = [
  [/Call (\w+) again with arguments that match its schema\./g, "Run the command again with the arguments its --help shows."],
  [/Call safe_patch with file_path "([^"]+)"/g, 'Run lockstep apply-patch "$1"'],
  [/Call list_files to see which files exist\./g, "List the directory (ls) to see which files exist."],
  [/list_files on "([^"]*)" shows what is there/g, 'ls "$1" shows what is there'],
  [/use list_files to see its entries/gi, "list it (ls) to see its entries"],
  [/list_files on "([^"]*)"/g, 'ls "$1"'],
  [/use read_file to read it/g, "use lockstep read to read it"],
  [/(re-read the file|Re-read the file) with read_file/g, "$1 with lockstep read"],
  [/call read_file first/g, "run lockstep read first"],
  [/\bread_file\b/g, "lockstep read"],
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

/** The envelope with its message and suggestions phrased for the command line; the data is left as it is. */
export function forCommandLine(envelope: Envelope): Envelope {
  if (envelope.ok) return envelope;
  return { ...envelope, error: { ...envelope.error, message: rephrase(envelope.error.message), suggestions: envelope.error.suggestions.map(rephrase) } };
}
