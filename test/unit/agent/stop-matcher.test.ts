import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StopMatcher } from '../../../src/agent/stop-matcher.js';

/** The oracle: the whole text up to the first occurrence of any stop sequence. */
function reference(text: string, stops: readonly string[]): string {
  let cut = text.length;
  for (const s of stops) {
    const i = s === '' ? -1 : text.indexOf(s);
    if (i !== -1 && i < cut) cut = i;
  }
  return text.slice(0, cut);
}

describe('StopMatcher', () => {
  it('releases text as it streams and cuts at the first stop sequence, across chunk boundaries', () => {
    const m = new StopMatcher(['\n\n']);
    expect(m.push('return x;\n')).toBe('return x;');
    expect(m.push('\nmore')).toBe('');
    expect(m.stopped).toBe(true);
    expect(m.flush()).toBe('');
    expect(m.text).toBe('return x;\n'.slice(0, -1));
  });

  it('with no stop sequences releases everything at once', () => {
    const m = new StopMatcher([]);
    expect(m.push('ab')).toBe('ab');
    expect(m.flush()).toBe('');
  });

  it('agrees with the oracle for any chunking of any text (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', '\n', ';', '}');
    const text = fc.array(alphabet, { maxLength: 60 }).map((a) => a.join(''));
    const stop = fc.array(alphabet, { minLength: 1, maxLength: 3 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.array(stop, { maxLength: 3 }), fc.array(fc.nat(60), { maxLength: 10 }), (t, stops, cuts) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, t.length)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let at = 0;
        for (const p of [...points, t.length]) {
          chunks.push(t.slice(at, p));
          at = p;
        }
        const m = new StopMatcher(stops);
        let out = '';
        for (const c of chunks) out += m.push(c);
        out += m.flush();
        expect(out).toBe(reference(t, stops));
        expect(m.text).toBe(out);
      }),
    );
  });
});
