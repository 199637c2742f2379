/**
 * File evidence for long texts (issue 18; search.ranking.fileScore, mentionBoost) through a real
 * index: an issue body names a class (`DataStats`) that one file defines, while another file
 * shares more of the report's prose words. With the mention step the defining file comes first and
 * says why; without it the prose file wins. File scoring shows its factor on `--explain`, and a
 * short text is ranked without either step.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/index.js';
import { useEnginesByConfig } from '../helpers/config-engines.js';

const REPO: Record<string, string> = {
  'pkg/utility/array.py': [
    'class DataStats:',
    '    def __init__(self, prefix="Data", data_type=True):',
    '        self.prefix = prefix',
    '        self.data_type = data_type',
    '',
    '    def __call__(self, img):',
    '        return img',
  ].join('\n'),
  // the report's prose words, many times over, and no DataStats
  'pkg/printing/summary.py': [
    'def print_summary(value, optional=None):',
    '    """Print a summary of the value: its shape, the statistics and the meta information, printed on one line."""',
    '    print("summary", value, optional)',
    '',
    'def print_statistics(value, optional=None):',
    '    """Print the statistics of a tensor and its meta data, an optional argument controls what is printed."""',
    '    print("statistics", value)',
  ].join('\n'),
  'pkg/data/meta_obj.py': ['class MetaObj:', '    def __init__(self):', '        self.meta = {}'].join('\n'),
  'pkg/io/reader.py': ['def read_image(path):', '    return open(path).read()'].join('\n'),
};

const QUERY = [
  'Make the meta information optional when DataStats prints a tensor',
  '',
  'Printing the statistics of a tensor also printed its whole meta information, which is long and',
  'hard to read. This adds one optional argument so that the meta data is printed only on request;',
  'the summary line keeps the shape and the value statistics as before.',
].join('\n');

const ranking = (long: Record<string, number>): ConfigInput => ({ search: { ranking: { byKind: { long: { fileDecay: 0.9, ...long } } } } }) as ConfigInput;

describe('file evidence for long texts', () => {
  const configs: Record<string, ConfigInput> = { off: ranking({}), mention: ranking({ mentionBoost: 1 }), files: ranking({ fileScore: 0.7 }) };
  const engines = useEnginesByConfig(REPO, configs);

  const first = async (name: string, query = QUERY): Promise<{ path: string; why: readonly string[] }> => {
    const r = (await engines.get(name)!.search(query, { limit: 5, explain: true, rerank: false })).results[0]!;
    return { path: r.path, why: r.why ?? [] };
  };

  it('without it, the file sharing the prose words comes first', async () => {
    expect((await first('off')).path).toBe('pkg/printing/summary.py');
  });

  it('the file defining the class the text names comes first, and says why', async () => {
    const top = await first('mention');
    expect(top.path).toBe('pkg/utility/array.py');
    expect(top.why).toContain('file defines DataStats (named in the query) ×2');
    expect(top.why).toContain('long query: fileDecay 0.9, mentionBoost 1');
  });

  it('file scoring explains its factor for each chunk', async () => {
    const top = await first('files');
    expect(top.why.some((w) => /^file as a document [\d.]+ of the best ×[\d.]+$/.test(w))).toBe(true);
  });

  it('a short text (fewer than 20 terms) is ranked without file evidence', async () => {
    const short = 'DataStats prints the meta\ninformation of a tensor';
    const off = await first('off', short);
    const on = await first('mention', short);
    expect(on.path).toBe(off.path);
    expect(on.why.some((w) => w.startsWith('file defines'))).toBe(false);
  });
});
