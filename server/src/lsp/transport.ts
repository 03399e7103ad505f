// The stdio transport with the guard the library lacks. A frame whose header is
// broken (no Content-Length, one that is not a number, or bytes that cannot start
// a header, which a Content-Length too short leaves) cannot be read past, since
// where the next message starts is lost: the library would report it to no one
// and sit silent, so here the process ends with a message on stderr and the
// editor sees the server stop and can start it again. A well-framed body that is
// not JSON is not that: it is answered with a parse error (-32700, id null) and
// the server reads on; so is a body over the cap, read past without being held
// (`frame-reader.ts` over `jsonrpc/framing.ts` tells them apart).
import type { Readable, Writable } from "node:stream";
import { FrameReader } from "./frame-reader.js";
import {
  StreamMessageWriter,
  type Message,
  type MessageReader,
  type MessageWriter,
} from "vscode-languageserver/node.js";

export interface StdioTransport {
  reader: MessageReader;
  writer: MessageWriter;
  /** Call once the client's shutdown request arrived: the end of input is then a clean exit. */
  shutdownReceived(): void;
}

/** The editor's stdio as bytes, for the relay (wrap mode), which frames them itself. */
export interface RawStdio {
  input: Readable;
  output: Writable;
  shutdownReceived(): void;
  broken(why: string, inHeader: boolean): void;
}

/** The end of the editor's input ends the server (cleanly after shutdown); so does a stream out of step. */
function stdioLife(): { shutdownReceived(): void; broken(why: string, inHeader: boolean): never } {
  let shutdown = false;
  // As the library does for raw streams: the client closing stdin ends the server.
  const ended = (): void => process.exit(shutdown ? 0 : 1);
  process.stdin.on("end", ended);
  process.stdin.on("close", ended);
  return {
    shutdownReceived: () => (shutdown = true),
    // The stream is out of step (a broken header, or a Content-Length too short whose body's rest waits as the
    // next header): the request it belonged to would go unanswered for ever, so the server stops and says why.
    broken: (why, inHeader) => {
      process.stderr.write(
        `lockstep: the editor sent a message with a broken ${inHeader ? "header" : "body (not JSON: its Content-Length may be too short)"} (${why.split("\n")[0]}); ` +
          "the stream cannot be read past it, so the server stops. Restart it; if this repeats, the client's framing is at fault.\n",
      );
      process.exit(1);
    },
  };
}

export function stdioTransport(): StdioTransport {
  const writer = new StreamMessageWriter(process.stdout);
  const life = stdioLife();
  const reader = new FrameReader(process.stdin, {
    invalid: (code, message, id) =>
      void writer.write({ jsonrpc: "2.0", id, error: { code, message } } as Message),
    broken: life.broken,
  });
  return { reader, writer, shutdownReceived: life.shutdownReceived };
}

export function rawStdio(): RawStdio {
  return { input: process.stdin, output: process.stdout, ...stdioLife() };
}
