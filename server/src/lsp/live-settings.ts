// The settings in force: the project file (.lockstep.json at the first root) as the
// base, initializationOptions over it, then the `lockstep` section of
// workspace/configuration, fetched whole at start and on every change. A bad
// field keeps its default and is named to the user once.
import type { Connection } from "vscode-languageserver";
import type { ClientFlags } from "./capabilities.js";
import { projectFilePath, readSettingsFile } from "../config/settings-file.js";
import { keyVariablesOf } from "../config/provider-facts.js";
import { combinationProblems, DEFAULT_SETTINGS, readSettings, type Settings } from "../config/settings.js";

export class LiveSettings {
  current: Settings = DEFAULT_SETTINGS;

  constructor(
    private readonly connection: Connection,
    private readonly flags: () => ClientFlags,
    private readonly warn: (message: string) => void,
  ) {}

  /** The project's .lockstep.json as the base the editor's own settings go over: one file serves every surface. */
  readProjectFile(root: string): void {
    const file = projectFilePath(root);
    const read = readSettingsFile(file);
    if (read.kind === "invalid") return this.warn(`lockstep settings: ${read.message}. The editor's settings and the defaults are used.`);
    if (read.kind === "absent") return;
    const { settings, problems: all } = readSettings(read.values, DEFAULT_SETTINGS);
    this.current = settings;
    // What the file lacks (a model for openai) the editor's settings may give: apply() says it if they do not.
    const lacking = new Set(combinationProblems(settings));
    const problems = all.filter((p) => !lacking.has(p));
    if (problems.length > 0) this.warn(`lockstep settings in ${file}: ${problems.join("; ")}. Defaults are used for those.`);
  }

  apply(raw: unknown): void {
    const read = readSettings(raw, this.current);
    this.current = read.settings;
    if (read.problems.length > 0) this.warn(`lockstep settings: ${read.problems.join("; ")}. Defaults are used for those.`);
  }

  /** Asks the client for the `lockstep` section; only that one: other sections are the client's business. */
  async fetch(): Promise<void> {
    if (!this.flags().configuration) return;
    try {
      const [section] = (await this.connection.workspace.getConfiguration([{ section: "lockstep" }])) as unknown[];
      if (section !== null && section !== undefined) this.apply(section);
    } catch {
      // A client that advertises configuration but fails to answer keeps its initializationOptions.
    }
  }

  /** workspace/didChangeConfiguration: the new section when the client pushed it, else fetched. */
  changed(settings: unknown): Promise<void> {
    const raw = (settings as { lockstep?: unknown } | null)?.lockstep;
    if (raw === undefined) return this.fetch();
    this.apply(raw);
    return Promise.resolve();
  }

  /** Whether the key the provider reads is set (never the key itself). */
  keyFound(): boolean {
    const s = this.current;
    const names = s.apiKeyEnv !== undefined ? [s.apiKeyEnv] : keyVariablesOf(s.provider);
    return names.some((n) => (process.env[n] ?? "").trim() !== "");
  }
}
