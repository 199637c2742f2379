import type { Node } from 'web-tree-sitter';
import { hasModifier, type LanguageSpec } from './spec.js';

/**
 * Java. Records are classes, annotation types interfaces; constructors are methods named after
 * their class; fields are symbols only when `static final` (constants), as are interface fields.
 */
const DEFINITIONS = `
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(field_declaration (modifiers) @_m declarator: (variable_declarator name: (identifier) @name) (#match? @_m "static") (#match? @_m "final")) @definition.constant
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
`;

const IMPORTS = `
(import_declaration (scoped_identifier name: (identifier) @name) @source .) @import
(import_declaration (_) @source (asterisk) @name) @import
`;

const INTERFACE_BODIES = ['interface_body', 'annotation_type_body'];

/** `public`, or a member of an interface (implicitly public). */
function exported(def: Node): boolean {
  if (def.parent && INTERFACE_BODIES.includes(def.parent.type)) return true;
  return hasModifier(def, ['public'], ['modifiers']);
}

export const java: LanguageSpec = {
  language: 'java',
  grammar: 'java',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  comments: ['line_comment', 'block_comment'],
  calls: ['method_invocation', 'object_creation_expression'],
  identifiers: ['identifier', 'type_identifier'],
  exported,
};
