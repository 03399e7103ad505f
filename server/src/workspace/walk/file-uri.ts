// A walked file's URI, to ask whether the editor holds it: pathToFileURL's
// answer, made directly for the paths it would not change (most of a tree;
// 16,000 URLs through pathToFileURL cost ~100 ms of a search).
import { pathToFileURL } from "node:url";

/** `pathToFileURL(abs).href`, without its cost for plain absolute paths. */
export function fileUri(abs: string): string {
  return /^\/[A-Za-z0-9/._-]*$/.test(abs) && !/\/\/|\/\.\.?(\/|$)/.test(abs)
    ? `file://${abs}`
    : pathToFileURL(abs).href;
}
