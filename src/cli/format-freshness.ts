import type { Freshness } from '../index.js';

/** One `freshness:` line for `scry status`: who keeps the index fresh, and what is pending. */
export function formatFreshness(f: Freshness): string {
  if (!f.writer) return 'freshness: not watched: the index is as fresh as its last pass (`scry watch` or `scry mcp` keep it fresh)\n';
  if (f.writer.role === 'index' && !f.lastPass) return `freshness: pid ${f.writer.pid} is running an index pass${progress(f)}\n`;
  const how = f.watcher ? `${f.watcher.backend}${f.watcher.backend === 'poll' ? '' : `, ${f.watcher.watches} watches`}${f.watcher.fallbackReason ? `; ${f.watcher.fallbackReason}` : ''}` : 'no file watcher';
  const state =
    f.state === 'indexing' ? `indexing${progress(f)}` : f.state === 'pending' ? (f.rescanPending ? 'rescan pending' : `${f.pendingChanges} change${f.pendingChanges === 1 ? '' : 's'} pending`) : f.state;
  const last = f.lastPass ? ` · last pass ${f.lastPass.at} (${f.lastPass.reason}: ${f.lastPass.filesIndexed} indexed, ${f.lastPass.filesRemoved} removed, ${Math.round(f.lastPass.durationMs)} ms)` : '';
  const error = f.lastError ? ` · last error: ${f.lastError}` : '';
  return `freshness: ${state} · watched by pid ${f.writer.pid} (${how})${last}${error}\n`;
}

function progress(f: Freshness): string {
  const p = f.progress;
  return p && p.phase === 'index' && p.filesTotal > 0 ? ` (${p.filesDone}/${p.filesTotal} files)` : '';
}
