import { openConnection } from '../src/store/driver.js';
const db = openConnection('/tmp/natlat.db', { readOnly: true } as never);
const W = '6.0000, 2.0000, 5.0000, 2.0000, 1.0000, 0.6000, 1.0000';
const exprs = ['"injectiontoken" OR "injection" OR "dependency"', '"environmentvariables" OR "credentials" OR "environment"', '"isostring" OR "timezone" OR "iso"', '"upload" OR "multiple"'];
const t = (label: string, sql: string, e: string) => { const s = db.prepare(sql); s.all(e); const c0 = process.cpuUsage(); for (let i = 0; i < 20; i++) s.all(e); const c = process.cpuUsage(c0); console.log(((c.user + c.system) / 20000).toFixed(2), 'ms', label); };
for (const e of exprs) {
  console.log(e);
  t('count', `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, e);
  t('rowid order limit', `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid LIMIT 200`, e);
  t('bm25 default top200', `SELECT rowid, bm25(chunks_fts) s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT 200`, e);
  t('bm25 weighted top200', `SELECT rowid, bm25(chunks_fts, ${W}) s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT 200`, e);
  t('rank top200', `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 200`, e);
}
