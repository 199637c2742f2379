import type { LanguageSpec } from './spec.js';

/**
 * Ruby. `def` at the top of a file is a function, elsewhere a method (as is `def self.x`);
 * `class A::B` is named `B`; constant assignments are constants. Every definition counts as
 * exported (visibility is set by calls such as `private`, not by the definition).
 */
const DEFINITIONS = `
(program (method name: (_) @name) @definition.function)
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: [(constant) @name (scope_resolution name: (_) @name)]) @definition.class
(module name: [(constant) @name (scope_resolution name: (_) @name)]) @definition.module
(assignment left: (constant) @name) @definition.constant
`;

const IMPORTS = `
(call
  method: (identifier) @_require
  arguments: (argument_list . (string . (string_content) @source .))
  (#any-of? @_require "require" "require_relative")) @require
`;

export const ruby: LanguageSpec = {
  language: 'ruby',
  grammar: 'ruby',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  comments: ['comment'],
  calls: ['call'],
  identifiers: ['identifier', 'constant'],
  exported: () => true,
};
