// The headline cases, written by hand as text fixtures (headline/*.txt) so a
// reader can see each one: the file the agent read, the file it meant to leave,
// and the file the user has by the time the agent writes.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MovingCase } from "./cases.js";
import { spellEdit } from "./formats.js";

/**
 * One fixture: `# ` lines (the first names the case), then `=== base`, `=== agent`,
 * `=== user` sections, each the file's text up to the next section.
 */
export function parseHeadline(name: string, text: string): MovingCase {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  const comments: string[] = [];
  for (const line of text.split("\n")) {
    const head = /^=== (base|agent|user)$/.exec(line);
    if (head) sections.set(head[1]!, (current = []));
    else if (current) current.push(line);
    else if (line.startsWith("# ")) comments.push(line.slice(2));
  }
  const section = (key: string): string => {
    const lines = sections.get(key);
    if (!lines) throw new Error(`headline fixture ${name}: no "=== ${key}" section`);
    // Each section's last line ends the file's text: the fixture's own newline before the next header belongs to it.
    return lines.join("\n").replace(/\n*$/, "\n");
  };
  const path = /^path: (\S+)$/m.exec(comments.join("\n"))?.[1] ?? "src/example.ts";
  return {
    id: `${name}: ${comments[0] ?? ""}`,
    family: "headline",
    k: 1,
    path,
    edit: spellEdit(path, section("base"), section("agent")),
    atCall: section("user"),
  };
}

export function loadHeadlines(dir: string): MovingCase[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(".txt"))
    .sort()
    .map((n) => parseHeadline(n.replace(/\.txt$/, ""), readFileSync(join(dir, n), "utf8")));
}
