/**
 * `prompts/list` and the resource template as clients receive them: a golden file (STYLE.md
 * habit 6), since a client shows these names and arguments to users. `UPDATE_GOLDEN=1` rewrites
 * it; review the diff before committing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listPrompts } from '../../../src/mcp/prompts.js';
import { FILE_TEMPLATE, fileUri, pathOfUri } from '../../../src/mcp/resources.js';

const GOLDEN = fileURLToPath(new URL('../../golden/mcp/prompts-list.json', import.meta.url));

describe('prompts/list', () => {
  it('matches the golden file', () => {
    const actual = `${JSON.stringify({ prompts: listPrompts(), resourceTemplates: [FILE_TEMPLATE] }, null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(GOLDEN)) {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, actual);
    }
    expect(actual).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('declares every argument with a description', () => {
    for (const p of listPrompts()) {
      expect(p.description, p.name).toBeTruthy();
      for (const a of p.arguments ?? []) expect(a.description, `${p.name}.${a.name}`).toBeTruthy();
    }
  });
});

describe('scry://file/ URIs', () => {
  it('round-trip paths with spaces, unicode, percent signs and hashes', () => {
    for (const path of ['src/a b.ts', 'docs/ünï.md', 'x/100%.txt', 'y/#1?.md']) {
      expect(pathOfUri(fileUri(path))).toBe(path);
    }
    expect(fileUri('src/a b.ts')).toBe('scry://file/src/a%20b.ts');
  });

  it('refuses other schemes, empty paths and bad percent-encoding', () => {
    for (const uri of ['file:///etc/passwd', 'scry://file/', 'scry://file/%E0%A4%A']) expect(() => pathOfUri(uri), uri).toThrow();
  });
});
