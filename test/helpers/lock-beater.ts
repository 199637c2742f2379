/**
 * Holds a writer lock and refreshes its heartbeat every millisecond until killed: the other side
 * of the torn-read test. Prints `ready` once it holds the lock.
 * Usage: lock-beater.ts LOCK_PATH
 */
import { WriterLock } from '../../src/store/writer-lock.js';

const lock = new WriterLock(process.argv[2]!);
if (lock.tryAcquire({ heartbeatMs: 1 }) !== undefined) throw new Error('the lock is held');
process.stdout.write('ready\n');
// the heartbeat timer is unref'd: this keeps the process up
setInterval(() => {}, 60_000);
