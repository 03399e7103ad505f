// The threads where patterns run. A JavaScript regular expression cannot be
// interrupted, and a pattern such as (a+)+$ can spin for minutes on one line:
// here it spins off the server's thread, which keeps answering, watches a
// counter of finished files, and ends the thread when one file takes too long,
// or when the search is cancelled. Several threads (a core is left to the
// server's thread, which walks and answers; at most four) search batches side by side; each is built from the source of
// file-scan.ts's and line-search.ts's functions (no bundle to load) and kept
// for the next search.
import { isUtf8 } from "node:buffer";
import * as fs from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import {
  candidateTest,
  countLines,
  eachWindow,
  searchBatch,
  searchItem,
  searchLocated,
  type BatchRequest,
  type ItemAnswer,
  type ScanIo,
} from "./file-scan.js";
import { searchLines } from "./line-search.js";

export type { BatchRequest };

export type BatchOutcome =
  | { kind: "done"; answers: ItemAnswer[] }
  | { kind: "cancelled" }
  /** `index`: the item that took longer than the limit. */
  | { kind: "stalled"; index: number }
  | { kind: "failed"; message: string };

/** Bytes a thread reads a file into at a time (a window of whole lines). */
export const READ_WINDOW_BYTES = 1024 * 1024;

/** Threads searching at once: one core is left to the server's thread (on 2 cores, read_file's p90 during a search went from 50 to 21 ms). */
export const SEARCH_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));

/** Every core, at most four: for a process with nothing else to answer while it searches. */
const ALL_THREADS = Math.max(1, Math.min(4, availableParallelism()));

let alone = false;

/**
 * This process answers nothing else while it searches (`lockstep search`): the files ripgrep
 * names are searched on every core, not on all but one.
 */
export function searchAlone(): void {
  alone = true;
}

/** Threads that search the files ripgrep names at once (the server's thread then only waits, or answers). */
export function judgeThreads(): number {
  return alone ? ALL_THREADS : SEARCH_THREADS;
}

function workerSource(): string {
  return `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const { isUtf8 } = require("node:buffer");
const done = new Int32Array(workerData.progress);
const io = { fs, isUtf8, decoder: new TextDecoder("utf-8", { ignoreBOM: true }), buffer: Buffer.allocUnsafe(${READ_WINDOW_BYTES}) };
${searchLines.toString()}
${candidateTest.toString()}
${countLines.toString()}
${eachWindow.toString()}
${searchLocated.toString()}
${searchItem.toString()}
${searchBatch.toString()}
parentPort.on("message", (batch) =>
  parentPort.postMessage(${searchBatch.name}(batch, io, ${searchLines.name}, () => Atomics.add(done, 0, 1))),
);
`;
}

interface Thread {
  worker: Worker;
  progress: Int32Array;
}

const idle: Thread[] = [];
/** Threads made and not ended, idle or searching. */
let live = 0;

/** Starts the threads a search will use, so that they load while it walks. */
export function warmThreads(): void {
  while (live < SEARCH_THREADS) {
    const t = newThread();
    t.worker.unref();
    idle.push(t);
  }
}

function thread(): Thread {
  return idle.pop() ?? newThread();
}

function newThread(): Thread {
  live++;
  const buffer = new SharedArrayBuffer(4);
  // A small young generation: what a thread makes (64 KB pieces of text) dies young, and
  // a smaller nursery is collected sooner, which keeps the process's memory down.
  const worker = new Worker(workerSource(), {
    eval: true,
    workerData: { progress: buffer },
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  return { worker, progress: new Int32Array(buffer) };
}

/** How often the server looks at the thread's counter (ms). */
const WATCH_EVERY_MS = 50;

/**
 * Whether a batch is searched in this thread: in a process that answers nothing else, for a
 * pattern with no regular-expression syntax (its matching cannot spin, so it needs no watched
 * thread, and no thread need start).
 */
export function searchesHere(pattern: { source: string }): boolean {
  return alone && !/[\\^$.*+?()[\]{}|]/.test(pattern.source);
}

let hereIo: ScanIo | undefined;

/** Searches one batch on a search thread (or here, see searchesHere); a file that runs over `fileTimeLimitMs` stops it. */
export function runBatch(
  request: BatchRequest,
  signal: AbortSignal,
  fileTimeLimitMs: number,
  here = false,
): Promise<BatchOutcome> {
  if (signal.aborted) return Promise.resolve({ kind: "cancelled" });
  if (here) {
    hereIo ??= {
      fs,
      isUtf8,
      decoder: new TextDecoder("utf-8", { ignoreBOM: true }),
      buffer: Buffer.allocUnsafe(READ_WINDOW_BYTES),
    };
    return Promise.resolve({ kind: "done", answers: searchBatch(request, hereIo, searchLines, () => {}) });
  }
  const t = thread();
  const { worker, progress } = t;
  worker.ref();
  const startCount = Atomics.load(progress, 0);
  return new Promise<BatchOutcome>((resolve) => {
    let last = startCount;
    let lastChange = performance.now();
    const finish = (outcome: BatchOutcome, keep: boolean): void => {
      clearInterval(watch);
      signal.removeEventListener("abort", abort);
      worker.off("message", answered);
      worker.off("error", failed);
      if (keep && idle.length < judgeThreads()) {
        worker.unref();
        idle.push(t);
      } else {
        live--;
        void worker.terminate();
      }
      resolve(outcome);
    };
    const answered = (answers: ItemAnswer[]): void => finish({ kind: "done", answers }, true);
    const failed = (error: Error): void => finish({ kind: "failed", message: error.message }, false);
    const abort = (): void => finish({ kind: "cancelled" }, false);
    const watch = setInterval(() => {
      const now = Atomics.load(progress, 0);
      if (now !== last) {
        last = now;
        lastChange = performance.now();
      } else if (performance.now() - lastChange > fileTimeLimitMs) {
        finish({ kind: "stalled", index: now - startCount }, false);
      }
    }, WATCH_EVERY_MS);
    signal.addEventListener("abort", abort, { once: true });
    worker.on("message", answered);
    worker.once("error", failed);
    worker.postMessage(request);
  });
}
