// `lockstep trust [DIR]`, `lockstep trust --list`, `lockstep trust --remove DIR`: the folders
// whose .lockstep.json applies in full, recorded in lockstep's state directory by real path.
// A trusted folder covers the folders below it. Exit 0 done, 2 a usage error.
import { stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadSettings } from "../config/load-settings.js";
import { waitingForTrust } from "../config/project-keys.js";
import { addTrust, readTrustList, removeTrust, trustFilePath } from "../config/trust.js";
import { UsageError, type Io } from "./io.js";

export async function trustCommand(args: string[], io: Io): Promise<number> {
  const usage = (message: string): Error => new UsageError(message);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { list: { type: "boolean" }, remove: { type: "string" }, json: { type: "boolean" } },
  });
  if (values.list) {
    if (positionals.length > 0 || values.remove !== undefined) throw usage("trust --list takes nothing else");
    const list = readTrustList();
    if (values.json)
      io.stdout(
        JSON.stringify({
          ok: list.problem === undefined,
          data: {
            file: trustFilePath(),
            folders: list.folders,
            ...(list.problem ? { problem: list.problem } : {}),
          },
        }) + "\n",
      );
    else {
      if (list.problem) io.stderr(`lockstep trust: ${list.problem}\n`);
      io.stdout(
        list.folders.length === 0
          ? `No trusted folders (${trustFilePath()}).\n`
          : list.folders
              .map((f) => `${f.path}${f.added ? `  (since ${f.added.slice(0, 10)})` : ""}\n`)
              .join(""),
      );
    }
    return list.problem === undefined ? 0 : 1;
  }
  if (values.remove !== undefined) {
    if (positionals.length > 0) throw usage("trust --remove DIR takes one folder");
    const removed = removeTrust(values.remove);
    io.stdout(
      removed.removed
        ? `${removed.folder} is no longer trusted: its .lockstep.json sets only what an untrusted folder may.\n`
        : `${removed.folder} was not in the trust list (lockstep trust --list shows it); nothing changed.\n`,
    );
    return 0;
  }
  if (positionals.length > 1) throw usage("trust takes one folder (default: the current directory)");
  const dir = path.resolve(positionals[0] ?? process.cwd());
  if (
    !(await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw usage(`${positionals[0] ?? dir}: no such directory; give the project's folder`);
  const before = loadSettings({ root: dir });
  const added = addTrust(dir);
  const waiting = waitingForTrust(before.trust.ignored);
  const userOnly = before.trust.ignored.filter((i) => i.reason === "user-only").map((i) => i.key);
  io.stdout(
    `${added.folder} is ${added.added ? "now" : "already"} trusted: its .lockstep.json applies in full${waiting.length > 0 ? ` (${waiting.join(", ")} now apply)` : ""}.\n` +
      (userOnly.length > 0
        ? `${userOnly.join(", ")} still come only from your own settings, never from a project file.\n`
        : "") +
      `Recorded in ${trustFilePath()}; lockstep trust --remove ${added.folder} undoes it.\n`,
  );
  return 0;
}
