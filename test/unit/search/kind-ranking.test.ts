import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/config/defaults.js';
import type { RankingConfig } from '../../../src/config/schema.js';
import { kindDiversity, kindRankingWhy, rankingForKind, withoutFileEvidence } from '../../../src/search/kind-ranking.js';

const base = DEFAULT_CONFIG.search.ranking as RankingConfig;
const withKinds = (byKind: RankingConfig['byKind']): RankingConfig => ({ ...base, byKind });

describe('rankingForKind', () => {
  it("replaces only the keys a kind sets, for that kind only", () => {
    const r = withKinds({ long: { fileCap: 3, fileCapWithin: 0.7 }, natural: { fileDecay: 0.8 } });
    expect(rankingForKind(r, 'long')).toMatchObject({ fileCap: 3, fileCapWithin: 0.7, fileDecay: base.fileDecay, fileBlend: base.fileBlend });
    expect(rankingForKind(r, 'natural')).toMatchObject({ fileCap: base.fileCap, fileDecay: 0.8 });
    // a kind without settings gets the ranking itself
    expect(rankingForKind(r, 'identifier')).toBe(r);
    expect(rankingForKind(withKinds({ path: {} }), 'path')).toMatchObject({ fileCap: base.fileCap });
  });

  it('names what a kind sets for --explain, and nothing when it sets none', () => {
    const r = withKinds({ long: { fileCap: 3, fileCapWithin: 0.7, learned: true } });
    expect(kindRankingWhy(r, 'long')).toBe('long query: fileCap 3, fileCapWithin 0.7, learned true');
    expect(kindRankingWhy(r, 'natural')).toBeUndefined();
  });

  it("gives the blend a kind's per-file steps, with unset ones off, and none when the kind sets none", () => {
    expect(kindDiversity(withKinds({ natural: { fileDecay: 0.9 } }), 'natural')).toEqual({ cap: 0, within: 0, spread: 0, decay: 0.9 });
    expect(kindDiversity(withKinds({ natural: { fileCap: 3, fileCapSpread: 2 } }), 'natural')).toEqual({ cap: 3, within: 0, spread: 2, decay: 1 });
    // a file blend alone is a lexical step: no diversity for the blended list
    expect(kindDiversity(withKinds({ natural: { fileBlend: 0.3 } }), 'natural')).toBeUndefined();
    expect(kindDiversity(base, 'natural')).toBeUndefined();
  });
});

describe('withoutFileEvidence (the team index ranks without it)', () => {
  it('turns fileScore, mentionBoost, the file ranker and companions off at the top and for every kind, keeping the rest', () => {
    const r = withoutFileEvidence({ ...withKinds({ long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1, fileRanker: true, companionBoost: 0.4, companionAnchors: 1 }, natural: { fileCap: 2 } }), fileScore: 0.5, mentionBoost: 2, fileRanker: true, companionBoost: 1 });
    expect(r).toMatchObject({ fileScore: 0, mentionBoost: 0, fileRanker: false, companionBoost: 0, fileDecay: base.fileDecay });
    expect(r.byKind).toEqual({ long: { fileDecay: 0.9 }, natural: { fileCap: 2 } });
    expect(kindRankingWhy(r, 'long')).toBe('long query: fileDecay 0.9');
  });
});
