// acp/: lockstep as an agent over the Agent Client Protocol. Knows nothing of LSP; the agent
// comes from assembly/, as the language server's does.
// The front door: binds the protocol's methods to lockstep's sessions, and opens a session:
// checks its cwd, loads the settings in force there (config/), makes the project's store and
// answers authenticate from the key variable. A handler converts params, calls the session,
// converts the result; the agent, the tools and the workspace are the language server's own.
import { stat } from "node:fs/promises";
import path from "node:path";
import {
  agent,
  methods,
  RequestError,
  type AgentConnection,
  type AuthMethod,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  type SessionUpdate,
  type Stream,
} from "@agentclientprotocol/sdk";
import { keySecrets, newSessionId, SessionStore, stateDirectory, storesUnder } from "../sessions/index.js";
import { Sandbox } from "../workspace/sandbox.js";
import { VERSION } from "../version.js";
import { keyVariables, loadSettings, type SettingKey } from "../config/load-settings.js";
import type { Settings } from "../config/settings.js";
import { scrubUrls } from "../config/shown-url.js";
import { waitingForTrust } from "../config/project-keys.js";
import { addTrust } from "../config/trust.js";
import { AcpSession, type AcpPort } from "./session.js";
import { listSessions } from "./session-list.js";
import type { ClientFiles } from "./editor-link.js";
import type { ClientTerminals } from "./terminal-run.js";
import { redactTokens } from "../sessions/secrets.js";

/** ACP v1: an agent answers with the client's version when it speaks it, else with the latest it speaks. */
export const PROTOCOL_VERSION = 1;

export interface AcpOptions {
  env: NodeJS.ProcessEnv;
  /** Flags of `lockstep acp`, in settings' names, and how the command line spells them. */
  flags: Partial<Record<SettingKey, unknown>>;
  flagNames?: Partial<Record<SettingKey, string>>;
  debug: boolean;
  stderr: (s: string) => void;
}

/** The variables a prompt reads the provider's key from, in the words of authMethods and errors. */
function keyVariable(settings: Settings, env: NodeJS.ProcessEnv): string {
  return keyVariables(settings, env).variables.join(" or ");
}

const noSession = (sessionId: string): RequestError =>
  new RequestError(-32002, `No session ${sessionId} in this lockstep process. Start one with session/new.`, {
    sessionId,
  });

/**
 * The connection, and `ended`: resolves once the client has gone and every session is closed, with why
 * when the connection failed rather than closed.
 */
