import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from './spec.js';

/**
 * Rust. `impl X` and `impl Trait for X` are scopes named by the type X, so their functions are
 * methods of X; a trait is an interface; `mod m { ... }` (with a body) is a module.
 */
const TYPE_NAME = `[
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
]`;

const DEFINITIONS = `
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list [(function_item name: (identifier) @name) (function_signature_item name: (identifier) @name)] @definition.method))
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(impl_item type: ${TYPE_NAME}) @scope
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.function
`;

const IMPORTS = `
(use_declaration argument: [(identifier) (crate) (self) (super)] @source) @use
(use_declaration argument: (scoped_identifier name: (identifier) @name) @source) @use
(use_declaration argument: (use_as_clause path: (_) @source alias: (identifier) @name)) @use
(use_declaration argument: (use_wildcard (_) @source "*" @name)) @use
(use_declaration argument: (scoped_use_list path: (_) @source list: (use_list (_) @name))) @use
`;

const isPub = (node: Node): boolean => node.children.some((c) => c?.type === 'visibility_modifier' && c.text.startsWith('pub'));

/** `pub` items; a trait's members are as visible as the trait, a trait impl's as the trait's. */
function exported(def: Node): boolean {
  const owner = def.parent?.type === 'declaration_list' ? def.parent.parent : null;
  if (owner?.type === 'trait_item') return isPub(owner);
  if (owner?.type === 'impl_item' && owner.childForFieldName('trait')) return true;
  return isPub(def);
}

export const rust: LanguageSpec = {
  language: 'rust',
  grammar: 'rust',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  comments: ['line_comment', 'block_comment'],
  calls: ['call_expression', 'macro_invocation'],
  identifiers: ['identifier', 'field_identifier', 'type_identifier'],
  exported,
};
