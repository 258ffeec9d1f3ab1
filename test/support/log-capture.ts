import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A real pino logger at `info` whose output the test reads back. */
export interface CapturedLog {
  logger: Logger;
  /** Every line written, as written (JSON). */
  lines: string[];
  /** Everything written since the last {@link clear}, as one string. */
  text(): string;
  clear(): void;
}

/** Captures a server's log in memory, to assert what it writes and what it never writes. */
export function captureLog(): CapturedLog {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines, text: () => lines.join(''), clear: () => void (lines.length = 0) };
}
