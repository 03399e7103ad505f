// Provider, model and approval as ACP session config options: what the client
// shows as selectors, and the settings a choice changes. Pure.
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import type { Settings } from "../config/settings.js";
import { DEFAULT_ANTHROPIC_MODEL, isLocalProvider } from "../config/provider-facts.js";

/** Models offered per provider beside the one configured (any other is set in the settings). */
const KNOWN_MODELS: Record<Settings["provider"], string[]> = {
  gemini: ["gemini-2.5-flash", "gemini-2.5-pro"],
  openai: [],
  anthropic: [DEFAULT_ANTHROPIC_MODEL, "claude-opus-5-5", "claude-haiku-4-5"],
  ollama: [],
  lmstudio: [],
  llamacpp: [],
};

const DEFAULT_MODELS: Record<Settings["provider"], string> = {
  gemini: "gemini-2.5-flash",
  openai: "",
  anthropic: DEFAULT_ANTHROPIC_MODEL,
  ollama: "",
  lmstudio: "",
  llamacpp: "",
};

function currentModel(s: Settings): string {
  return s.model ?? DEFAULT_MODELS[s.provider];
}

/** The folder's trust as the session sees it: whether it is trusted, and the project file's keys waiting for it. */
export interface SessionTrust {
  trusted: boolean;
  waiting: string[];
}

/** Offered while the project file sets keys that wait for the folder's trust: choosing "trusted" records it. */
function trustOption(trust: SessionTrust): SessionConfigOption {
  return {
    id: "trust",
    name: "Folder trust",
    category: "_trust",
    description: `This folder's .lockstep.json sets ${trust.waiting.join(", ")}, ignored until you trust the folder (a cloned repository could point them at its own server). Trusting it is recorded in lockstep's state, for every session here.`,
    type: "select",
    currentValue: trust.trusted ? "trusted" : "untrusted",
    options: [
      { value: "untrusted", name: "Not trusted: only the safe keys of .lockstep.json apply" },
      { value: "trusted", name: "Trust this folder: .lockstep.json applies in full" },
    ],
  };
}

export function configOptions(s: Settings, trust?: SessionTrust): SessionConfigOption[] {
  const model = currentModel(s);
  const models = [...new Set([...(model === "" ? [] : [model]), ...KNOWN_MODELS[s.provider]])];
  const options: SessionConfigOption[] = [
    {
      id: "approval",
      name: "Approval",
      category: "mode",
      description:
        "ask: every change is shown as a diff and asked about before it lands; auto: changes land at once (still shown, still hash-checked).",
      type: "select",
      currentValue: s.approval === "auto" ? "auto" : "ask",
      options: [
        { value: "ask", name: "Ask before each change" },
        { value: "auto", name: "Apply changes without asking" },
      ],
    },
    {
      id: "provider",
      name: "Provider",
      category: "model_config",
      type: "select",
      currentValue: s.provider,
      options: [
        { value: "gemini", name: "Gemini (GEMINI_API_KEY)" },
        { value: "openai", name: "OpenAI-compatible endpoint" },
        { value: "anthropic", name: "Claude (ANTHROPIC_API_KEY)" },
        // A local server named in the settings stays selectable as itself.
        ...(isLocalProvider(s.provider)
          ? [{ value: s.provider, name: `${s.provider} (local, no key)` }]
          : []),
      ],
    },
  ];
  if (models.length > 0)
    options.push({
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: model,
      options: models.map((m) => ({ value: m, name: m })),
    });
  if (trust && !trust.trusted && trust.waiting.length > 0) options.push(trustOption(trust));
  return options;
}

export function applyConfigOption(
  s: Settings,
  configId: string,
  value: string,
): { ok: true; settings: Settings } | { ok: false; message: string } {
  const offered = configOptions(s).find((o) => o.id === configId);
  if (!offered)
    return {
      ok: false,
      message: `No config option ${configId}: this session offers ${configOptions(s)
        .map((o) => o.id)
        .join(", ")}.`,
    };
  const values =
    offered.type === "select"
      ? offered.options.flatMap((o) => ("value" in o ? [o.value] : o.options.map((g) => g.value)))
      : [];
  if (!values.includes(value))
    return { ok: false, message: `${configId} takes ${values.join(", ")}; not ${value}.` };
  if (configId === "approval") return { ok: true, settings: { ...s, approval: value as "ask" | "auto" } };
  if (configId === "provider") {
    if (value === s.provider) return { ok: true, settings: s };
    // Another provider's model name means nothing to it: its default (gemini), or the settings' choice.
    return { ok: true, settings: { ...s, model: undefined, provider: value as Settings["provider"] } };
  }
  return { ok: true, settings: { ...s, model: value } };
}

/** Approval also as session modes, for clients that show modes rather than config options. */
export function approvalModes(s: Settings): SessionModeState {
  return {
    currentModeId: s.approval === "auto" ? "auto" : "ask",
    availableModes: [
      {
        id: "ask",
        name: "Ask",
        description: "Each change is shown as a diff and asked about before it lands.",
      },
      { id: "auto", name: "Auto", description: "Changes land at once, still shown and hash-checked." },
    ],
  };
}
