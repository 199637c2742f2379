/**
 * The learned file ranker for long texts (issue 18, filerank; search.ranking.fileRanker) through a
 * real index with the shipped weights (models/ranker/file-weights.json), with the built-in model's
 * vectors (`file-hybrid`) and in lexical mode (`file-lexical`):
 * it runs only where the file evidence ran, orders the files by its score (each file's first
 * chunk in the order of the files' scores), keeps each file's chunks in their order, and
 * `--explain` shows each file's features and contributions. A short query is ranked without it.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigInput, SearchResult } from '../../src/index.js';
import { useEnginesByConfig } from '../helpers/config-engines.js';

const REPO: Record<string, string> = {
  'pkg/utility/array.py': [
    'class DataStats:',
    '    def __init__(self, prefix="Data", data_type=True):',
    '        self.prefix = prefix',
    '        self.data_type = data_type',
    '',
    '    def __call__(self, img):',
    '        """Print the statistics of the tensor."""',
    '        return img',
  ].join('\n'),
  'pkg/printing/summary.py': [
    'def print_summary(value, optional=None):',
    '    """Print a summary of the value: its shape, the statistics and the meta information, printed on one line."""',
    '    print("summary", value, optional)',
    '',
    'def print_statistics(value, optional=None):',
    '    """Print the statistics of a tensor and its meta data, an optional argument controls what is printed."""',
    '    print("statistics", value)',
  ].join('\n'),
  'tests/test_summary.py': ['from pkg.printing.summary import print_summary', '', 'def test_summary_prints_statistics():', '    print_summary("meta data tensor statistics")'].join('\n'),
  'pkg/data/meta_obj.py': ['class MetaObj:', '    def __init__(self):', '        self.meta = {}  # meta information of a tensor'].join('\n'),
  'pkg/io/reader.py': ['def read_image(path):', '    return open(path).read()'].join('\n'),
};

const QUERY = [
  'Make the meta information optional when DataStats prints a tensor',
  '',
  'Printing the statistics of a tensor also printed its whole meta information, which is long and',
  'hard to read. This adds one optional argument so that the meta data is printed only on request;',
  'the summary line keeps the shape and the value statistics as before.',
].join('\n');

const long = (extra: Record<string, unknown>): ConfigInput => ({ search: { ranking: { byKind: { long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1, ...extra } } } } }) as ConfigInput;

describe('the learned file ranker for long texts', () => {
  const engines = useEnginesByConfig(REPO, { rules: long({}), ranker: long({ fileRanker: true }) });

  const search = async (name: string, query = QUERY, mode?: 'lexical'): Promise<readonly SearchResult[]> => (await engines.get(name)!.search(query, { limit: 20, explain: true, rerank: false, ...(mode ? { mode } : {}) })).results;

  it.each([
    ['file-hybrid', undefined],
    ['file-lexical', 'lexical' as const],
  ])('orders the files by the ranker score and explains each one (%s)', async (model, mode) => {
    const hits = await search('ranker', QUERY, mode);
    expect(new Set(hits.map((h) => h.path)).size).toBeGreaterThanOrEqual(3);
    for (const h of hits) {
      expect(h.ranker?.model).toBe(model);
      expect(h.why?.some((w) => /^file ranker: file \d+ \(score /.test(w))).toBe(true);
      const sum = Object.values(h.ranker!.contributions).reduce((a, c) => a + c, 0);
      expect(sum).toBeCloseTo(h.ranker!.score, 6);
    }
    // the files' first chunks come in the order of their scores
    const firsts = hits.filter((h, i) => hits.findIndex((x) => x.path === h.path) === i);
    for (let i = 1; i < firsts.length; i++) expect(firsts[i]!.ranker!.score).toBeLessThanOrEqual(firsts[i - 1]!.ranker!.score);
    // each file says what lifted it: the file defining DataStats its mention, the prose file its evidence as a document
    expect(firsts.find((h) => h.path === 'pkg/utility/array.py')!.ranker!.contributions.mention).toBeGreaterThan(0);
    expect(firsts.find((h) => h.path === 'pkg/printing/summary.py')!.ranker!.features.evidence).toBe(1);
  });

  it("keeps each file's chunks in the order the rules gave them", async () => {
    const rules = await search('rules');
    const ranked = await search('ranker');
    expect(new Set(ranked.map((h) => `${h.path}:${h.startLine}`))).toEqual(new Set(rules.map((h) => `${h.path}:${h.startLine}`)));
    for (const path of new Set(rules.map((h) => h.path))) {
      expect(ranked.filter((h) => h.path === path).map((h) => h.startLine)).toEqual(rules.filter((h) => h.path === path).map((h) => h.startLine));
    }
    expect(rules.every((h) => h.ranker === undefined)).toBe(true);
  });

  it('leaves a short query alone', async () => {
    const hits = await search('ranker', 'print statistics');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.ranker === undefined && !(h.why ?? []).some((w) => w.startsWith('file ranker')))).toBe(true);
  });
});
