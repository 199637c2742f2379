/** One located item of a tool's failure output (see failure-log.ts). */

/** What an item is: the failing test, a stack frame, the site of a panic or throw, or a diagnostic. */
export type FailureKind = 'test' | 'frame' | 'panic' | 'compile' | 'type' | 'lint';

/** The tool whose output format an item was recognised in. */
export type FailureTool =
  | 'pytest'
  | 'unittest'
  | 'python'
  | 'jest'
  | 'vitest'
  | 'mocha'
  | 'node'
  | 'go'
  | 'cargo'
  | 'rust'
  | 'rustc'
  | 'tsc'
  | 'eslint'
  | 'mypy'
  | 'pyright'
  | 'java'
  | 'compiler';

export interface FailureItem {
  /** As printed (slashes normalised); `mapFailures` makes it root-relative. */
  readonly file: string;
  /** 1-based; 0 when the log names the test but no line (the symbol finds it). */
  readonly line: number;
  /** 1-based, when printed. */
  readonly column?: number | undefined;
  /** The function of a frame, the failing test's name, or the diagnostic's rule or code. */
  readonly symbol?: string | undefined;
  /** The error text (first line), or '' when the log gives none. */
  readonly message: string;
  readonly kind: FailureKind;
  readonly tool: FailureTool;
}
