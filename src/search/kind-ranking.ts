/**
 * The ranking of one query kind (issue 18): `search.ranking.byKind[kind]` over `search.ranking`, so
 * the per-file steps (cap, closeness bound, spread, decay, file blend) can differ between a long
 * issue text, which wants a list of many files, and a one-sentence question, whose answer is often
 * a later chunk of the best file. Pure; docs/DESIGN.md "Ranking II".
 */
import type { RankingConfig } from '../config/schema.js';
import type { QueryKind } from './query-kind.js';

type KindRanking = NonNullable<RankingConfig['byKind'][QueryKind]>;

/** The settings a kind sets, without the unset keys. */
function setKeys(r: RankingConfig, kind: QueryKind): Partial<KindRanking> {
  const own = r.byKind[kind] ?? {};
  return Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)) as Partial<KindRanking>;
}

/** `ranking` with the keys `ranking.byKind[kind]` sets replacing its own. */
export function rankingForKind(ranking: RankingConfig, kind: QueryKind): RankingConfig {
  const own = setKeys(ranking, kind);
  return Object.keys(own).length === 0 ? ranking : { ...ranking, ...own };
}

/** The `--explain` line of the kind's own settings (`long query: fileCap 3, fileCapWithin 0.7`), or undefined when it sets none. */
export function kindRankingWhy(ranking: RankingConfig, kind: QueryKind): string | undefined {
  const own = Object.entries(setKeys(ranking, kind));
  return own.length === 0 ? undefined : `${kind} query: ${own.map(([k, v]) => `${k} ${String(v)}`).join(', ')}`;
}

/**
 * The per-file diversity a kind sets for a list ranked after the lexical pipeline (the hybrid
 * blend, whose lexical list is uncapped and undecayed): undefined when the kind sets none of
 * fileCap, fileCapWithin, fileCapSpread, fileDecay.
 */
export function kindDiversity(ranking: RankingConfig, kind: QueryKind): { cap: number; within: number; spread: number; decay: number } | undefined {
  const own = setKeys(ranking, kind);
  if (own.fileCap === undefined && own.fileCapWithin === undefined && own.fileCapSpread === undefined && own.fileDecay === undefined) return undefined;
  return { cap: own.fileCap ?? 0, within: own.fileCapWithin ?? 0, spread: own.fileCapSpread ?? 0, decay: own.fileDecay ?? 1 };
}

/**
 * `ranking` with the file-evidence steps off (`fileScore`, `mentionBoost`, `fileRanker`, `companionBoost`, top level and per kind):
 * what the team index ranks by, since it has no per-file walk of its postings nor a symbol lookup
 * in its ranking (docs/DESIGN.md "Team index"); its `--explain` then names no step it did not take.
 */
export function withoutFileEvidence(ranking: RankingConfig): RankingConfig {
  const byKind: RankingConfig['byKind'] = {};
  for (const [kind, own] of Object.entries(ranking.byKind) as Array<[QueryKind, KindRanking | undefined]>) {
    if (!own) continue;
    const { fileScore: _score, mentionBoost: _boost, fileRanker: _ranker, companionBoost: _companions, companionAnchors: _anchors, ...rest } = own;
    byKind[kind] = rest;
  }
  return { ...ranking, fileScore: 0, mentionBoost: 0, fileRanker: false, companionBoost: 0, byKind };
}
