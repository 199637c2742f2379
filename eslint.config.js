// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'test/fixtures/**', '.scratch/**', 'test/golden/**', 'bench/.corpus/**', 'bench/.devset-cache/**', 'bench/.semantic-cache/**', 'bench/.nlslice-cache/**', 'bench/.paraphrase-cache/**'] },
  js.configs.recommended,
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Named exports only (STYLE.md habit 2).' },
      ],
    },
  },
  {
    // Only config/ reads the environment (STYLE.md habit 5); only cli/ writes to stdout or exits.
    files: ['src/**/*.ts'],
    ignores: ['src/config/**', 'src/cli/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/config reads process.env.' },
        { object: 'process', property: 'exit', message: 'Only src/cli exits.' },
        { object: 'process', property: 'stdout', message: 'Only src/cli writes to stdout.' },
      ],
    },
  },
);
