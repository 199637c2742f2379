import { readdirSync, type Dirent } from 'node:fs';
import { IgnoreRules } from '../discover/ignore-rules.js';
import type { NameFilter, WalkOptions } from '../discover/walk.js';
import { absOf, childRel } from './watch-context.js';

export interface TreeVisitor {
  /**
   * A directory the index walk would enter, before it is listed: a watch placed here also sees
   * entries created while the listing runs. Returning false skips the directory.
   */
  enter(rel: string, abs: string): boolean;
  /** The rules the directory's entries are judged by, once it is listed. */
  entered(rel: string, rules: IgnoreRules): void;
  /**
   * A non-directory entry whose name the walk would not skip (links and specials included: the
   * indexer judges them). Absent when only directories matter, which saves judging every file name.
   */
  file?(rel: string): void;
}

function list(abs: string): Dirent[] | undefined {
  try {
    return readdirSync(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

/**
 * Visits `rel` (the root is '') and every directory below it that the index walk would enter,
 * with the walk's own rules: the denylist and ignore files decide on names before anything is
 * entered, and a link to a directory is never entered. `parentRules` are the rules of `rel`'s
 * parent, undefined for the root (whose rules come from `IgnoreRules.forRoot`); `rel` itself is
 * taken as already judged.
 */
export function visitTree(walk: WalkOptions, filter: NameFilter, rel: string, parentRules: IgnoreRules | undefined, visitor: TreeVisitor): void {
  const abs = absOf(walk.root, rel);
  if (!visitor.enter(rel, abs)) return;
  const entries = list(abs);
  const present = entries && {
    gitignore: entries.some((e) => e.name === '.gitignore'),
    scryignore: entries.some((e) => e.name === '.scryignore'),
  };
  const rules = parentRules === undefined ? IgnoreRules.forRoot(walk.root, walk.ignore) : parentRules.enter(abs, rel, present);
  visitor.entered(rel, rules);
  for (const entry of entries ?? []) {
    const entryRel = childRel(rel, entry.name);
    if (entry.isDirectory()) {
      if (filter.dir(rules, entryRel) === undefined) visitTree(walk, filter, entryRel, rules, visitor);
    } else if (visitor.file && filter.file(rules, entryRel) === undefined) {
      visitor.file(entryRel);
    }
  }
}
