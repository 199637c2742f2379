/**
 * The companion step of a long text's chunk list (issue 18; companions.ts): reads the imports of
 * the files at the head of the list (one SQL read) and boosts the files tied to the first ones.
 */
import type { RankingConfig } from '../config/schema.js';
import type { IndexStore } from '../store/index-store.js';
import { applyCompanions, fileOrder, findCompanions, type FileImports } from './companions.js';

/** Files ranked below the anchors down to this file rank may be companions. */
export const COMPANION_WINDOW = 20;

type Ranked = { readonly path: string; readonly language: string; readonly score: number; readonly startLine: number; readonly why?: readonly string[] | undefined };

/** `rows` (best first) with the companion step applied when `ranking.companionBoost` > 0. */
export function companionStep<T extends Ranked>(store: IndexStore, rows: readonly T[], ranking: Pick<RankingConfig, 'companionBoost' | 'companionAnchors'>): Array<T & { readonly why?: readonly string[] | undefined }> {
  if (ranking.companionBoost <= 0 || rows.length === 0) return [...rows];
  const settings = { boost: ranking.companionBoost, anchors: ranking.companionAnchors, window: COMPANION_WINDOW };
  const head = fileOrder(rows).slice(0, settings.window);
  const language = new Map(rows.map((r) => [r.path, r.language]));
  const imports = new Map<string, FileImports & { sources: string[] }>();
  for (const [path, source] of store.read(() => store.structure.importSourcesOf(head))) {
    const own = imports.get(path) ?? { language: language.get(path) ?? '', sources: [] };
    own.sources.push(source);
    imports.set(path, own);
  }
  return applyCompanions(rows, findCompanions(head, imports, settings), settings.boost, settings.anchors);
}
