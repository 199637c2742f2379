import type { Freshness } from '../index.js';

export const REFRESHING_WARNING = 'index refresh in progress';

/**
 * What every tool result says about freshness, kept short: the index answers as it stands while a
 * pass runs (it is never blocked), so a result may miss what the pass has not reached yet.
 */
export function freshnessWarnings(f: Freshness): string[] {
  const out: string[] = [];
  if (f.state === 'indexing') {
    const p = f.progress;
    const where = p && p.phase === 'index' && p.filesTotal > 0 ? ` (${p.filesDone}/${p.filesTotal} files)` : '';
    const who = f.writer && f.writer.pid !== process.pid ? ` by pid ${f.writer.pid}` : '';
    out.push(`${REFRESHING_WARNING}${who}${where}`);
  } else if (f.state === 'pending') {
    out.push(f.rescanPending ? 'changes on disk are about to be indexed (rescan pending)' : `${f.pendingChanges} changed file${f.pendingChanges === 1 ? '' : 's'} about to be indexed`);
  }
  if (f.lastError !== null) out.push(`index refresh failed: ${f.lastError}`);
  return out;
}
