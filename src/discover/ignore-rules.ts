import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** One ignore file's rules, scoped to the directory that holds it. */
interface Layer {
  /** Directory of the rules, relative to the root ('' for the root), no trailing slash. */
  readonly dir: string;
  readonly rules: Ignore;
}

function readRules(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Layered ignore rules with git's precedence: `.git/info/exclude`, then `.gitignore` files from
 * the root down (deeper files override shallower ones, negations included), then `.scryignore`
 * files from the root down, then config patterns. Matching itself is the `ignore` library's.
 * Immutable: `enter()` returns a new stack for a subdirectory, so the walker can recurse freely.
 */
export class IgnoreRules {
  private constructor(
    private readonly git: readonly Layer[],
    private readonly scry: readonly Layer[],
    private readonly extra: Ignore | undefined,
  ) {}

  static forRoot(rootAbs: string, extraPatterns: readonly string[]): IgnoreRules {
    const git: Layer[] = [];
    const exclude = readRules(join(rootAbs, '.git', 'info', 'exclude'));
    if (exclude) git.push({ dir: '', rules: ignore().add(exclude) });
    const extra = extraPatterns.length > 0 ? ignore().add([...extraPatterns]) : undefined;
    return new IgnoreRules(git, [], extra).enter(rootAbs, '');
  }

  /** Rules in effect inside `dirRel`, adding that directory's own ignore files if it has any. */
  enter(dirAbs: string, dirRel: string): IgnoreRules {
    const gitignore = readRules(join(dirAbs, '.gitignore'));
    const scryignore = readRules(join(dirAbs, '.scryignore'));
    if (gitignore === undefined && scryignore === undefined) return this;
    return new IgnoreRules(
      gitignore !== undefined ? [...this.git, { dir: dirRel, rules: ignore().add(gitignore) }] : this.git,
      scryignore !== undefined ? [...this.scry, { dir: dirRel, rules: ignore().add(scryignore) }] : this.scry,
      this.extra,
    );
  }

  /** Is `rel` (relative to the root; directories end with '/') ignored? */
  ignores(rel: string): boolean {
    let ignored = false;
    for (const layer of [...this.git, ...this.scry]) {
      const local = layer.dir === '' ? rel : rel.slice(layer.dir.length + 1);
      const result = layer.rules.test(local);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    if (this.extra) {
      const result = this.extra.test(rel);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}
