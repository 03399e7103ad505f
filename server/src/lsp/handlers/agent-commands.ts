// The agent's commands (lockstep.ask, job, cancel, session, reset_session, and
// the review's review, decide, revert; the store's sessions, resume): the agent service and the review desk behind one switch.
import { baseUrlInUse, DEFAULT_GEMINI_MODEL } from "../../config/provider-facts.js";
import { okEnvelope, type Envelope } from "../../tools/envelope.js";
import { VERSION } from "../../version.js";
import type { AgentCommand } from "../commands.js";
import type { ServerContext } from "../server-context.js";
import { reviewCommands } from "./review-commands.js";
import { sessionCommands } from "./session-commands.js";
import { trustFolder } from "../trust-offer.js";
import { shownUrl } from "../../config/shown-url.js";
import { commandFacts } from "../../tools/command-facts.js";
import { searchEngine } from "../../workspace/walk/ripgrep.js";

export function agentCommands(ctx: ServerContext) {
  const stored = sessionCommands(ctx);
  const review = reviewCommands(ctx, stored.revertStored);
  return async (command: AgentCommand, args: unknown, signal: AbortSignal): Promise<Envelope> => {
    switch (command) {
      case "ask": {
        const started = ctx.agent.ask(args);
        if (started.ok) ctx.events.showTranscript();
        return started;
      }
      case "job":
        return ctx.agent.job(args);
      case "cancel":
        return ctx.agent.cancel(args);
      case "session": {
        const s = ctx.settings.current;
        return okEnvelope({
          ...ctx.conversation.facts(),
          project_instructions: await ctx.agent.projectInstructions(),
          provider: s.provider,
          model: s.model ?? (s.provider === "gemini" ? DEFAULT_GEMINI_MODEL : null),
          baseUrl: baseUrlInUse(s) !== undefined ? shownUrl(baseUrlInUse(s)!) : null,
          key_found: ctx.settings.keyFound(),
          // Where each was set ("editor", "project"; absent: the default), and the warning when they differ.
          model_sources: Object.fromEntries(
            Object.entries(ctx.settings.modelSources()).map(([k, source]) => [k, source.place]),
          ),
          model_warning: ctx.settings.modelWarning() ?? null,
          approval: s.approval,
          version: VERSION,
          companion: ctx.companion.facts(),
          wrapped: ctx.wrapStatus(),
          search: searchEngine(),
          stored_session: ctx.recorder.live(),
          trust: ctx.settings.trust
            ? {
                folder: ctx.settings.trust.folder,
                trusted: ctx.settings.trust.trusted,
                ignored_keys: ctx.settings.trust.ignored.map((i) => i.key),
              }
            : null,
          commands: await commandFacts(s),
          mcp_servers: ctx.mcp().status(),
          ...(ctx.mcp().problems.length > 0 ? { mcp_problems: ctx.mcp().problems } : {}),
        });
      }
      case "reset_session":
        ctx.agent.cancelAll();
        ctx.review.rejectAll();
        ctx.conversation.reset();
        ctx.recorder.reset();
        ctx.companion.reset();
        return okEnvelope({
          message: "Session cleared: history, files in context and every 'always allow' are gone.",
        });
      case "review":
      case "decide":
      case "revert":
        return review(command, args, signal);
      case "sessions":
        return stored.list(args);
      case "resume":
        return stored.resume(args);
      case "trust":
        return trustFolder(ctx);
    }
  };
}
