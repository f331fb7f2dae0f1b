import type { EngineState } from '../../../ports/fold-records.ts';

/**
 * When a session's state is written. A state that lists a fold the last written one did not
 * is a commit: it is written before `save` returns (the commit's folds must survive a crash).
 * Any other change (pending marks, counters, notices, calibration) re-forms by itself after a
 * crash, so it is written off the request path: one write at a time per session, the newest
 * state replacing any not yet started, each still temp → fsync → rename. A failed background
 * write makes the next save wait for its own write, so the failure reaches a caller.
 */
export class FsStateWriter {
  private static readonly byRoot = new Map<string, FsStateWriter>();
  private readonly sessions = new Map<string, SessionWrites>();

  /** The writer every store on `root` in this process shares. */
  static forRoot(root: string): FsStateWriter {
    let writer = FsStateWriter.byRoot.get(root);
    if (writer === undefined) {
      writer = new FsStateWriter();
      FsStateWriter.byRoot.set(root, writer);
    }
    return writer;
  }

  /** `write` is the saving store's own (it syncs that store's pending directories first). */
  async save(sessionId: string, state: EngineState, write: StateWrite): Promise<void> {
    const session = this.session(sessionId);
    session.handed += 1;
    const sequence = session.handed;
    const commit = session.foldIds === undefined || state.foldIds.some((foldId) => !session.foldIds!.has(foldId));
    if (commit || session.failed) {
      await this.settle(sessionId);
      session.failed = false;
      await write(sessionId, state);
      session.foldIds = new Set(state.foldIds);
      session.landed = Math.max(session.landed, sequence);
      return;
    }
    session.pending = { state, write, sequence };
    session.running ??= this.drain(sessionId, session);
  }

  /**
   * Wait until the newest state handed to `save` for this session before this call is
   * written (or has failed). States handed over after the call are not waited for: a reader
   * during a stream of requests (each saving a state in the background) is not held until
   * the stream pauses.
   */
  async settle(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    const target = session.handed;
    while (session.landed < target && session.writing !== undefined) await session.writing;
  }

  async settleAll(): Promise<void> {
    for (const sessionId of this.sessions.keys()) await this.settle(sessionId);
  }

  private session(sessionId: string): SessionWrites {
    let session = this.sessions.get(sessionId);
    if (session === undefined) {
      session = {
        foldIds: undefined,
        pending: undefined,
        running: undefined,
        writing: undefined,
        handed: 0,
        landed: 0,
        failed: false,
      };
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  private async drain(sessionId: string, session: SessionWrites): Promise<void> {
    while (session.pending !== undefined) {
      const { state, write, sequence } = session.pending;
      session.pending = undefined;
      session.writing = write(sessionId, state).catch(() => {
        // The next save writes in the foreground and reports the store's error itself.
        session.failed = true;
      });
      await session.writing;
      session.landed = Math.max(session.landed, sequence);
    }
    session.writing = undefined;
    session.running = undefined;
  }
}

interface SessionWrites {
  /** Fold ids of the last state written in the foreground (undefined: none yet in this process). */
  foldIds: Set<string> | undefined;
  pending: { readonly state: EngineState; readonly write: StateWrite; readonly sequence: number } | undefined;
  running: Promise<void> | undefined;
  /** The background write under way, if any. */
  writing: Promise<void> | undefined;
  /** States handed to `save`, counted; and the number of the newest one written (or failed). */
  handed: number;
  landed: number;
  failed: boolean;
}

type StateWrite = (sessionId: string, state: EngineState) => Promise<void>;