export function serveAcp(
  stream: Stream,
  options: AcpOptions,
): { connection: AgentConnection; ended: Promise<string | undefined> } {
  const sessions = new Map<string, AcpSession>();
  let client: ClientCapabilities = {};
  const log = (what: string, value: unknown): void => {
    if (options.debug || startSettings.debug)
      options.stderr(
        redactTokens(scrubUrls(JSON.stringify({ time: new Date().toISOString(), [what]: value }))) + "\n",
      );
  };
  const find = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw noSession(sessionId);
    return session;
  };
  // Settings at the process's directory name the provider the authMethods speak of; each session reads its own root's.
  const settingsAt = (root: string) =>
    loadSettings({
      root,
      env: options.env,
      flags: options.flags,
      ...(options.flagNames ? { flagNames: options.flagNames } : {}),
    });
  const startSettings = settingsAt(process.cwd()).settings;
  const authMethods: AuthMethod[] = [
    {
      id: "api-key",
      name: `API key in ${keyVariable(startSettings, options.env)}`,
      description: `lockstep reads the ${startSettings.provider} key from the environment variable ${keyVariable(startSettings, options.env)} (set it where the editor starts lockstep; the setting apiKeyEnv names another). A local endpoint needs none.`,
    },
  ];

  /** The project's session store, by the settings in force at its root; none with `sessions: false`. */
  const storeFor = (
    root: string,
    settings: { sessions: boolean; sessionsDir?: string | undefined; apiKeyEnv?: string | undefined },
    realRoot: string,
  ): SessionStore | undefined =>
    settings.sessions
      ? new SessionStore(realRoot, stateDirectory(settings.sessionsDir, options.env), () =>
          keySecrets(settings.apiKeyEnv, options.env),
        )
      : undefined;

  /** The store of the project at `cwd` (checked), by the settings in force there. */
  const storeAt = async (cwd: string): Promise<SessionStore | undefined> => {
    const root = await checkedCwd(cwd);
    return storeFor(root, settingsAt(root).settings, (await Sandbox.create([root])).roots[0]!);
  };

  /** A session rooted at `cwd` (checked), with the settings in force there and the client's MCP servers connected. */
  const open = async (
    id: string,
    cwd: string,
    mcpServers: readonly McpServer[],
  ): Promise<{ session: AcpSession; problems: string[] }> => {
    const root = await checkedCwd(cwd);
    // The terminal's settings (user file, the project's .lockstep.json, LOCKSTEP_*, flags); a bad value is named, not fatal.
    const loaded = settingsAt(root);
    for (const problem of loaded.problems)
      options.stderr(`lockstep acp: settings ${problem.severity}: ${problem.message}\n`);
    const sandbox = await Sandbox.create([root]);
    const session = new AcpSession(
      id,
      cwd,
      sandbox,
      loaded.settings,
      port,
      storeFor(root, loaded.settings, sandbox.roots[0]!),
    );
    session.trust = { trusted: loaded.trust.trusted, waiting: waitingForTrust(loaded.trust.ignored) };
    await session.connectMcp(mcpServers);
    sessions.set(id, session);
    return { session, problems: loaded.problems.map((p) => `${p.severity}: ${p.message}`) };
  };

  /** A stored session continued under its own id; `replay`: its conversation is streamed first (session/load). */
  const reopen = async (
    given: string,
    cwd: string,
    mcpServers: readonly McpServer[],
    replay: boolean,
  ): Promise<AcpSession> => {
    // A prefix names its session by the full id from here on: one live session per stored file, however named.
    const resolved = (await storeAt(cwd))?.resolveId(given);
    const sessionId = resolved?.ok === true ? resolved.value : given;
    if (sessions.has(sessionId))
      throw RequestError.invalidRequest(
        { sessionId },
        `Session ${sessionId} is already open in this lockstep process; keep using it, or close it first.`,
      );
    const { session } = await open(sessionId, cwd, mcpServers);
    const resumed = await session.resumeStored(replay);
    if (!resumed.ok) {
      sessions.delete(sessionId);
      await session.close();
      throw new RequestError(
        -32002,
        `${resumed.message} (session/list names the sessions stored for this cwd.)`,
        { sessionId },
      );
    }
    return session;
  };

  const app = agent({ name: "lockstep" })
    .onRequest(methods.agent.initialize, ({ params }): InitializeResponse => {
      client = params.clientCapabilities ?? {};
      log("initialize", params);
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        authMethods,
        agentInfo: { name: "lockstep", title: "lockstep", version: VERSION },
      };
    })
    .onRequest(methods.agent.authenticate, () => {
      // Whatever a prompt accepts (GEMINI_API_KEY or GOOGLE_API_KEY, apiKeyEnv's variable, none for a replay or a local endpoint).
      const key = keyVariables(startSettings, options.env);
      if (key.needed && key.found === undefined) {
        throw RequestError.authRequired(
          undefined,
          `${key.variables.join(" or ")} is not set in lockstep's environment. Set it where the editor starts lockstep (its agent server's env), then start the session again.`,
        );
      }
      return {};
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const { session, problems } = await open(newSessionId(), params.cwd, params.mcpServers);
      // Stored now: listed and loadable after any exit, prompted or not.
      session.storeNow();
      // Said once the client knows the session: the command that shows its status.
      setImmediate(
        () =>
          void port.update(session.id, {
            sessionUpdate: "available_commands_update",
            availableCommands: [
              {
                name: "session",
                description:
                  "lockstep's status for this session: provider, approval, the editor's files, MCP servers, files in context",
              },
            ],
          }),
      );
      return {
        sessionId: session.id,
        configOptions: session.configOptions(),
        modes: session.modes(),
        _meta: {
          lockstep: { ...session.status(), ...(problems.length > 0 ? { settings_problems: problems } : {}) },
        },
      };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      if (typeof params.cwd === "string") {
        const store = await storeAt(params.cwd);
        return listSessions(store ? [{ store, cwd: params.cwd }] : [], params.cursor);
      }
      // No cwd: every project's sessions in the store lockstep's own settings name.
      if (!startSettings.sessions) return { sessions: [] };
      const stores = storesUnder(stateDirectory(startSettings.sessionsDir, options.env), () =>
        keySecrets(startSettings.apiKeyEnv, options.env),
      );
      return listSessions(
        stores.map((store) => ({ store, cwd: store.realRoot })),
        params.cursor,
      );
    })
    .onRequest(methods.agent.session.load, async ({ params }) => {
      const session = await reopen(params.sessionId, params.cwd, params.mcpServers, true);
      return { configOptions: session.configOptions(), modes: session.modes() };
    })
    .onRequest(methods.agent.session.resume, async ({ params }) => {
      const session = await reopen(params.sessionId, params.cwd, params.mcpServers ?? [], false);
      return { configOptions: session.configOptions(), modes: session.modes() };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, signal }) => {
      const session = find(params.sessionId);
      // A client that cancels the request itself ($/cancel_request) cancels the turn, as session/cancel does.
      signal.addEventListener("abort", () => session.cancel(), { once: true });
      const outcome = await session.prompt(params.prompt);
      if (outcome.ok) return outcome.response;
      if (outcome.code === "busy") throw RequestError.invalidRequest(undefined, outcome.message);
      if (outcome.code === "invalid") throw RequestError.invalidParams(undefined, outcome.message);
      if (outcome.code === "auth") throw RequestError.authRequired(undefined, outcome.message);
      throw new RequestError(-32603, outcome.message);
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(methods.agent.session.setConfigOption, ({ params }) => {
      const session = find(params.sessionId);
      if (typeof params.value !== "string")
        throw RequestError.invalidParams(
          undefined,
          `${params.configId} takes one of its listed values, not a boolean.`,
        );
      if (params.configId === "trust" && session.configOptions().some((o) => o.id === "trust")) {
        // The user's choice in the client: recorded as `lockstep trust` would, the folder's settings read again.
        if (params.value === "trusted") {
          addTrust(session.cwd);
          const loaded = settingsAt(session.cwd);
          session.trusted(loaded.settings, {
            trusted: loaded.trust.trusted,
            waiting: waitingForTrust(loaded.trust.ignored),
          });
          log("trust", { folder: loaded.trust.folder, applied: true });
        } else if (params.value !== "untrusted")
          throw RequestError.invalidParams(
            undefined,
            `trust takes trusted or untrusted; not ${params.value}.`,
          );
        return { configOptions: session.configOptions() };
      }
      const set = session.setConfigOption(params.configId, params.value);
      if (!set.ok) throw RequestError.invalidParams(undefined, set.message);
      if (params.configId === "approval")
        void port.update(params.sessionId, {
          sessionUpdate: "current_mode_update",
          currentModeId: session.modes().currentModeId,
        });
      return { configOptions: session.configOptions() };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = find(params.sessionId);
      const set = session.setConfigOption("approval", params.modeId);
      if (!set.ok)
        throw RequestError.invalidParams(
          undefined,
          `No mode ${params.modeId}: lockstep's modes are ask and auto.`,
        );
      void port.update(params.sessionId, {
        sessionUpdate: "config_option_update",
        configOptions: session.configOptions(),
      });
      return {};
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = find(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    });

  const connection = app.connect(stream);
  const port: AcpPort = {
    update: (sessionId: string, update: SessionUpdate) =>
      connection.client.notify(methods.client.session.update, { sessionId, update }),
    requestPermission: (params, signal) =>
      connection.client.request(methods.client.session.requestPermission, params, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      }),
    files: (sessionId): ClientFiles | undefined => {
      if (client.fs?.readTextFile !== true) return undefined;
      const read = async (file: string): Promise<string> =>
        (await connection.client.request(methods.client.fs.readTextFile, { sessionId, path: file })).content;
      if (client.fs.writeTextFile !== true) return { read };
      return {
        read,
        write: async (file, content) =>
          void (await connection.client.request(methods.client.fs.writeTextFile, {
            sessionId,
            path: file,
            content,
          })),
      };
    },
    terminals: (sessionId): ClientTerminals | undefined => {
      if (client.terminal !== true) return undefined;
      const c = connection.client;
      return {
        create: async (params) =>
          (await c.request(methods.client.terminal.create, { sessionId, ...params })).terminalId,
        output: (terminalId) => c.request(methods.client.terminal.output, { sessionId, terminalId }),
        waitForExit: (terminalId) =>
          c.request(methods.client.terminal.waitForExit, { sessionId, terminalId }),
        kill: async (terminalId) =>
          void (await c.request(methods.client.terminal.kill, { sessionId, terminalId })),
        release: async (terminalId) =>
          void (await c.request(methods.client.terminal.release, { sessionId, terminalId })),
      };
    },
    log,
  };
  // The editor went away: every session stops its turn, closes its stored file and its MCP servers.
  // Resolves with why, when the connection failed rather than closed.
  const ended = connection.closed.then(async () => {
    await Promise.all([...sessions.values()].map((session) => session.close()));
    // The SDK closes with an error of its own when something failed (a handler's answer it could not send).
    const reason: unknown = connection.signal.reason;
    return reason instanceof Error && reason.message !== "ACP connection closed" ? reason.message : undefined;
  });
  return { connection, ended };
}

/** The session's root: the client's cwd, absolute and an existing directory, else a clear error. */
async function checkedCwd(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd))
    throw RequestError.invalidParams(
      { cwd },
      `cwd must be an absolute path; got ${JSON.stringify(cwd)}. Nothing was started.`,
    );
  const found = await stat(cwd).catch(() => undefined);
  if (!found)
    throw RequestError.invalidParams(
      { cwd },
      `cwd ${cwd} does not exist. Open a project directory and start the session there.`,
    );
  if (!found.isDirectory())
    throw RequestError.invalidParams(
      { cwd },
      `cwd ${cwd} is not a directory. Start the session in the project's directory.`,
    );
  return cwd;
}
