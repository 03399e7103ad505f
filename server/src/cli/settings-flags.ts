// The settings a command line may set (`lockstep ask`, `lockstep config`): the
// options, and the flags they become for loadSettings, each named as the user typed it.
import type { LoadSettingsOptions, SettingKey } from "../config/load-settings.js";

export const SETTINGS_OPTIONS = {
  provider: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  approval: { type: "string" },
  transcript: { type: "string" },
  replay: { type: "string" },
  "no-tools": { type: "boolean" },
  debug: { type: "boolean" },
  thinking: { type: "string" },
  effort: { type: "string" },
  commands: { type: "string" },
  sandbox: { type: "string" },
  "sandbox-network": { type: "boolean" },
  "allow-command": { type: "string", multiple: true },
  "test-command": { type: "string" },
} as const;

type Options = typeof SETTINGS_OPTIONS;
export type SettingsOptionValues = {
  [K in keyof Options]?: Options[K] extends { multiple: true }
    ? string[]
    : Options[K]["type"] extends "string"
      ? string
      : boolean;
};

const FLAG_NAMES: Partial<Record<SettingKey, string>> = {
  tools: "--no-tools",
  allowedCommands: "--allow-command",
  testCommand: "--test-command",
};

/** The command line's settings, for loadSettings: only those the user gave. */
export function settingsFlags(
  values: SettingsOptionValues,
): Pick<LoadSettingsOptions, "flags" | "flagNames"> {
  return {
    flags: {
      provider: values.provider,
      model: values.model,
      baseUrl: values["base-url"],
      apiKeyEnv: values["api-key-env"],
      approval: values.approval,
      transcript: values.transcript,
      replay: values.replay,
      tools: values["no-tools"] === true ? false : undefined,
      debug: values.debug === true ? true : undefined,
      thinking: values.thinking,
      effort: values.effort,
      commands: values.commands,
      sandbox: values.sandbox,
      sandboxNetwork: values["sandbox-network"] === true ? true : undefined,
      // Repeated, one prefix each ("npm test"); like every flag, it replaces the settings files' list.
      allowedCommands: values["allow-command"],
      testCommand: values["test-command"],
    },
    flagNames: FLAG_NAMES,
  };
}
