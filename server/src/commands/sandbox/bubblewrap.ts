// The sandbox on Linux: bubblewrap (`bwrap`), given its arguments by hand. The whole file
// system is bound read-only, then a private /tmp, then the root read-write, then the root's
// `.git` read-only again (later binds win). A new PID namespace whose first process is
// bubblewrap's own: when the command's main process ends, or bubblewrap is killed, every
// process left inside dies with it, even one that left the process group. `--unshare-net`
// leaves only a loopback of its own, so even the host's loopback ports are out of reach.
//
// Why not `@anthropic-ai/sandbox-runtime`: it also needs socat and ripgrep on the machine,
// starts HTTP and SOCKS proxies in the server for per-domain network rules lockstep does not
// offer, brings a second zod, and its 0.0.x interface still changes; what lockstep needs
// here (all or no network, one writable root) is the dozen arguments below.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { SandboxBackend, SandboxPolicy, SandboxProbe, SandboxedStart } from "./sandbox-backend.js";

/** The arguments that run `argv` in `cwd` under `policy`. */
export function bubblewrapArgs(argv: readonly string[], cwd: string, policy: SandboxPolicy): string[] {
  const args = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
  ];
  if (!policy.network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  args.push("--bind", policy.root, policy.root);
  for (const p of policy.readOnly) args.push("--ro-bind", p, p);
  args.push("--chdir", cwd, "--", ...argv);
  return args;
}

export function bubblewrapBackend(bwrap: string): SandboxBackend {
  return {
    name: "bubblewrap",
    wrap(argv, cwd, policy): SandboxedStart {
      // The home stays read-only: caches that tools write there go to the private /tmp instead.
      return {
        file: bwrap,
        args: bubblewrapArgs(argv, cwd, policy),
        env: { TMPDIR: "/tmp", XDG_CACHE_HOME: "/tmp/.cache" },
      };
    },
  };
}

/** `bwrap` on the PATH, tried once: installed is not enough (a kernel may refuse its namespaces). */
export async function probeBubblewrap(env: NodeJS.ProcessEnv = process.env): Promise<SandboxProbe> {
  const bwrap = onPath("bwrap", env.PATH ?? "");
  if (bwrap === undefined)
    return {
      kind: "none",
      reason:
        "bubblewrap (bwrap) is not installed: install it (e.g. apt-get install bubblewrap) for a sandbox",
    };
  const trial = bubblewrapArgs(["true"], "/", { root: "/tmp", readOnly: [], network: false });
  const failure = await runTrial(bwrap, trial);
  if (failure !== undefined)
    return { kind: "none", reason: `bubblewrap is installed but cannot make a sandbox here: ${failure}` };
  return { kind: "available", backend: bubblewrapBackend(bwrap) };
}

function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

const TRIAL_MS = 10_000;

function runTrial(bwrap: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(bwrap, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(`a trial run took over ${TRIAL_MS / 1000} s`);
    }, TRIAL_MS);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve(e.message);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : stderr.trim() || `it exited with ${code}`);
    });
  });
}
