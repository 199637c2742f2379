/**
 * The words of long texts (issue 18, longterms; search.ranking.longTerms) through a real index: a
 * bug report pastes a traceback whose deepest frames are a library's (torch's `_call_impl`,
 * `forward_call`), names a project file installed in site-packages, and the project has a wrapper
 * that shares the library's names. With `frames` the library's frames are left out and the
 * project's frame is read with the index's path, so the file the trace runs through comes first;
 * without it the wrapper sharing the library's words does. `metaWords` leaves out the words of the
 * pull-request process that carry an unrelated script.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/index.js';
import { useEnginesByConfig } from '../helpers/config-engines.js';

const REPO: Record<string, string> = {
  'pkg/bundle/scripts.py': [
    'def run(config_file, meta_file=None):',
    '    workflow = ConfigWorkflow(config_file, meta_file)',
    '    workflow.initialize()',
    '    return workflow.run()',
  ].join('\n'),
  'pkg/bundle/workflows.py': ['class ConfigWorkflow:', '    def initialize(self):', '        self.parser = {}'].join('\n'),
  // the library's names, the project's own thin wrapper around them
  'pkg/nn/modules/module.py': [
    'class Module:',
    '    def _call_impl(self, *args, **kwargs):',
    '        forward_call = self.forward',
    '        return forward_call(*args, **kwargs)',
    '',
    '    def _wrapped_call_impl(self, *args, **kwargs):',
    '        return self._call_impl(*args, **kwargs)',
  ].join('\n'),
  'pkg/io/reader.py': ['def read_image(path):', '    return open(path).read()'].join('\n'),
};

const LIB = '/opt/conda/lib/python3.10/site-packages';
const QUERY = [
  'KeyError when a bundle is run from a config',
  '',
  'Traceback (most recent call last):',
  `  File "${LIB}/pkg/bundle/scripts.py", line 3, in run`,
  '    workflow.initialize()',
  `  File "${LIB}/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl`,
  '    return self._call_impl(*args, **kwargs)',
  `  File "${LIB}/torch/nn/modules/module.py", line 1527, in _call_impl`,
  '    return forward_call(*args, **kwargs)',
  `  File "${LIB}/torch/nn/modules/module.py", line 1527, in _call_impl`,
  '    return forward_call(*args, **kwargs)',
  "KeyError: 'network_def'",
].join('\n');

const config = (longTerms: Record<string, unknown>): ConfigInput => ({ search: { mode: 'lexical', ranking: { longTerms } } }) as ConfigInput;

describe('the words of long texts (longTerms)', () => {
  const configs: Record<string, ConfigInput> = { off: config({}), frames: config({ frames: true }) };
  const engines = useEnginesByConfig(REPO, configs);

  const search = async (name: string, query = QUERY) => engines.get(name)!.search(query, { limit: 5, rerank: false });

  it('without frames, the file sharing the library frames\' names comes first', async () => {
    const r = await search('off');
    expect(r.results[0]!.path).toBe('pkg/nn/modules/module.py');
    // the user's site-packages path is searched as written (a phrase no indexed path matches)
    expect(r.meta.terms).toContain(`${LIB}/pkg/bundle/scripts.py`);
  });

  it('with frames, the library frames are left out and the project frame is read as the index\'s path', async () => {
    const r = await search('frames');
    expect(r.results[0]!.path).toBe('pkg/bundle/scripts.py');
    expect(r.meta.terms).not.toEqual(expect.arrayContaining(['_call_impl']));
    for (const t of ['forward_call', '_wrapped_call_impl', `${LIB}/pkg/bundle/scripts.py`]) expect(r.meta.terms).not.toContain(t);
    expect(r.meta.terms).toContain('pkg/bundle/scripts.py');
  });

  it('a short query is untouched by frames', async () => {
    const q = '_call_impl forward_call';
    expect((await search('frames', q)).results.map((h) => h.path)).toEqual((await search('off', q)).results.map((h) => h.path));
  });
});
