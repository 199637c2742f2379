/**
 * CJK text through a real index: FTS5's unicode61 tokenizer keeps a run of Han, kana or Hangul
 * letters whole, so before bigrams only a query equal to a whole run matched. A repository with
 * Chinese, Japanese and Korean comments and docs beside English ones; each query must find its
 * file first, a word inside a longer run included, and a mixed CJK + Latin query too.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { isolatedEnv, tempDir, writeTree } from '../helpers/temp.js';

const REPO: Record<string, string> = {
  'src/db/connect.ts': [
    '// 连接数据库失败时进行超时重试，最多三次',
    'export async function connect(url: string, timeout = 5000): Promise<void> {',
    '  for (let attempt = 0; attempt < 3; attempt++) {',
    '    if (await tryOpen(url, timeout)) return; // 超时后等待再试',
    '  }',
    '}',
    'declare function tryOpen(url: string, timeout: number): Promise<boolean>;',
  ].join('\n'),
  'docs/ja/backup.md': ['# バックアップ', '', 'データベースへの接続がタイムアウトした場合は再試行します。', '毎晩バックアップを作成する。'].join('\n'),
  'docs/ko/retry.md': ['# 재시도', '', '데이터베이스 연결 시간이 초과되면 재시도합니다.'].join('\n'),
  'docs/zh/cache.md': ['# 缓存', '', '缓存层在内存中保存查询结果，不访问磁盘。'].join('\n'),
  'src/cache/lru.ts': ['// An LRU cache with a timeout per entry', 'export class Lru<K, V> { constructor(readonly timeout: number) {} }'].join('\n'),
  // timeout everywhere but no CJK: without the CJK term it would win the mixed query
  'src/net/timeout.ts': ['// timeout: the timeout of a request', 'export const timeout = (ms: number): number => ms; // timeout in ms', 'export const defaultTimeout = timeout(5000);'].join('\n'),
  'README.md': ['# Demo', '', 'Connects to the database with a timeout and retries.'].join('\n'),
};

describe('search finds CJK words inside longer runs', () => {
  let t: ReturnType<typeof tempDir>;
  let engine: Engine;

  beforeAll(async () => {
    t = tempDir();
    const root = join(t.dir, 'repo');
    writeTree(root, REPO);
    engine = await createEngine({ root, db: join(t.dir, 'index.db'), env: isolatedEnv(t.dir) });
    await engine.index();
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  const top = async (q: string): Promise<string[]> => (await engine.search(q, { limit: 10 })).results.map((r) => r.path);

  it.each([
    ['数据库', 'src/db/connect.ts'],
    ['超时重试', 'src/db/connect.ts'],
    ['データベース', 'docs/ja/backup.md'],
    ['バックアップ', 'docs/ja/backup.md'],
    ['재시도', 'docs/ko/retry.md'],
    ['查询结果', 'docs/zh/cache.md'],
  ])('%s → %s first', async (q, path) => {
    expect((await top(q))[0]).toBe(path);
  });

  it('a mixed query: 数据库 timeout ranks the file with both first (not the file full of timeout)', async () => {
    expect((await top('数据库 timeout'))[0]).toBe('src/db/connect.ts');
    expect((await top('timeout'))[0]).not.toBe('src/db/connect.ts');
  });

  it('a quoted CJK phrase is required: only the file with the sequence', async () => {
    expect(await top('"数据库失败"')).toEqual(['src/db/connect.ts']);
    expect(await top('"数据库成功"')).toEqual([]);
  });

  it('a run that occurs nowhere finds nothing, although its characters do', async () => {
    // 库数 is no bigram of any text here (数据库 has 数据 and 据库)
    expect(await top('库数')).toEqual([]);
  });
});
