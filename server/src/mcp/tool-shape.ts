// What another server's tool looks like to the model: a function name every provider
// accepts, an input schema checked before it is offered, and a result cut to a size a
// model's context can hold. Pure: no connection, no process.

/** OpenAI's limit for a function name (^[a-zA-Z0-9_-]{1,64}$); Gemini's and Anthropic's are wider. */
const NAME_MAX = 64;
/** The MCP spec's own bound for a tool's name; a longer one is refused rather than guessed at. */
const TOOL_NAME_MAX = 128;
const DESCRIPTION_MAX = 2_000;
const SCHEMA_MAX_CHARS = 64_000;
const SCHEMA_MAX_DEPTH = 32;
/** A result's text beyond this is kept as its head and tail. */
export const RESULT_MAX_CHARS = 30_000;

/** `mcp__<server>__<tool>` in the characters every provider accepts, unique among `taken`. */
export function functionName(server: string, tool: string, taken: Set<string>): string {
  const base = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, NAME_MAX);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, NAME_MAX - 1 - String(n).length)}_${n}`;
  taken.add(name);
  return name;
}

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** Why a schema cannot be offered, or undefined when it can: an object schema, bounded, with known types. */
function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return "inputSchema is not an object";
  if ((schema as { type?: unknown }).type !== "object") return 'inputSchema must have type "object"';
  let size: number;
  try {
    size = JSON.stringify(schema).length;
  } catch {
    return "inputSchema is not plain JSON";
  }
  if (size > SCHEMA_MAX_CHARS) return `inputSchema is ${size} characters (at most ${SCHEMA_MAX_CHARS})`;
  const walk = (node: unknown, depth: number): string | undefined => {
    if (depth > SCHEMA_MAX_DEPTH) return `inputSchema nests deeper than ${SCHEMA_MAX_DEPTH}`;
    if (Array.isArray(node)) {
      for (const item of node)
        if (typeof item === "object" && item !== null) return walk(item, depth + 1) ?? undefined;
      return undefined;
    }
    if (typeof node !== "object" || node === null) return undefined;
    const n = node as Record<string, unknown>;
    const types = Array.isArray(n["type"]) ? n["type"] : n["type"] === undefined ? [] : [n["type"]];
    const bad = types.find((t) => typeof t !== "string" || !JSON_TYPES.has(t));
    if (bad !== undefined) return `inputSchema names an unknown type ${JSON.stringify(bad)}`;
    if (
      n["properties"] !== undefined &&
      (typeof n["properties"] !== "object" || n["properties"] === null || Array.isArray(n["properties"]))
    )
      return "inputSchema's properties is not an object";
    if (
      n["required"] !== undefined &&
      (!Array.isArray(n["required"]) || n["required"].some((r) => typeof r !== "string"))
    )
      return "inputSchema's required is not a list of names";
    for (const value of Object.values(n)) {
      const problem = walk(value, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(schema, 0);
}

/** One entry of a tools/list answer as the model may see it, or why it is left out. */
export function checkTool(
  raw: unknown,
): { ok: true; tool: ListedTool } | { ok: false; name: string; reason: string } {
  const r = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const name = typeof r["name"] === "string" ? r["name"] : "";
  const shown = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  if (name.length === 0) return { ok: false, name: "(no name)", reason: "the tool has no name" };
  if (name.length > TOOL_NAME_MAX)
    return {
      ok: false,
      name: shown,
      reason: `its name is ${name.length} characters (at most ${TOOL_NAME_MAX})`,
    };
  const problem = schemaProblem(r["inputSchema"]);
  if (problem) return { ok: false, name: shown, reason: problem };
  const description =
    typeof r["description"] === "string" ? r["description"].slice(0, DESCRIPTION_MAX) : name;
  return { ok: true, tool: { name, description, inputSchema: r["inputSchema"] as Record<string, unknown> } };
}

/** Text kept as head and tail, with how much was left out between them. */
export function headAndTail(text: string, max = RESULT_MAX_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const head = Math.floor(max * 0.7);
  const tail = max - head;
  return {
    text: `${text.slice(0, head)}\n… (${text.length - max} characters of the result left out) …\n${text.slice(-tail)}`,
    truncated: true,
  };
}

/** A tools/call result's content as text: text kept, images, audio and resources named, never inlined. */
export function resultText(content: unknown, structured: unknown): { text: string; truncated: boolean } {
  const parts: string[] = [];
  for (const item of Array.isArray(content) ? content : []) {
    const c = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    const type = typeof c["type"] === "string" ? c["type"] : "unknown";
    if (type === "text") parts.push(typeof c["text"] === "string" ? c["text"] : "");
    else if (type === "image" || type === "audio")
      parts.push(
        `(${type} ${String(c["mimeType"] ?? "")}, ${typeof c["data"] === "string" ? Math.floor((c["data"].length * 3) / 4) : 0} bytes, not shown)`,
      );
    else if (type === "resource")
      parts.push(
        `(resource ${String((c["resource"] as { uri?: unknown } | undefined)?.uri ?? "")}, not shown)`,
      );
    else if (type === "resource_link")
      parts.push(
        `(resource link ${String(c["uri"] ?? "")}${typeof c["name"] === "string" ? ` "${c["name"]}"` : ""})`,
      );
    else parts.push(`(${type} content, not shown)`);
  }
  if (parts.length === 0 && structured !== undefined) {
    try {
      parts.push(JSON.stringify(structured));
    } catch {
      parts.push("(structured content that is not JSON)");
    }
  }
  return headAndTail(parts.join("\n"));
}
