import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkDraft } from '../../src/core/chunk.js';
import { firstSentences, pairOf } from '../../train/pairs.js';
import { isHeldOut, permissiveLicence } from '../../train/sources.js';

const chunk = (symbol: string, kind: ChunkDraft['kind'] = 'function'): ChunkDraft => ({ kind, symbol, startLine: 1, endLine: 9, startByte: 0, endByte: 0 });

describe('training pairs (train/pairs.ts)', () => {
  it('takes a JSDoc block off the code and keeps its first sentence', () => {
    const text = '/**\n * Retries a failed upload with exponential backoff. Gives up after five tries.\n * @param file the file\n */\nexport async function sendWithBackoff(file) {\n  for (let i = 0; i < 5; i++) await put(file);\n}';
    expect(pairOf(chunk('sendWithBackoff'), text, 'javascript')).toEqual({
      description: 'Retries a failed upload with exponential backoff.',
      code: 'export async function sendWithBackoff(file) {\n  for (let i = 0; i < 5; i++) await put(file);\n}',
      symbol: 'sendWithBackoff', container: undefined, kind: 'function',
    });
  });

  it('takes a Python docstring out of the body', () => {
    const text = 'def merge_ranges(ranges):\n    """Merge overlapping ranges into a sorted list.\n\n    Args:\n        ranges: pairs\n    """\n    out = []\n    for a, b in sorted(ranges):\n        out.append((a, b))\n    return out\n';
    const p = pairOf(chunk('merge_ranges'), text, 'python')!;
    expect(p.description).toBe('Merge overlapping ranges into a sorted list.');
    expect(p.code).toBe('def merge_ranges(ranges):\n    out = []\n    for a, b in sorted(ranges):\n        out.append((a, b))\n    return out');
  });

  it('takes Go and Rust line comments, dropping a leading symbol name', () => {
    const go = '// ParseDuration parses a duration string such as 300ms or 2h45m.\nfunc ParseDuration(s string) (Duration, error) {\n\treturn parse(s, true)\n}';
    expect(pairOf(chunk('ParseDuration'), go, 'go')!.description).toBe('parses a duration string such as 300ms or 2h45m.');
    const rust = '/// Returns the number of bytes in the buffer that are not yet read.\n#[inline]\npub fn remaining(&self) -> usize {\n    self.len - self.pos\n}';
    const p = pairOf(chunk('remaining'), rust, 'rust')!;
    expect(p.code).toBe('#[inline]\npub fn remaining(&self) -> usize {\n    self.len - self.pos\n}');
  });

  it('keeps a doc that starts with a section word, and stops at a real section header', () => {
    expect(firstSentences('Returns the user record for an id.\nArgs:\n  id: the id', 'find')).toBe('Returns the user record for an id.');
    expect(firstSentences('Example values are parsed lazily here\nParameters\n----------\nx : int', 'f')).toBe('Example values are parsed lazily here');
    expect(firstSentences('Note: this walks the tree in order.', 'walk')).toBeUndefined();
  });

  it('drops trivial and boilerplate pairs', () => {
    const getter = '/** Gets the name of the user here. */\ngetName() {\n  return this.name;\n}';
    expect(pairOf(chunk('getName', 'method'), getter, 'javascript')).toBeUndefined();
    const inherit = '/** {@inheritDoc Base.run} */\nrun() {\n  doTheWork();\n  andMore();\n}';
    expect(pairOf(chunk('run', 'method'), inherit, 'javascript')).toBeUndefined();
    expect(pairOf(chunk('x'), '/** Short. */\nfunction x() {\n  return compute(1, 2, 3, 4);\n}', 'javascript')).toBeUndefined();
    expect(pairOf(chunk('f', 'window' as ChunkDraft['kind']), '/** A long enough description here. */\nfunction f() {}', 'javascript')).toBeUndefined();
  });

  it('never throws and keeps descriptions short on any doc text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.string({ maxLength: 20 }), (doc, symbol) => {
        const d = firstSentences(doc, symbol);
        if (d !== undefined) {
          expect(d.length).toBeLessThanOrEqual(300);
          expect((d.match(/[A-Za-z]{2,}/g) ?? []).length).toBeGreaterThanOrEqual(3);
        }
      }),
    );
  });
});

describe('training sources (train/sources.ts)', () => {
  it('accepts the permissive licences only', () => {
    expect(['MIT', 'Expat', 'BSD-3-clause', 'Apache-2.0', 'ISC', 'PSF-2', 'MPL-2.0', '(MIT OR GPL-3.0)', 'MIT AND BSD-2-Clause'].map(permissiveLicence)).toEqual(['MIT', 'MIT', 'BSD', 'Apache-2.0', 'ISC', 'PSF', 'MPL-2.0', 'MIT', 'MIT AND BSD']);
    expect(['GPL-3.0', 'LGPL-2.1+', 'MIT AND GPL-2.0', 'Unlicense', 'CC0-1.0', '', 'SEE LICENSE IN x'].map(permissiveLicence)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('holds out the evaluation projects by package name and path segment', () => {
    const extra = new Set(['axios', 'logrus']);
    for (const name of ['python3-requests', 'rxjs', '@typeorm/core', 'golang-github-sirupsen-logrus-dev', 'axios', 'python3-flask-cors', 'librust-globset-dev'])
      expect(isHeldOut(name, extra), name).toBe(true);
    for (const path of ['pip/_vendor/requests/api.py', 'lib/_pytest/main.py', 'node_modules/eslint/lib/linter.js'])
      expect(isHeldOut(path, extra), path).toBe(true);
    for (const name of ['lodash', 'python3-attr', 'golang-github-spf13-pflag-dev', 'src/requester.ts'])
      expect(isHeldOut(name, extra), name).toBe(false);
  });
});
