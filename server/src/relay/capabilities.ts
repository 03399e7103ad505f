// One server to the editor: the wrapped server's capabilities with lockstep's
// merged in. The child's text sync is kept (lockstep reads full and incremental
// changes alike); the command list is the union; code actions are on.
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export interface ServerInfo {
  name: string;
  version?: string;
}

function codeActionProvider(child: unknown, own: unknown): unknown {
  if (!isObject(child)) return own;
  const kinds = (p: unknown): string[] | undefined =>
    isObject(p) && Array.isArray(p["codeActionKinds"]) ? (p["codeActionKinds"] as string[]) : undefined;
  const childKinds = kinds(child);
  // A child that lists no kinds offers every kind; listing only lockstep's would narrow it.
  if (childKinds === undefined) return child;
  return { ...child, codeActionKinds: [...new Set([...childKinds, ...(kinds(own) ?? [])])] };
}

export function mergeCapabilities(child: Json, own: Json): Json {
  const commands = (caps: Json): string[] => {
    const p = caps["executeCommandProvider"];
    return isObject(p) && Array.isArray(p["commands"]) ? (p["commands"] as string[]) : [];
  };
  const childWorkspace = isObject(child["workspace"]) ? child["workspace"] : {};
  const ownWorkspace = isObject(own["workspace"]) ? own["workspace"] : {};
  return {
    ...child,
    textDocumentSync: child["textDocumentSync"] ?? own["textDocumentSync"],
    executeCommandProvider: {
      ...(isObject(child["executeCommandProvider"]) ? child["executeCommandProvider"] : {}),
      commands: [...new Set([...commands(child), ...commands(own)])],
    },
    codeActionProvider: codeActionProvider(child["codeActionProvider"], own["codeActionProvider"]),
    workspace: { ...ownWorkspace, ...childWorkspace },
  };
}

/** Both names: the user sees which server answers (a child that gives none is named by its command). */
export function mergeServerInfo(child: ServerInfo, own: ServerInfo): ServerInfo {
  return { name: `lockstep + ${child.name}`, version: `${own.version ?? ""} / ${child.version ?? "?"}` };
}

/** Code actions from both: the child's first, as its client would have listed them alone. */
export function concatActions(child: unknown, own: unknown): unknown[] {
  return [...(Array.isArray(child) ? child : []), ...(Array.isArray(own) ? own : [])];
}
