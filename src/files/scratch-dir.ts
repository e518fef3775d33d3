import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A directory of the system's temporary files, made at its first use: a run that needs none
 * makes none, so a process killed before its clean-up (SIGKILL) leaves nothing behind, and
 * one that needs it (an audience's segment, a test send's rows) leaves only that.
 */
export class ScratchDir {
  readonly #prefix: string;
  readonly #parent: string;
  #made: Promise<string> | undefined;

  /** `prefix`: the start of the directory's name (`campaign-send-`); `parent`: where it is made. */
  constructor(prefix: string, parent: string = tmpdir()) {
    this.#prefix = prefix;
    this.#parent = parent;
  }

  /** The directory, made now if it is not yet. */
  path(): Promise<string> {
    this.#made ??= mkdtemp(join(this.#parent, this.#prefix));
    return this.#made;
  }

  /** Removes the directory and what it holds, if it was made. */
  async remove(): Promise<void> {
    const made = await this.#made?.catch(() => undefined);
    if (made !== undefined) await rm(made, { recursive: true, force: true });
  }
}
