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
  '*.sqlite', '*.sqlite3', '*.db', '*.db-wal', '*.db-shm', '*.sqlite-wal', '*.sqlite-shm', '*.db.vec', '*.db.vec.ok', '*.db.vec.*.tmp',
];

/**
 * Files that hold secrets by name, matched against the file's base name only (a directory named
 * `credentials/` full of source code is not a secret; a file named `credentials` is). Never
 * indexed unless removed from the list in config.
 */
export const BUILTIN_SECRETS: readonly string[] = [
  // any .env with a suffix or prefix separator, except the documented templates
  '.env', '.env.*', '.env-*', '.env_*', '.env~', '*.env', '.envrc',
  '!.env.example', '!.env.sample', '!.env.template',
  '*.pem', '*.key', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '*.ppk',
  '*.p12', '*.pfx', '*.jks', '*.keystore', '*.kdbx',
  '.netrc', '.pgpass', '.htpasswd', '.git-credentials', '.dockercfg', '*.tfstate', '*.tfstate.*',
  'credentials', 'credentials.json', 'credentials.yml', 'credentials.yaml', 'credentials.toml', 'credentials.xml',
  'credentials.ini', 'credentials.csv', 'credentials.db', '*.credentials',
  'secrets.json', 'secrets.yaml', 'secrets.yml', 'secrets.toml', '.secrets', '*.secret',
];

/**
 * Credential files of tools that keep them under a dot-directory, matched against the whole
 * root-relative path (gitignore syntax): cloud CLIs, Kubernetes, Docker, the GitHub CLI.
 */
export const BUILTIN_SECRET_PATHS: readonly string[] = [
  '**/.kube/config', '**/.docker/config.json', '**/.aws/credentials', '**/.config/gcloud/**/*credentials*',
  '**/.config/gcloud/**/access_tokens.db', '**/.azure/accessTokens.json', '**/.azure/msal_token_cache.*',
  '**/.config/gh/hosts.yml', '**/.terraform.d/credentials.tfrc.json',
];

/** Applies config changes to a built-in list: removals by exact text, then additions. */
export function adjustList(list: readonly string[], remove: readonly string[], add: readonly string[] = []): string[] {
  const removed = new Set(remove);
  return [...list.filter((p) => !removed.has(p)), ...add];
}
