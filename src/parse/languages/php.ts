import { hasModifier, type LanguageSpec } from './spec.js';

/**
 * PHP (the `php` grammar: `<?php` code inside HTML). Traits are interfaces, namespaces modules;
 * `const` at file or class level is a constant. Each clause of a `use` is one import;
 * `require`/`include` with a literal path (or `__DIR__ . '/path'`) are imports too.
 */
const DEFINITIONS = `
(namespace_definition name: (namespace_name) @name) @definition.module
(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant
`;

const STRING = '[(string . (string_content) @source .) (encapsed_string . (string_content) @source .)]';
/** `'x.php'`, `("x.php")` or `__DIR__ . '/x.php'`. */
const PATH = `[
  ${STRING}
  (parenthesized_expression ${STRING})
  (binary_expression left: (name) @_dir right: ${STRING} (#eq? @_dir "__DIR__"))
]`;
const statement = (type: string, kind: string): string => `(${type} ${PATH}) @${kind}`;

const IMPORTS = `
(namespace_use_declaration (namespace_use_clause . [(qualified_name (name) @name) (name) @name] @source) @use)
(namespace_use_declaration (namespace_name) @source body: (namespace_use_group (namespace_use_clause . (name) @name))) @use
${statement('require_expression', 'require')}
${statement('require_once_expression', 'require')}
${statement('include_expression', 'include')}
${statement('include_once_expression', 'include')}
`;

export const php: LanguageSpec = {
  language: 'php',
  grammar: 'php',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  comments: ['comment'],
  calls: ['function_call_expression', 'member_call_expression', 'nullsafe_member_call_expression', 'scoped_call_expression', 'object_creation_expression'],
  identifiers: ['name'],
  exported: (def) => !hasModifier(def, ['private', 'protected'], ['visibility_modifier']),
};
