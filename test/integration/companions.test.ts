/**
 * Companion ranking of long texts (issue 18; search.ranking.companionBoost) through a real index:
 * an issue text is about the config loader (`pkg/loader.py` comes first); the fix also changes
 * `pkg/registry.py`, which imports the loader but shares few of the text's words, so that five
 * files sharing more of them outrank it. With the companion step it enters the first 5 files and
 * says why; without it, it does not. The step leaves a short text alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/index.js';
import { useEnginesByConfig } from '../helpers/config-engines.js';

const filler = (name: string, words: string): string =>
  [`def ${name}(value):`, `    """${words} The plugins are kept."""`, '    return value', ''].join('\n');

const REPO: Record<string, string> = {
  'pkg/__init__.py': '',
  'pkg/loader.py': [
    'import yaml',
    '',
    'def load_config(path, environment=None):',
    '    """Load the yaml configuration file, merge the environment overrides and validate the schema."""',
    '    with open(path) as stream:',
    '        config = yaml.safe_load(stream)',
    '    overrides = environment or {}',
    '    config.update(overrides)',
    '    return validate_schema(config)',
    '',
    'def validate_schema(config):',
    '    """Validate the configuration against the schema; raise on a missing key."""',
    '    return config',
  ].join('\n'),
  'pkg/registry.py': ['import pkg.loader', '', 'def extension_table(path):', '    """The plugins of a project, merged."""', '    return pkg.loader.read(path)'].join('\n'),
  'other/merge.py': filler('merge_dicts', 'Merge two dicts; the overrides win over the defaults when a key is set in both, the environment too.'),
  'other/env.py': filler('read_environment', 'Read the environment variables with the prefix; overrides for the defaults, validated on merge.'),
  'other/schema.py': filler('schema_keys', 'The keys of a schema, required and optional; a missing key is an error when validated.'),
  'other/yaml_io.py': filler('dump_yaml', 'Write yaml to a file stream; the configuration keys sorted, the file closed on error.'),
  'other/errors.py': filler('missing_key', 'The error raised for a missing key in the configuration file when the schema is validated.'),
};

// unrelated modules, so that the text's words are rare enough to be searched
for (let i = 0; i < 40; i++) REPO[`misc/mod${i}.py`] = `def compute_${i}(a, b):\n    return a * ${i} + b\n`;

const QUERY = [
  'load_config drops the plugins when the environment overrides are merged',
  '',
  'When the yaml configuration file lists plugins and an environment override sets another key, the',
  'merged configuration loses the plugins list: the overrides replace the whole mapping instead of',
  'being merged key by key. The schema is then validated without them and no error is raised, so',
  'the project silently runs without its plugins. Expected: a deep merge of the overrides, the',
  'plugins kept, and a clear error for a missing key.',
].join('\n');

const ranking = (long: Record<string, number>): ConfigInput =>
  ({ search: { ranking: { byKind: { long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1, ...long } } } } }) as ConfigInput;

describe('companion ranking of long texts', () => {
  const configs: Record<string, ConfigInput> = { off: ranking({}), on: ranking({ companionBoost: 2, companionAnchors: 1 }) };
  const engines = useEnginesByConfig(REPO, configs);

  const files = async (name: string, query = QUERY): Promise<Array<{ path: string; why: readonly string[] }>> => {
    const hits = (await engines.get(name)!.search(query, { limit: 30, explain: true, rerank: false, mode: 'lexical' })).results;
    const seen = new Map<string, readonly string[]>();
    for (const h of hits) if (!seen.has(h.path)) seen.set(h.path, h.why ?? []);
    return [...seen].map(([path, why]) => ({ path, why }));
  };

  it('without the step, the importer of the loader is not among the first 5 files', async () => {
    const order = await files('off');
    expect(order[0]!.path).toBe('pkg/loader.py');
    expect(order.slice(0, 5).map((f) => f.path)).not.toContain('pkg/registry.py');
  });

  it('with it, the importer enters the first 5 files and says why', async () => {
    const order = await files('on');
    expect(order[0]!.path).toBe('pkg/loader.py');
    const at = order.findIndex((f) => f.path === 'pkg/registry.py');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(5);
    expect(order[at]!.why).toContain('companion of pkg/loader.py: imports it ×3.00');
  });

  it('any long text, words of the project or not, is ranked with the step without a crash', async () => {
    const words = [...new Set(Object.values(REPO).join(' ').split(/\W+/).filter((w) => w.length > 2))];
    const word = fc.oneof(fc.constantFrom(...words), fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('`load_config`', 'pkg/loader.py', '__init__', '../x', '"', '*'));
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 20, maxLength: 60 }), async (ws) => {
        const text = ws.join(' ');
        const on = (await engines.get('on')!.search(text, { limit: 10, rerank: false, mode: 'lexical' })).results;
        const off = (await engines.get('off')!.search(text, { limit: 10, rerank: false, mode: 'lexical' })).results;
        expect(on.length).toBe(off.length);
        // the first file never changes
        expect(on[0]?.path).toBe(off[0]?.path);
      }),
      { numRuns: 40 },
    );
  });

  it('a short text is ranked without the step', async () => {
    const short = 'load_config plugins';
    expect(await files('on', short)).toEqual(await files('off', short));
  });
});
