// config/: the settings' schema and the terminal's loader. Knows nothing of the doors.
// Settings: defaults, types and validation from one schema, for every door. The editor's
// come from lsp/live-settings.ts (initializationOptions, workspace/configuration), the
// terminal's and ACP's from load-settings.ts; this file knows nothing of where they came from.
import * as z from "zod";
import { ruleOf } from "../commands/prefix-rules.js";
import { DEFAULT_MAX_OUTPUT_TOKENS, isOpenAiCompatible, PROVIDERS } from "./provider-facts.js";
import { MCP_SERVERS_KEY } from "./mcp-servers.js";

export const settingsSchema = z.object({
  provider: z
    .enum(PROVIDERS)
    .default("gemini")
    .describe(
      "Who serves the model: gemini (Google's API), openai (any OpenAI-compatible Chat Completions endpoint: OpenAI, OpenRouter, vLLM), anthropic (Claude, through the Messages API, with prompt caching and thinking), or a local server by name: ollama, lmstudio, llamacpp (OpenAI-compatible at its usual local address, no key).",
    ),
  model: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The model the agent uses. Default gemini-2.5-flash for gemini, claude-sonnet-5-5 for anthropic; required for openai (e.g. qwen2.5-coder:7b on Ollama).",
    ),
  baseUrl: z
    .string()
    .url()
    .optional()
    .describe(
      "For openai: the endpoint's base URL, e.g. http://localhost:11434/v1 (Ollama) or https://openrouter.ai/api/v1; OpenAI's own when unset. For anthropic: a gateway in front of the Messages API.",
    ),
  tools: z
    .boolean()
    .default(true)
    .describe(
      "Whether the model calls tools. false for models without tool calling: it is given the files' versioned states and writes SEARCH/REPLACE edit blocks, which lockstep applies with approval.",
    ),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable")
    .optional()
    .describe(
      "The environment variable holding the API key (default OPENAI_API_KEY for openai, ANTHROPIC_API_KEY for anthropic, GEMINI_API_KEY or GOOGLE_API_KEY for gemini). A local server needs none.",
    ),
  approval: z
    .enum(["ask", "auto", "review"])
    .default("ask")
    .describe(
      "ask: the user approves every change the agent makes (a prompt, or a staged change where the editor has no prompts); review: every change is staged hunk by hunk, accepted or rejected through code actions; auto: changes land at once.",
    ),
  closedFileEdits: z
    .enum(["editor", "disk"])
    .default("editor")
    .describe(
      "Where changes to files that are not open go: to the editor as a reviewable edit, or straight to disk.",
    ),
  transcript: z
    .string()
    .optional()
    .describe(
      "Path of a markdown file the agent's conversations are written to (for editors without custom notifications).",
    ),
  replay: z
    .string()
    .optional()
    .describe(
      "Path of a recorded session (JSON) to play instead of calling a model: the offline demo and tests use it.",
    ),
  replayDelayMs: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "Pause between the replayed model's text chunks, so a recorded session streams like a live one.",
    ),
  debug: z.boolean().default(false).describe("Log every command and result as JSON to stderr."),
  applyEditTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe("How long to wait for the editor to answer an edit."),
  modelTimeoutMs: z.number().int().positive().default(120_000).describe("How long one model call may take."),
  maxTurns: z
    .number()
    .int()
    .positive()
    .default(20)
    .describe("Model turns per request before the agent stops."),
  maxToolCalls: z
    .number()
    .int()
    .positive()
    .default(50)
    .describe("Tool calls per request before the agent stops."),
  diagnosticsWaitMs: z
    .number()
    .int()
    .min(0)
    .default(1500)
    .describe(
      "Wrap mode: how long a change's result waits for the wrapped server's diagnostics of the new text (diagnostics_after). 0 turns the wait off.",
    ),
  sessions: z
    .boolean()
    .default(true)
    .describe(
      "Keep each conversation on disk (one file per session, under the user's state directory), so it can be listed, resumed and its runs reverted after a restart. false keeps nothing on disk.",
    ),
  sessionsDir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Where the sessions are kept (a folder per project inside it). Default $XDG_STATE_HOME/lockstep, else ~/.local/state/lockstep.",
    ),
  patchTool: z
    .enum(["none", "apply_patch"])
    .default("none")
    .describe(
      "For provider openai: apply_patch offers the model OpenAI's apply_patch tool (one text argument holding the *** Begin Patch envelope GPT-4.1, GPT-5 and Codex models are trained to write), for changes across files, all or none; none leaves it out.",
    ),
  commands: z
    .enum(["ask", "auto", "off"])
    .default("ask")
    .describe(
      "run_command, the agent running shell commands (tests, builds, linters): ask shows each command whole, with where it runs and whether it is sandboxed (run once, always allow its prefix for the session, or reject); auto runs commands without asking inside the sandbox (and asks where there is none); off does not offer the tool.",
    ),
  allowedCommands: z
    .array(
      z
        .string()
        .min(1)
        .refine((e) => "rule" in ruleOf(e), {
          message: 'each entry must be one program and at most one argument, such as "npm test"',
        }),
    )
    .default([])
    .describe(
      'Command prefixes run without asking (program and first argument, such as "npm test" or "cargo build"). Read from the user\'s settings only, never a project\'s .lockstep.json.',
    ),
  sandbox: z
    .enum(["auto", "on", "off"])
    .default("auto")
    .describe(
      "Where commands run: auto in a sandbox where the machine has one (bubblewrap on Linux), on refuses to run without one, off runs them unsandboxed.",
    ),
  sandboxNetwork: z
    .boolean()
    .default(false)
    .describe("Let sandboxed commands reach the network (off: not even a port on this machine)."),
  testCommand: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The command that runs the project's tests (e.g. npm test), named to the model as the way to run them. Still asked about like any command.",
    ),
  // Claude's own (provider anthropic).
  maxOutputTokens: numberFromText(z.number().int().positive())
    .optional()
    .describe("For anthropic: the most tokens one answer may take, thinking included (default 32000)."),
  thinking: numberFromText(
    z.union([
      z.enum(["off", "adaptive"]),
      z.number().int().min(1024, "a thinking budget is at least 1024 tokens"),
    ]),
  )
    .optional()
    .describe(
      "For anthropic: off, adaptive (newer models: Claude decides how much to think; see effort) or a budget of thinking tokens (older models, e.g. 8000). Unset: the model's default.",
    ),
  effort: z
    .enum(["low", "medium", "high", "xhigh", "max"])
    .optional()
    .describe(
      "For anthropic: how much effort Claude puts into an answer (output_config.effort), e.g. with thinking adaptive. Unset: the model's default.",
    ),
  companion: z
    .boolean()
    .default(true)
    .describe(
      "Serve lockstep's tools and gemini-cli's IDE companion contract to agents in a terminal (MCP on 127.0.0.1, announced by a discovery file). Read when the session starts.",
    ),
});

