// File input and output of the command line. The input is read once, as a stream, so it may be
// a pipe or FIFO and cannot change between a check and its use. The output goes to a private
// temporary file (random name, created exclusively, mode 0600) that becomes the output only once
// the whole release has succeeded; any failure or SIGINT/SIGTERM/SIGHUP removes it.
import { randomBytes } from 'node:crypto';
import { createReadStream, rmSync, type Stats } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline as pipe, Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A mistake in the arguments or the input data (exit code 2). */
export class UsageError extends Error {}

/** The input as text: UTF-8 checked strictly, so no byte is silently replaced. */
export function readText(path: string): { text: Readable; bytesRead: () => number } {
  const file = createReadStream(path);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const decode = (chunk: Buffer | undefined, done: TransformCallback) => {
    let text: string;
    try {
      text = chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      return done(new UsageError(`${path} is not UTF-8 text (within its first ${file.bytesRead} bytes).`));
    }
    done(null, text);
  };
  const text = new Transform({
    readableObjectMode: true,
    transform: (chunk: Buffer, _, done) => decode(chunk, done),
    flush: (done) => decode(undefined, done),
  });
  // Errors of the file (a missing input, say) reach whoever reads `text`; a reader that stops
  // early closes the file.
  pipe(file, text, () => {});
  return { text, bytesRead: () => file.bytesRead };
}

/** The lines of a text stream, without their '\n' (a final line needs none). */
export async function* lines(text: AsyncIterable<string>): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of text) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest !== '') yield rest;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Writes go here first; `commit` publishes them, `discard` (or any signal) removes them. */
export class PrivateOutput {
  private pending: string[] = [];
  private pendingLength = 0;
  /** Open once create() has made the file. */
  private handle: FileHandle | undefined;
  private constructor(
    readonly path: string,
    private readonly target: string | undefined,
  ) {
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
  }

  /**
   * A new temporary file next to `target` (so the final rename stays on one file system), or in
   * the system's temporary folder for standard output. 'wx' is O_CREAT | O_EXCL: it never opens
   * an existing file or follows a planted symbolic link, and the random name cannot be predicted.
   */
  static async create(target: string | undefined): Promise<PrivateOutput> {
    const folder = target === undefined ? tmpdir() : dirname(resolve(target));
    const path = join(folder, `.${target === undefined ? 'stdout' : basename(target)}.dpnoise-${randomBytes(16).toString('hex')}.tmp`);
    // The signal handlers are on before the file exists: a signal the moment it appears removes it.
    const output = new PrivateOutput(path, target);
    try {
      output.handle = await open(path, 'wx', 0o600);
    } catch (error) {
      output.forget();
      throw error;
    }
    return output;
  }

  /** Buffers the text, writing it in chunks of 64 KiB. */
  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= 1 << 16) await this.flush();
  }

  private async flush(): Promise<void> {
    const text = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    await this.handle!.writeFile(text);
  }

  /** Publishes the file: renamed over the target, or copied to standard output and removed. */
  async commit(): Promise<void> {
    await this.flush();
    await this.handle!.sync();
    await this.handle!.close();
    if (this.target !== undefined) {
      await rename(this.path, this.target);
      this.forget();
    } else {
      await pipeline(createReadStream(this.path), process.stdout, { end: false });
      this.discard();
    }
  }

  /** Removes the file (synchronously, so that it also works in a signal handler). */
  discard(): void {
    void this.handle?.close().catch(() => {});
    rmSync(this.path, { force: true });
    this.forget();
  }

  private forget(): void {
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
  }

  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.discard();
    process.kill(process.pid, signal); // with our handler gone, the signal ends the process as usual
  };
}

/** True when two stats are the same file (through any symbolic or hard link). */
export const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;
