import { describe, expect, it } from 'vitest';
import { evidenceOf, retrieveArgs, retrieveTakes } from '../../../src/agent/evidence.js';
import type { Envelope } from '../../../src/tools/index.js';

describe('the retrieval seam', () => {
  it('passes task and draft on only when retrieve_context declares them', () => {
    const args = retrieveArgs({ query: 'q', task: 'fix', draft: 'foo()', diagnostics: [{ path: 'a.ts', line: 3, message: 'm' }], current: { path: 'a.ts', line: 3 }, tokens: 900, maxChunks: 4 });
    expect(args).toMatchObject({ query: 'q', current_path: 'a.ts', current_line: 3, tokens: 900, max_chunks: 4 });
    expect('task' in args).toBe(retrieveTakes('task'));
    expect('draft' in args).toBe(retrieveTakes('draft'));
    expect('diagnostics' in args).toBe(retrieveTakes('diagnostics'));
    expect(retrieveArgs({ query: 'q', draft: '  ', diagnostics: [] })).toEqual({ query: 'q' });
  });

  it('turns a retrieve_context envelope into cited evidence and the current-file window', () => {
    const envelope = {
      ok: true,
      error: null,
      meta: {},
      data: {
        current_file: { path: 'src/a.ts', start_line: 1, end_line: 9, total_lines: 40, cursor_line: 3, text: 'x' },
        pieces: [{ cite: 'src/b:c.ts:4-12', kind: 'chunk', hashes: ['h1'], text: 'y' }, { cite: 'garbage', kind: 'chunk', text: 'z' }],
        tokens: 10,
        budget: 100,
        candidates: 2,
        packer: 'context-pack',
      },
    } as unknown as Envelope;
    expect(evidenceOf(envelope)).toEqual({
      evidence: [{ path: 'src/b:c.ts', startLine: 4, endLine: 12, text: 'y', hash: 'h1' }],
      window: { path: 'src/a.ts', startLine: 1, endLine: 9, text: 'x' },
    });
    expect(evidenceOf({ ...envelope, ok: false } as Envelope)).toEqual({ evidence: [] });
  });
});