export type Settings = z.output<typeof settingsSchema>;

/** A number that may arrive as text (an environment variable, a flag). */
function numberFromText<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v), schema);
}

export const DEFAULT_SETTINGS: Settings = settingsSchema.parse({});

/**
 * Reads settings leniently: a field with a bad value falls back to its default
 * and is reported, so one typo does not cost the user every other setting.
 */
export function readSettings(
  raw: unknown,
  base: Settings = DEFAULT_SETTINGS,
): { settings: Settings; problems: string[] } {
  if (raw === undefined || raw === null) return { settings: base, problems: [] };
  if (typeof raw !== "object" || Array.isArray(raw))
    return { settings: base, problems: ["settings must be an object"] };
  const merged: Record<string, unknown> = { ...base };
  const problems: string[] = [];
  const shape = settingsSchema.shape;
  for (const [key, value] of Object.entries(raw)) {
    // Read by mcp-servers.ts from the files (a project's only when trusted), never from here.
    if (key === MCP_SERVERS_KEY) continue;
    const field = shape[key as keyof typeof shape];
    if (!field) {
      problems.push(`unknown setting \`${key}\``);
      continue;
    }
    const parsed = field.safeParse(value);
    if (parsed.success) merged[key] = parsed.data;
    else problems.push(`\`${key}\`: ${parsed.error.issues[0]?.message ?? "invalid value"}`);
  }
  const settings = settingsSchema.parse(merged);
  problems.push(...combinationProblems(settings));
  return { settings, problems };
}

/** Settings that are each valid but do not go together: said at once, not when the agent first runs. */
export function combinationProblems(s: Settings): string[] {
  const out: string[] = [];
  if (isOpenAiCompatible(s.provider) && s.model === undefined && s.replay === undefined) {
    out.push(
      `\`model\` is required with provider \`${s.provider}\`: name the endpoint's model (e.g. qwen2.5-coder:7b on Ollama)`,
    );
  }
  if (s.provider === "gemini" && s.baseUrl !== undefined) {
    out.push(
      "`baseUrl` applies to providers `openai` and `anthropic` only; for Gemini set GOOGLE_GEMINI_BASE_URL in the server's environment, or set provider to `openai`",
    );
  }
  if (typeof s.thinking === "number" && s.thinking >= (s.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS)) {
    out.push(
      `\`thinking\` (${s.thinking} tokens) must be below \`maxOutputTokens\` (${s.maxOutputTokens ?? "32000 by default"}): thinking counts toward it`,
    );
  }
  return out;
}
