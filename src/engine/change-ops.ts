import type { Logger } from '../core/logger.js';
import type { WalkOptions } from '../discover/walk.js';
import type { IndexReport } from '../indexer/index-report.js';
import type { AppliedChange, ChangeRequest } from '../workspace/change.js';
import type { ConfirmationTokens } from '../workspace/confirmation.js';

/** What applying a change needs from the engine. */
export interface ChangeDeps {
  readonly root: string;
  readonly walk: WalkOptions;
  readonly indexedPaths: () => string[];
  readonly tokens: () => ConfirmationTokens;
  readonly isIndexed: () => boolean;
  readonly index: (paths: readonly string[]) => Promise<IndexReport>;
  readonly logger: Logger;
}

/**
 * `apply_change`: the request validated again, the token checked against this very change's hash
 * and consumed, the files written, then the touched paths re-indexed (a failed re-index is
 * reported, the change stays written).
 */
export async function applyChangeWith(deps: ChangeDeps, request: ChangeRequest, confirmationToken: string | undefined): Promise<AppliedChange> {
  const { commitChange, confirmationRequired, prepareChange } = await import('../workspace/change.js');
  const prepared = prepareChange(deps.walk, request, deps.indexedPaths);
  if (confirmationToken === undefined) throw confirmationRequired(prepared.proposal);
  deps.tokens().consume(confirmationToken, { root: deps.root, hash: prepared.proposal.hash });
  commitChange(prepared);
  if (!deps.isIndexed()) return { ...prepared.proposal, reindexed: 0 };
  try {
    const report = await deps.index(prepared.paths);
    return { ...prepared.proposal, reindexed: report.filesIndexed + report.filesRemoved };
  } catch (err) {
    deps.logger.warn('re-index after a change failed', { paths: prepared.paths, error: (err as Error).message });
    return { ...prepared.proposal, reindexed: 0, reindexError: (err as Error).message };
  }
}
