import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** One ignore file's rules, scoped to the directory that holds it. */
interface Layer {
  /** Directory of the rules, relative to the root ('' for the root), no trailing slash. */
  readonly dir: string;
  readonly rules: Ignore;
}

/** Escapes glob metacharacters so a path segment matches only itself in a gitignore pattern. */
function escapePattern(path: string): string {
  return path.replace(/[\\*?[]/g, '\\$&');
}

/**
 * The walker enters a directory only when the whole stack leaves it in. If one layer on its own
 * ignores it, a later layer re-included it (`!keep/` in a deeper `.gitignore` or in `.scryignore`).
 * The `ignore` library reports every path under a directory it ignores as ignored, so without
 * this that layer would still ignore everything inside; re-including the directory in the layer
 * lets it judge the paths inside by their own patterns, as git does.
 */
function reinclude(rules: Ignore, localDir: string): Ignore {
  if (!rules.test(`${localDir}/`).ignored) return rules;
  return ignore().add(rules).add(`!/${escapePattern(localDir)}/`);
}

function reincludeLayer(layer: Layer, dirRel: string): Layer {
  const local = layer.dir === '' ? dirRel : dirRel.slice(layer.dir.length + 1);
  const rules = reinclude(layer.rules, local);
  return rules === layer.rules ? layer : { dir: layer.dir, rules };
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

  /**
   * Rules in effect inside `dirRel`, adding that directory's own ignore files if it has any.
   * `present` (from the directory listing the walker already has) saves probing for files that
   * are not there, which is most directories.
   */
  enter(dirAbs: string, dirRel: string, present?: { readonly gitignore: boolean; readonly scryignore: boolean }): IgnoreRules {
    const gitignore = present && !present.gitignore ? undefined : readRules(join(dirAbs, '.gitignore'));
    const scryignore = present && !present.scryignore ? undefined : readRules(join(dirAbs, '.scryignore'));
    const git = dirRel === '' ? this.git : this.git.map((l) => reincludeLayer(l, dirRel));
    const scry = dirRel === '' ? this.scry : this.scry.map((l) => reincludeLayer(l, dirRel));
    const extra = dirRel === '' || !this.extra ? this.extra : reinclude(this.extra, dirRel);
    const changed = git.some((l, i) => l !== this.git[i]) || scry.some((l, i) => l !== this.scry[i]) || extra !== this.extra;
    if (gitignore === undefined && scryignore === undefined && !changed) return this;
    return new IgnoreRules(
      gitignore !== undefined ? [...git, { dir: dirRel, rules: ignore().add(gitignore) }] : git,
      scryignore !== undefined ? [...scry, { dir: dirRel, rules: ignore().add(scryignore) }] : scry,
      extra,
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
