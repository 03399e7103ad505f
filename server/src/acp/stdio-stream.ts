// ACP's stdio stream (one JSON-RPC message per line), read under the bounds every
// door shares (`jsonrpc/limits.ts`). The SDK's ndJsonStream errors the whole stream
// at a line past its 32 MB buffer, and the agent then ended with exit 0 and nothing
// on stderr, every session gone. Here a line past the cap, or a message nested past
// the depth cap, is answered with a JSON-RPC error (by its id when it has one),
// told on stderr, and the next line is read. A message that cannot be written
// (an answer too deep to serialise) is replaced by an error answer, not the end.
import type { Readable, Writable } from "node:stream";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { MAX_MESSAGE_BYTES, parseBounded, tooDeepMessage, tooLargeMessage } from "../jsonrpc/limits.js";
import { idInHead, LineSplitter, topLevelId } from "../jsonrpc/line-splitter.js";

export interface AcpStdio {
  stream: Stream;
  /** Why the input ended other than by the editor closing it; undefined while it has not, or when it closed. */
  failure(): string | undefined;
}

const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!;

export function acpStdio(
  input: Readable,
  output: Writable,
  report: (line: string) => void,
  maxBytes = MAX_MESSAGE_BYTES,
): AcpStdio {
  let failure: string | undefined;
  let outputGone = false;
  output.on("error", (error) => {
    outputGone = true;
    failure ??= `the editor's end of stdout failed (${errorText(error)})`;
  });
  const writeLine = (text: string): Promise<void> =>
    new Promise((resolve) => {
      if (outputGone || output.write(text + "\n")) resolve();
      else output.once("drain", resolve);
    });
  const answerError = (id: string | number | null, code: number, message: string): Promise<void> =>
    writeLine(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
  const refuse = (id: string | number | null, message: string): void => {
    report(`${message}${id === null ? "" : ` (request id ${JSON.stringify(id)})`}\n`);
    void answerError(id, -32600, message);
  };

  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      const lines = new LineSplitter(
        (line) => {
          const parsed = parseBounded(line);
          if (!parsed.ok && parsed.reason === "depth")
            return refuse(topLevelId(parsed.value), tooDeepMessage("lockstep acp: a message"));
          if (!parsed.ok)
            return void answerError(
              null,
              -32700,
              `Parse error: a line that is not JSON (${parsed.message}).`,
            );
          const message = parsed.value;
          if (Array.isArray(message))
            return void answerError(null, -32600, "Invalid request: JSON-RPC batches are not supported.");
          if (typeof message !== "object" || message === null)
            return void answerError(null, -32600, "Invalid request: a message is a JSON object.");
          controller.enqueue(message as AnyMessage);
        },
        (head) => refuse(idInHead(head.toString("utf8")), tooLargeMessage("lockstep acp", maxBytes)),
        maxBytes,
      );
      input.on("data", (chunk: Buffer) => lines.push(chunk));
      input.once("end", () => {
        lines.end();
        controller.close();
      });
      input.once("error", (error) => {
        failure ??= `stdin failed (${errorText(error)})`;
        controller.close();
      });
    },
  });

  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      let text: string;
      try {
        text = JSON.stringify(message);
      } catch (error) {
        // An answer that cannot be serialised still answers its request; a notification is told on stderr.
        const id =
          "id" in message &&
          (typeof message.id === "string" || typeof message.id === "number") &&
          !("method" in message)
            ? message.id
            : null;
        report(
          `lockstep acp: a message could not be written (${errorText(error)})${id === null ? "; it was dropped" : `; request ${JSON.stringify(id)} is answered with an error`}.\n`,
        );
        if (id !== null)
          await answerError(id, -32603, `lockstep could not write its answer (${errorText(error)}).`);
        return;
      }
      await writeLine(text);
    },
  });
  return { stream: { readable, writable }, failure: () => failure };
}
