/**
 * Which pi-fold instance folds each open Pi session, shared by every copy of pi-fold loaded
 * in one process (a global install and a project install, or the same package under two
 * paths). Two instances folding one session would each land their own window over the
 * other's. The first instance to see a request of a session folds it; another stands down
 * for it. A session is known by its session manager object: both instances of one session
 * are handed the same one, while a session opened again (a restart in the same process, an
 * SDK host opening it anew) has a new one and is claimed afresh. The table lives on
 * `globalThis` under a registered symbol, so copies of this module loaded from different
 * paths share it, and it holds its keys weakly.
 */
const CLAIMS_KEY = Symbol.for('pi-fold.session-claims');

type ClaimTable = WeakMap<object, symbol>;

function claimTable(): ClaimTable {
  const holder = globalThis as { [CLAIMS_KEY]?: ClaimTable };
  holder[CLAIMS_KEY] ??= new WeakMap();
  return holder[CLAIMS_KEY];
}

/** One instance's claims. */
export class InstanceClaims {
  private readonly token = Symbol('pi-fold instance');

  /** Whether this instance folds the session of `sessionManager`: it does if no other instance claimed it first. */
  claim(sessionManager: object): boolean {
    const table = claimTable();
    const owner = table.get(sessionManager);
    if (owner === undefined) {
      table.set(sessionManager, this.token);
      return true;
    }
    return owner === this.token;
  }
}
