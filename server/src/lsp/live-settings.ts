// The settings in force: the project file (.lockstep.json at the first root) as the
// base, initializationOptions over it, then the `lockstep` section of
// workspace/configuration, fetched whole at start and on every change. A bad
// field keeps its default and is named to the user once. The project file applies
// in full only in a folder the user trusts (config/project-keys.ts says what it may
// set before that); trusting the folder later re-reads it under the editor's settings.
import type { Connection } from "vscode-languageserver";
import type { ClientFlags } from "./capabilities.js";
import { filterProjectValues, ignoredMessages, type IgnoredKey } from "../config/project-keys.js";
import { projectFilePath, readSettingsFile } from "../config/settings-file.js";
import { realFolder, trustedBy } from "../config/trust.js";
import { keyVariablesOf } from "../config/provider-facts.js";
import { combinationProblems, DEFAULT_SETTINGS, readSettings, type Settings } from "../config/settings.js";
import { shownUrl } from "../config/shown-url.js";
import { MODEL_KEYS, mixedModelSources, type ModelKey, type ModelSource } from "../config/model-sources.js";

export interface FolderTrust {
  folder: string;
  file: string;
  trusted: boolean;
  /** The project file's keys that were not applied. */
  ignored: IgnoredKey[];
}

/** How an editor user trusts the folder, for messages. */
export const TRUST_HOW =
  "trust it with the command lockstep.trust (Neovim :LockstepTrust, Emacs M-x lockstep-trust) or `lockstep trust DIR` in a terminal";

export class LiveSettings {
  current: Settings = DEFAULT_SETTINGS;
  trust: FolderTrust | undefined;
  #root: string | undefined;
  #project: Record<string, unknown> = {};
  /** Every key the editor sent (the latest value of each): its settings go over the project's. */
  #editor: Record<string, unknown> = {};
  #quiet = false;

  constructor(
    private readonly connection: Connection,
    private readonly flags: () => ClientFlags,
    private readonly warn: (message: string) => void,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The project's .lockstep.json as the base the editor's own settings go over: one file serves
   * every surface. `asksItself`: lockstep's own terminal client, which said the ignored keys already.
   */
  readProjectFile(root: string, asksItself = false): void {
    this.#root = root;
    this.#quiet = asksItself;
    this.#loadProject();
    this.#recompute();
  }

  /** After the user trusted the folder: the project file read again, the editor's settings over it. */
  reloadProject(): void {
    if (this.#root === undefined) return;
    this.#loadProject();
    this.#recompute();
  }

  #loadProject(): void {
    const root = this.#root!;
    const file = projectFilePath(root);
    const folder = realFolder(root);
    const trusted = trustedBy(folder, this.env) !== undefined;
    this.trust = { folder, file, trusted, ignored: [] };
    this.#project = {};
    const read = readSettingsFile(file, root);
    if (read.kind === "invalid") {
      this.warn(`lockstep settings: ${read.message}. The editor's settings and the defaults are used.`);
      return;
    }
    if (read.kind === "absent") return;
    const filtered = filterProjectValues(read.values, DEFAULT_SETTINGS, trusted);
    this.trust.ignored = filtered.ignored;
    this.#project = filtered.accepted;
    if (!this.#quiet)
      for (const message of ignoredMessages(file, folder, filtered.ignored, TRUST_HOW))
        this.warn(`lockstep settings: ${message}.`);
    const { settings, problems: all } = readSettings(filtered.accepted, DEFAULT_SETTINGS);
    // What the file lacks (a model for openai) the editor's settings may give: apply() says it if they do not.
    const lacking = new Set(combinationProblems(settings));
    const problems = all.filter((p) => !lacking.has(p));
    if (problems.length > 0)
      this.warn(`lockstep settings in ${file}: ${problems.join("; ")}. Defaults are used for those.`);
  }

  #recompute(): void {
    const base = readSettings(this.#project, DEFAULT_SETTINGS).settings;
    this.current = readSettings(this.#editor, base).settings;
  }

  apply(raw: unknown): void {
    const read = readSettings(raw, this.current);
    this.current = read.settings;
    if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) Object.assign(this.#editor, raw);
    if (read.problems.length > 0)
      this.warn(`lockstep settings: ${read.problems.join("; ")}. Defaults are used for those.`);
  }

  /** Asks the client for the `lockstep` section; only that one: other sections are the client's business. */
  async fetch(): Promise<void> {
    if (!this.flags().configuration) return;
    try {
      const [section] = (await this.connection.workspace.getConfiguration([
        { section: "lockstep" },
      ])) as unknown[];
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

  /** Where provider, baseUrl and model in force were set: the editor's settings, the project file, or nowhere (a default). */
  modelSources(): Partial<Record<ModelKey, ModelSource>> {
    const given = (values: Record<string, unknown>, key: string): boolean =>
      values[key] !== undefined && values[key] !== null;
    const out: Partial<Record<ModelKey, ModelSource>> = {};
    for (const key of MODEL_KEYS) {
      if (given(this.#editor, key)) out[key] = { place: "editor", label: "the editor's settings" };
      else if (given(this.#project, key)) out[key] = { place: "project", label: ".lockstep.json" };
    }
    return out;
  }

  /** Said wherever the model is shown when its three settings were set in different places. */
  modelWarning(): string | undefined {
    const s = this.current;
    return mixedModelSources(
      { ...s, baseUrl: s.baseUrl !== undefined ? shownUrl(s.baseUrl) : undefined },
      this.modelSources(),
    );
  }

  /** Whether the key the provider reads is set (never the key itself). */
  keyFound(): boolean {
    const s = this.current;
    const names = s.apiKeyEnv !== undefined ? [s.apiKeyEnv] : keyVariablesOf(s.provider);
    return names.some((n) => (this.env[n] ?? "").trim() !== "");
  }
}
