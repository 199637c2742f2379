/**
 * The built-in denylist (gitignore syntax), applied to every walk whatever the repository's own
 * ignore files say. Two lists so that dry runs can say *why*: build output and binaries
 * (`denylist`), and secrets (`secret`). Users can remove an entry by its exact text or add
 * patterns through config (`denylist.remove`, `denylist.add`).
 */
export const BUILTIN_DENYLIST: readonly string[] = [
  // dependencies, VCS and build output
  'node_modules/', '.git', '.hg/', '.svn/', 'dist/', 'build/', 'out/', 'coverage/',
  '__pycache__/', '.venv/', 'venv/', '.tox/', '.mypy_cache/', '.pytest_cache/', '.ruff_cache/',
  '.next/', '.nuxt/', '.svelte-kit/', '.turbo/', '.parcel-cache/', '.gradle/', '.scry/',
  // minified or bundled code and source maps
  '*.min.js', '*.min.mjs', '*.min.cjs', '*.min.css', '*.bundle.js', '*.map',
  // lock files
  '*.lock', 'package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'go.sum', 'bun.lockb',
  // images, fonts, media, documents
  '*.png', '*.jpg', '*.jpeg', '*.gif', '*.ico', '*.svg', '*.webp', '*.bmp', '*.tif', '*.tiff', '*.psd',
  '*.woff', '*.woff2', '*.ttf', '*.eot', '*.otf',
  '*.mp3', '*.mp4', '*.mov', '*.wav', '*.avi', '*.webm', '*.pdf',
  // archives
  '*.zip', '*.tar', '*.gz', '*.tgz', '*.bz2', '*.xz', '*.7z', '*.rar', '*.jar', '*.war',
  // compiled objects
  '*.pyc', '*.pyo', '*.so', '*.dylib', '*.dll', '*.exe', '*.o', '*.a', '*.obj', '*.class', '*.wasm', '*.node',
  // databases
  '*.sqlite', '*.sqlite3', '*.db', '*.db-wal', '*.db-shm', '*.sqlite-wal', '*.sqlite-shm',
];

/**
 * Files that hold secrets by name, matched against the file's base name only (a directory named
 * `credentials/` full of source code is not a secret; a file named `credentials` is). Never
 * indexed unless removed from the list in config.
 */
export const BUILTIN_SECRETS: readonly string[] = [
  '.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template',
  '*.pem', '*.key', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*',
  '*.p12', '*.pfx', '*.jks', '*.keystore', '*.kdbx',
  '.netrc', '.pgpass', '.htpasswd',
  'credentials', 'credentials.json', 'credentials.yml', 'credentials.yaml', 'credentials.toml', 'credentials.xml',
  'credentials.ini', 'credentials.csv', 'credentials.db', '*.credentials',
  'secrets.json', 'secrets.yaml', 'secrets.yml', 'secrets.toml', '.secrets', '*.secret',
];

/** Names whose *content* decides: registry configs are secrets only when they carry tokens. */
const TOKEN_CONFIG_NAMES = new Set(['.npmrc', '.pypirc', '.yarnrc.yml', '.yarnrc']);
const TOKEN_RE = /_authToken|_auth\s*=|_password|npmAuthToken|^\s*password\s*[=:]/im;
const PRIVATE_KEY_RE = /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----/;

/** Content-level secret check, run on every file read: private key blocks, tokens in registry configs. */
export function looksSecret(path: string, text: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (TOKEN_CONFIG_NAMES.has(base) && TOKEN_RE.test(text)) return true;
  return PRIVATE_KEY_RE.test(text);
}

/** Applies config changes to a built-in list: removals by exact text, then additions. */
export function adjustList(list: readonly string[], remove: readonly string[], add: readonly string[] = []): string[] {
  const removed = new Set(remove);
  return [...list.filter((p) => !removed.has(p)), ...add];
}
