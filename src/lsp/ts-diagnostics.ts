import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileDiagnostic } from './lsp-queries.js';
import { pathInRoot } from './uri-paths.js';
import type TypeScript from 'typescript';

type Ts = typeof TypeScript;

/** The TypeScript compiler the project has, else the one installed with scry; undefined when neither is. */
export function loadTypeScript(root: string): { ts: Ts; from: 'project' | 'scry' } | undefined {
  for (const [from, base] of [['project', join(root, 'package.json')], ['scry', import.meta.url]] as const) {
    try {
      return { ts: createRequire(base)('typescript') as Ts, from };
    } catch {
      // not installed there
    }
  }
  return undefined;
}

export interface TsDiagnosticsResult {
  readonly diagnostics: FileDiagnostic[];
  /** Diagnostics found before `limit` stopped the scan (at least diagnostics.length). */
  readonly total: number;
  /** `tsconfig.json` when the project's was used, else `defaults`. */
  readonly config: string;
}

const SEVERITY = ['warning', 'error', 'hint', 'info'] as const;

/**
 * Syntactic and semantic diagnostics from the TypeScript compiler API: of one file (`path`), or
 * of every file the project's tsconfig.json names. Diagnostics outside the root are dropped.
 * Runs in-process and never executes project code.
 */
export function typeScriptDiagnostics(ts: Ts, root: string, path: string | undefined, limit: number): TsDiagnosticsResult {
  const configPath = ts.findConfigFile(root, (f) => ts.sys.fileExists(f));
  const inRoot = configPath !== undefined && pathInRoot(root, pathToFileURL(configPath).href) !== undefined;
  const parsed = inRoot ? ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined }) : undefined;
  const options: TypeScript.CompilerOptions = parsed?.options ?? { allowJs: true, checkJs: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true };
  const files = path !== undefined ? [resolve(root, path)] : (parsed?.fileNames ?? []);
  const program = ts.createProgram({ rootNames: files, options: { ...options, noEmit: true } });
  const out: FileDiagnostic[] = [];
  let total = 0;
  const sources = path !== undefined ? [program.getSourceFile(resolve(root, path))] : program.getSourceFiles().filter((s) => !program.isSourceFileFromExternalLibrary(s) && !s.isDeclarationFile);
  for (const sf of sources) {
    if (!sf) continue;
    const rel = pathInRoot(root, pathToFileURL(sf.fileName).href);
    if (rel === undefined) continue;
    for (const d of ts.getPreEmitDiagnostics(program, sf)) {
      if (!d.file || d.start === undefined || d.file !== sf) continue;
      total++;
      if (out.length >= limit) continue;
      const start = sf.getLineAndCharacterOfPosition(d.start);
      const end = sf.getLineAndCharacterOfPosition(d.start + (d.length ?? 0));
      out.push({
        path: rel,
        line: start.line + 1,
        column: start.character + 1,
        endLine: end.line + 1,
        endColumn: end.character + 1,
        severity: SEVERITY[d.category] ?? 'error',
        message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
        code: `TS${d.code}`,
      });
    }
  }
  return { diagnostics: out, total, config: parsed ? 'tsconfig.json' : 'defaults' };
}
