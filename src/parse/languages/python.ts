import type { LanguageSpec } from './spec.js';

/**
 * Python. A `def` directly in a class body is a method (the class pattern starts higher in the
 * tree, so its match comes first); module-level assignments are variables, or constants when
 * the name is UPPER_CASE; in a class body only UPPER_CASE constants are kept.
 */
const DEFINITIONS = `
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)))
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(type_alias_statement left: (type (identifier) @name)) @definition.type
(module (expression_statement (assignment left: (identifier) @name)) @definition.constant (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable (#not-match? @name "^_*[A-Z][A-Z0-9_]*$"))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name)) @definition.constant (#match? @name "^_*[A-Z][A-Z0-9_]*$")))
`;

const IMPORTS = `
(import_statement name: (dotted_name) @source @import)
(import_statement name: (aliased_import name: (dotted_name) @source alias: (identifier) @name) @import)
(import_from_statement module_name: (_) @source name: [(dotted_name) @name (aliased_import name: (dotted_name) @name)]) @import
(import_from_statement module_name: (_) @source (wildcard_import) @name) @import
(future_import_statement "__future__" @source name: (dotted_name) @name) @import
`;

export const python: LanguageSpec = {
  language: 'python',
  grammar: 'python',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  wrappers: ['decorated_definition'],
  comments: ['comment'],
  // a string standing alone as a statement is a docstring (or documentation all the same)
  docstrings: '(expression_statement . (string) @doc .)',
  calls: ['call'],
  identifiers: ['identifier'],
  exported: (_def, name) => !name.startsWith('_'),
};
