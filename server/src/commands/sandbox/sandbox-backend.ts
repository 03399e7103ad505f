// What a command's sandbox is, whatever makes it: an outside program (bubblewrap on Linux)
// that runs the command with the project root writable, a private temporary directory,
// everything else read-only and, unless allowed, no network. Backends live beside this file;
// `find-sandbox.ts` says which one this machine has, or honestly that it has none.

export interface SandboxPolicy {
  /** The project root, a real path: the one place the command may write (besides its own /tmp). */
  root: string;
  /** Paths inside the root kept read-only all the same (`.git`: a hook written there would run unsandboxed). */
  readOnly: readonly string[];
  /** Whether the command may reach the network (`sandboxNetwork`). */
  network: boolean;
}

/** How to start a program inside the sandbox. */
export interface SandboxedStart {
  file: string;
  args: string[];
  /** Variables the command sees inside (its private TMPDIR). */
  env: Record<string, string>;
}

export interface SandboxBackend {
  /** Its name as the user is told it ("bubblewrap"). */
  readonly name: string;
  /** `argv` run in `cwd` (a real path under the root) under `policy`. */
  wrap(argv: readonly string[], cwd: string, policy: SandboxPolicy): SandboxedStart;
}

export type SandboxProbe = { kind: "available"; backend: SandboxBackend } | { kind: "none"; reason: string };
