import { createEngine } from '../src/index.js';
import { SearchRepo } from '../src/store/search-repo.js';
import { FlatVectorIndex } from '../src/embed/flat-scan.js';
const NATURAL = ['parse json configuration file','retry failed http request with exponential backoff','convert date to ISO string with timezone','resolve module path relative to the current file','render scene with perspective camera','deep clone an object','how are source maps generated','read credentials from environment variables','upload file to s3 bucket in multiple parts','dependency injection token'];
const log: string[] = [];
const wrap = (proto: any, name: string) => { const orig = proto[name]; proto[name] = function (...a: any[]) { const c0 = process.cpuUsage(); const r = orig.apply(this, a); const c = process.cpuUsage(c0); log.push(`${name} ${((c.user + c.system) / 1000).toFixed(2)}ms ${typeof a[0] === 'string' ? a[0].slice(0, 300) : ''} ${a[2] ?? ''} -> ${Array.isArray(r) ? r.length : r?.size ?? ''}`); return r; }; };
for (const n of ['search', 'termStats', 'byChunkIds', 'definitionNames', 'scoreTop', 'scoreIds']) wrap(SearchRepo.prototype, n);
for (const n of Object.getOwnPropertyNames(FlatVectorIndex.prototype)) if (n === 'search' || n === 'scoreIds') wrap(FlatVectorIndex.prototype, n);
const engine = await createEngine({ db: process.argv[2] ?? '/tmp/natlat.db' });
for (let r = 0; r < 3; r++) for (const q of NATURAL) await engine.search(q, { limit: 10 });
for (const q of NATURAL) { log.length = 0; const c0 = process.cpuUsage(); await engine.search(q, { limit: 10 }); const c = process.cpuUsage(c0); console.log(`== ${q} total ${((c.user + c.system) / 1000).toFixed(1)}`); for (const l of log) console.log('  ' + l); }
