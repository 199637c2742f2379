import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeText, isMinified } from '../../../src/discover/decode.js';
import { readCandidate, type ReadResult } from '../../../src/discover/read.js';
import { makeTempDir, removeDir, runWalk, writeTree } from './walk-helpers.js';

let root: string;
afterEach(() => removeDir(root));

/** Walks a root holding one file and reads it back the way the indexer does. */
function readOne(name: string, content: string | Uint8Array, maxFileBytes = 1_000_000): ReadResult {
  root = makeTempDir();
  writeTree(root, { [name]: content });
  const walked = runWalk(root, { maxFileBytes });
  const candidate = walked.files.find((f) => f.path === name);
  if (!candidate) throw new Error(`walk left out ${name}: ${walked.reasons.get(name)}`);
  return readCandidate(root, candidate, maxFileBytes);
}

function utf16le(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

function utf16be(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(le).swap16()]);
}

describe('size limits', () => {
  it('walk skips files over maxFileBytes as `too_large`, keeps a file of exactly the limit', () => {
    root = makeTempDir();
    writeTree(root, { 'big.ts': 'x'.repeat(2049), 'edge.ts': 'y'.repeat(2048) });
    const result = runWalk(root, { maxFileBytes: 2048 });
    expect(result.paths).toEqual(['edge.ts']);
    expect(result.reasons.get('big.ts')).toBe('too_large');
  });

  it('readCandidate re-checks the size: a file that grew after the walk is `too_large`', () => {
    root = makeTempDir();
    writeTree(root, { 'grow.ts': 'x' });
    const [candidate] = runWalk(root, { maxFileBytes: 100 }).files;
    writeFileSync(join(root, 'grow.ts'), 'x'.repeat(101));
    expect(readCandidate(root, candidate!, 100)).toEqual({ ok: false, reason: 'too_large' });
  });
});

describe('decoding', () => {
  it('reads plain UTF-8 and hashes the raw bytes', () => {
    const r = readOne('a.ts', 'const s = "héllo ✓ 😀";\n');
    expect(r).toMatchObject({ ok: true, encoding: 'utf-8', text: 'const s = "héllo ✓ 😀";\n', language: 'typescript', contentType: 'code' });
    expect(r.ok && r.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('strips a UTF-8 BOM from the text', () => {
    const r = readOne('bom.md', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Title\n')]));
    expect(r).toMatchObject({ ok: true, encoding: 'utf-8', text: '# Title\n', size: 11 });
  });

  it('skips a file with a NUL byte as `binary`', () => {
    const r = readOne('blob.dat', Buffer.from([0x41, 0x42, 0x00, 0x43, 0x0a]));
    expect(r).toMatchObject({ ok: false, reason: 'binary' });
    expect(r.ok === false && r.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('only sniffs the first 8 KiB for NUL bytes', () => {
    const late = Buffer.concat([Buffer.from('a\n'.repeat(4200)), Buffer.from([0])]);
    expect(decodeText(late).ok).toBe(true);
  });

  it('decodes a Latin-1 / windows-1252 file', () => {
    // "café – naïve €5" in windows-1252: é=E9, en dash=96, ï=EF, €=80
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65, 0x20, 0x80, 0x35, 0x0a]);
    expect(readOne('legacy.txt', bytes)).toMatchObject({ ok: true, encoding: 'windows-1252', text: 'café – naïve €5\n' });
  });

  it('maps bytes 0x80–0x9F by the WHATWG windows-1252 table, not as Latin-1 controls (nodejs/node#60888)', () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i);
    const expected = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
    expect(decodeText(bytes)).toEqual({ ok: true, encoding: 'windows-1252', text: expected });
  });

  it('decodes UTF-16LE and UTF-16BE with a BOM, despite their NUL bytes', () => {
    const text = 'def grüß():\n    return "日本"\n';
    expect(readOne('le.py', utf16le(text))).toMatchObject({ ok: true, encoding: 'utf-16le', text, language: 'python' });
    expect(decodeText(utf16be(text))).toEqual({ ok: true, encoding: 'utf-16be', text });
  });

  it('keeps UTF-8 with one stray invalid byte as UTF-8, the stray byte replaced', () => {
    const bytes = Buffer.concat([Buffer.from('naïve = 1\n'), Buffer.from([0xff]), Buffer.from('\nok = "✓"\n')]);
    const r = readOne('mixed.py', bytes);
    // "naïve" must stay findable: only the stray byte is lost, not every accented character
    expect(r).toMatchObject({ ok: true, encoding: 'utf-8' });
    expect(r.ok && r.text).toBe('naïve = 1\n\ufffd\nok = "✓"\n');
  });

  it('still reads a Latin-1 file with many non-UTF-8 bytes as windows-1252', () => {
    const r = readOne('latin.py', Buffer.from('café = "crème brûlée"; naïve = "à la"\n', 'latin1'));
    expect(r).toMatchObject({ ok: true, encoding: 'windows-1252' });
    expect(r.ok && r.text).toBe('café = "crème brûlée"; naïve = "à la"\n');
  });

  it('calls invalid UTF-8 with many control characters binary', () => {
    const bytes = Buffer.alloc(400);
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 3 === 0 ? 0x01 : i % 3 === 1 ? 0xc3 : 0x28;
    expect(decodeText(bytes)).toEqual({ ok: false, reason: 'binary' });
  });

  it('decodes an empty file to empty text', () => {
    expect(readOne('empty.ts', '')).toMatchObject({ ok: true, text: '', size: 0 });
  });
});

describe('minified files', () => {
  it('skips a huge one-line JS file as `minified`', () => {
    const js = 'var a=1;'.repeat(40_000);
    expect(readOne('vendor.js', js)).toMatchObject({ ok: false, reason: 'minified' });
  });

  it('skips a long file with one giant line as `minified`, keeps long ordinary files', () => {
    const normal = 'const x = 1; // a normal line of code\n'.repeat(2000);
    expect(isMinified(normal)).toBe(false);
    expect(isMinified(normal + 'x'.repeat(20_001) + '\n')).toBe(true);
    expect(isMinified('y'.repeat(19_999))).toBe(false);
  });

  it('keeps a 10 KB single line in a small file (below the minified threshold)', () => {
    expect(readOne('data.txt', 'z'.repeat(10_000) + '\n')).toMatchObject({ ok: true });
  });
});
