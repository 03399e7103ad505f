// Loads the bundled CLI (one CommonJS file) through a V8 code cache kept beside it,
// `<bundle>.cache`, so a start deserialises compiled code instead of parsing and
// compiling 1.5 MB of JavaScript; that halves spawn → initialize (bench/start-up.ts).
//
// Why not the v8-compile-cache package: it makes its cache right after compiling, so
// the cache holds the top level only. Ours is made at exit with createCachedData(),
// after the run has compiled the functions it needed (the build's warm-up runs a real
// server session for this; scripts/warm-code-cache.mjs), and saves ~35 ms more.
// Node ≥ 22.1 has module.enableCompileCache(), which makes this file unnecessary there.
//
// The cache file is a CRC-32 over the bundle and the V8 data, then the V8 data (Node's
// own compile cache checks the same two). V8 checks a cache against the source's
// length only, and aborts the process on damaged data, so a cache whose CRC does not
// match (made for another bundle, damaged on disk) is treated as missing and never
// handed to V8.
//
// LOCKSTEP_CODE_CACHE
//   unset  read the cache; write a new one at exit when it was missing or V8 rejected
//          it (another Node version or V8 flags)
//   off    neither read nor write (benchmarks)
//   write  compile from source and write a new cache at exit (the build's warm-up)
// Writing is best effort: a read-only install or a full disk just means no cache. A cache is
// not written for a bundle replaced while this process ran (a rebuild or an update), and
// temporary files of writers that were killed are removed by the next writer.
// With --enable-source-maps the bundle is required instead, without the cache: Node 20
// maps the stack traces of required files only, not of vm scripts.
import {
  accessSync,
  constants,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";

const CRC_BYTES = 4;
const TEMPORARY = /^(.*\.cache)\.(\d+)\.tmp$/;

/** The exports of the CommonJS file `bundle`, run as Node would run it. */
export function loadBundle(bundle, mode = process.env.LOCKSTEP_CODE_CACHE) {
  if (process.sourceMapsEnabled) return createRequire(import.meta.url)(bundle);
  const source = readFileSync(bundle);
  const cacheFile = `${bundle}.cache`;
  const caching = mode !== "off";
  const cachedData = caching && mode !== "write" ? readCache(cacheFile, source) : undefined;
  // Node's own CommonJS wrapper, with the source on lines of its own so that line
  // and column numbers in stack traces are the file's (lineOffset takes the first away).
  const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${source.toString("utf8")}\n})`;
  const script = new Script(wrapped, { filename: bundle, lineOffset: -1, cachedData });
  if (
    caching &&
    (mode === "write" || cachedData === undefined || script.cachedDataRejected) &&
    writable(path.dirname(bundle))
  ) {
    const compiled = identity(bundle);
    process.once("exit", () => {
      if (identity(bundle) === compiled) writeCache(cacheFile, source, script);
    });
  }
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return module.exports;
}

/** Size and modification time: what changes when the bundle is rebuilt or replaced. */
function identity(file) {
  try {
    const { size, mtimeMs } = statSync(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return "gone";
  }
}

function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Removes the temporary files of cache writers that died before renaming them. */
function removeAbandoned(cacheFile) {
  const dir = path.dirname(cacheFile);
  for (const name of readdirSync(dir)) {
    const match = TEMPORARY.exec(name);
    if (
      match?.[1] !== path.basename(cacheFile) ||
      Number(match[2]) === process.pid ||
      alive(Number(match[2]))
    )
      continue;
    rmSync(path.join(dir, name), { force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM"; // it exists, owned by someone else
  }
}

/** The cache file's first bytes: one CRC-32 over the bundle's bytes and then the V8 data's. */
function header(source, data) {
  const crc = Buffer.alloc(CRC_BYTES);
  crc.writeUInt32BE(crc32(data, crc32(source)));
  return crc;
}

/** The V8 data of `cacheFile` if it was made for `source` and is intact; otherwise undefined. */
function readCache(cacheFile, source) {
  let file;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (file.length <= CRC_BYTES) return undefined;
  const data = file.subarray(CRC_BYTES);
  return header(source, data).equals(file.subarray(0, CRC_BYTES)) ? data : undefined;
}

/** Replaces `cacheFile` atomically (temporary file, then rename); ignores every failure. */
function writeCache(cacheFile, source, script) {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    writeFileSync(temporary, Buffer.concat([header(source, data), data]));
    renameSync(temporary, cacheFile);
    removeAbandoned(cacheFile);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The directory is not writable: there is no temporary file either.
    }
  }
}
