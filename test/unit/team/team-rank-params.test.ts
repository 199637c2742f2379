import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/config/defaults.js';
import { rankingForKind } from '../../../src/search/kind-ranking.js';
import { teamRankParams } from '../../../src/team/pg-search.js';

describe('teamRankParams', () => {
  it('ranks without the file-evidence steps of long texts, which the team index does not mirror', () => {
    // the shipped default sets them for long queries; the team store must neither apply nor claim them
    expect(rankingForKind(DEFAULT_CONFIG.search.ranking, 'long')).toMatchObject({ fileScore: 0.7, mentionBoost: 1 });
    const p = teamRankParams('a long issue text', {}, DEFAULT_CONFIG.search);
    expect(rankingForKind(p.ranking, 'long')).toMatchObject({ fileDecay: 0.9, fileScore: 0, mentionBoost: 0 });
    expect(p.ranking.byKind.long).toEqual({ fileDecay: 0.9 });
  });
});
