import { migration001 } from './001-initial.js';
import { migration002 } from './002-skipped.js';
import { migration003 } from './003-drop-chunk-hash-index.js';
import { migration004 } from './004-structure.js';
import { migration005 } from './005-chunk-defines.js';
import { migration006 } from './006-embeddings.js';
import { migration007 } from './007-name-uses.js';
import { migration008 } from './008-content-time.js';
import { migration009 } from './009-embed-queue.js';
import { migration010 } from './010-doc-field.js';
import { migration011 } from './011-drop-name-uses.js';
import { migration012 } from './012-content-codec.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Numbered migrations, applied in order; `PRAGMA user_version` records the last one applied. */
export const MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012];

/** The schema version this build writes. A database with a higher user_version is refused. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
