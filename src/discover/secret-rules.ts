/**
 * Secret-scanning rules, kept as data. Source: gitleaks' default configuration
 * `config/gitleaks.toml`, https://github.com/gitleaks/gitleaks/blob/b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b/config/gitleaks.toml
 * (commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b), MIT licence, Copyright (c) 2019 Zachary Rice
 * (see THIRD_PARTY.md). Rule ids, keywords and entropy thresholds are gitleaks'; the regexes are
 * translated from Go RE2 to JavaScript: a leading `(?i)` becomes the `i` flag, a mid-pattern
 * `(?i)` an explicit class, `\z` becomes `$`, and `\s` in the parts before and after a token
 * becomes `[ \t]` so that a token match never crosses a line end (a redaction keeps line numbers).
 * `private-key` keeps only the header of gitleaks' regex (see the rule).
 *
 * Rules marked `origin: 'scry'` are not in gitleaks: the PuTTY key block, the AWS secret access
 * key and the Azure storage account key of connection strings; `generic-api-key` is gitleaks'
 * rule reshaped (it starts at the keyword, the variable name is read backwards from there) with a
 * part of its allowlist.
 *
 * `kind`: a `block` (key material) makes the whole file a secret; a `token` is redacted where it
 * stands. `group` is the capture group holding the secret (0: the whole match).
 */
export interface SecretRuleData {
  readonly id: string;
  readonly kind: 'block' | 'token';
  /** JavaScript regular expression source. */
  readonly regex: string;
  /** Extra flags besides `g` (`i` for gitleaks' leading `(?i)`). */
  readonly flags?: string;
  /** Lower-case strings one of which must occur in the file for the rule to run (gitleaks keywords). */
  readonly keywords: readonly string[];
  /**
   * The keywords are common words (`key`, `token`, `ey`): nearly every file has one, so they are
   * not looked for first; the rule's own regex is the scan.
   */
  readonly common?: true;
  /** Minimum Shannon entropy (bits per character) of the secret. */
  readonly entropy?: number;
  readonly group?: number;
  /** Matches of these (tested against the secret) are not secrets. */
  readonly allow?: readonly string[];
  readonly origin?: 'scry';
}

/** gitleaks' usual end of a token: a quote, a space, `;`, an escaped line end, or the end of the text. */
const END = "(?=[`'\"\\s;]|\\\\[nr]|$)";

export const SECRET_RULES: readonly SecretRuleData[] = [
  // key material: the whole file is a secret
  // gitleaks also wants 64 characters of body and the END line; the header alone is enough here
  // (a truncated key is still key material, and scry refused such files before these rules)
  { id: 'private-key', kind: 'block', regex: '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----', flags: 'i', keywords: ['-----begin'] },
  { id: 'putty-private-key', kind: 'block', regex: 'PuTTY-User-Key-File-\\d+:[^\\n]*\\n[\\s\\S]{0,4000}?Private-Lines:[ \\t]*\\d+', keywords: ['putty-user-key-file-'], origin: 'scry' },
  // cloud keys
  { id: 'aws-access-token', kind: 'token', regex: '\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b', keywords: ['a3t', 'akia', 'asia', 'abia', 'acca'], entropy: 3, group: 1, allow: ['.+EXAMPLE$'] },
  {
    id: 'aws-secret-access-key', kind: 'token', flags: 'i', origin: 'scry', group: 1, entropy: 4,
    regex: `aws[\\w.-]{0,20}?secret[\\w.-]{0,20}['"]?[ \\t]*(?:=|:=|:|=>)[ \\t]*[\`'"]?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])`,
    keywords: ['aws'], common: true, allow: ['EXAMPLEKEY$'],
  },
  { id: 'gcp-api-key', kind: 'token', regex: `\\b(AIza[\\w-]{35})${END}`, keywords: ['aiza'], entropy: 4, group: 1 },
  { id: 'azure-ad-client-secret', kind: 'token', regex: "(?:^|[\\\\'\"`\\s>=:(,)])([a-zA-Z0-9_~.]{3}\\dQ~[a-zA-Z0-9_~.-]{31,34})(?=$|[\\\\'\"`\\s<),])", keywords: ['q~'], entropy: 3, group: 1 },
  { id: 'azure-storage-account-key', kind: 'token', regex: 'AccountKey=([A-Za-z0-9+/]{86}==)', flags: 'i', keywords: ['accountkey='], entropy: 4, group: 1, origin: 'scry' },
  // VCS and registry tokens
  { id: 'github-pat', kind: 'token', regex: 'ghp_[0-9a-zA-Z]{36}', keywords: ['ghp_'], entropy: 3 },
  { id: 'github-fine-grained-pat', kind: 'token', regex: 'github_pat_\\w{82}', keywords: ['github_pat_'], entropy: 3 },
  { id: 'github-oauth', kind: 'token', regex: 'gho_[0-9a-zA-Z]{36}', keywords: ['gho_'], entropy: 3 },
  { id: 'github-app-token', kind: 'token', regex: '(?:ghu|ghs)_[0-9a-zA-Z]{36}', keywords: ['ghu_', 'ghs_'], entropy: 3 },
  { id: 'github-refresh-token', kind: 'token', regex: 'ghr_[0-9a-zA-Z]{36}', keywords: ['ghr_'], entropy: 3 },
  { id: 'gitlab-pat', kind: 'token', regex: 'glpat-[\\w-]{20,300}', keywords: ['glpat-'], entropy: 3 },
  { id: 'gitlab-ptt', kind: 'token', regex: 'glptt-[0-9a-f]{40}', keywords: ['glptt-'], entropy: 3 },
  { id: 'gitlab-deploy-token', kind: 'token', regex: 'gldt-[0-9a-zA-Z_-]{20}', keywords: ['gldt-'], entropy: 3 },
  { id: 'gitlab-rrt', kind: 'token', regex: 'GR1348941[\\w-]{20}', keywords: ['gr1348941'], entropy: 3 },
  { id: 'npm-access-token', kind: 'token', regex: `\\b(npm_[a-z0-9]{36})${END}`, flags: 'i', keywords: ['npm_'], entropy: 2, group: 1 },
  { id: 'pypi-upload-token', kind: 'token', regex: 'pypi-AgEIcHlwaS5vcmc[\\w-]{50,1000}', keywords: ['pypi-ageichlwas5vcmc'], entropy: 3 },
  // chat, payment and API providers
  { id: 'slack-bot-token', kind: 'token', regex: 'xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*', keywords: ['xoxb'], entropy: 3 },
  { id: 'slack-user-token', kind: 'token', regex: 'xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}', keywords: ['xoxp-', 'xoxe-'], entropy: 2 },
  { id: 'slack-app-token', kind: 'token', regex: 'xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+', flags: 'i', keywords: ['xapp'], entropy: 2 },
  { id: 'slack-legacy-token', kind: 'token', regex: 'xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+', keywords: ['xoxo', 'xoxs'], entropy: 2 },
  { id: 'slack-webhook-url', kind: 'token', regex: '(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}', keywords: ['hooks.slack.com'] },
  { id: 'stripe-access-token', kind: 'token', regex: `\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})${END}`, keywords: ['sk_test', 'sk_live', 'sk_prod', 'rk_test', 'rk_live', 'rk_prod'], entropy: 2, group: 1 },
  { id: 'sendgrid-api-token', kind: 'token', regex: `\\b(SG\\.[a-zA-Z0-9=_.-]{66})${END}`, keywords: ['sg.'], entropy: 2, group: 1 },
  { id: 'twilio-api-key', kind: 'token', regex: 'SK[0-9a-fA-F]{32}', keywords: ['sk'], common: true, entropy: 3 },
  { id: 'openai-api-key', kind: 'token', regex: `\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})${END}`, keywords: ['t3blbkfj'], entropy: 3, group: 1 },
  { id: 'anthropic-api-key', kind: 'token', regex: `\\b(sk-ant-(?:api03|admin01)-[a-zA-Z0-9_-]{93}AA)${END}`, keywords: ['sk-ant-api03', 'sk-ant-admin01'], group: 1 },
  { id: 'huggingface-access-token', kind: 'token', regex: `\\b(hf_[a-zA-Z]{34})${END}`, keywords: ['hf_'], entropy: 2, group: 1 },
  { id: 'digitalocean-pat', kind: 'token', regex: `\\b(dop_v1_[a-f0-9]{64})${END}`, keywords: ['dop_v1_'], entropy: 3, group: 1 },
  { id: 'shopify-access-token', kind: 'token', regex: 'shpat_[a-fA-F0-9]{32}', keywords: ['shpat_'], entropy: 2 },
  { id: 'databricks-api-token', kind: 'token', regex: `\\b(dapi[a-f0-9]{32}(?:-\\d)?)${END}`, keywords: ['dapi'], entropy: 3, group: 1 },
  { id: 'age-secret-key', kind: 'token', regex: 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', keywords: ['age-secret-key-1'] },
  { id: 'jwt', kind: 'token', regex: `\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9/\\\\_-]{17,}\\.(?:[a-zA-Z0-9/\\\\_-]{10,}={0,2})?)${END}`, keywords: ['ey'], common: true, entropy: 3, group: 1 },
  // a high-entropy value assigned to a secret-named variable (the variable name is checked in code)
  {
    id: 'generic-api-key', kind: 'token', flags: 'i', entropy: 3.5, group: 1,
    regex: `(?:access|auth|api|credential|creds|key|passw(?:or)?d|pwd|secret|token)[\\w.-]{0,20}['"]?[ \\t]*(?:=|:{1,3}=|:|=>|\\?=)[ \\t]*[\`'"]{0,5}([\\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?=[\`'"\\s;,]|\\\\[nr]|$)`,
    keywords: ['access', 'api', 'auth', 'key', 'credential', 'creds', 'passwd', 'password', 'pwd', 'secret', 'token'], common: true,
  },
];

/**
 * Names that make a generic match not a secret (gitleaks' generic-api-key allowlist, tested
 * against the variable name): `public_key`, `keyId`, `tokenUrl`, `secretName`...; ours added:
 * cache/sort/map keys, pagination and idempotency tokens (`NextToken`, `ClientRequestToken`),
 * `authType`, `result_key`.
 */
export const GENERIC_NAME_ALLOW =
  '(?:access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)|rapid|capital|author|credentials?[_.-]?id|withCredentials|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence|cache|sort|partition|row|map|react|unique|lookup|storage|hash|i18n|translation|message|route|query|object|item|node)[_.-]?key|turkey|key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right|path|prefix|type|s)|key[_.-]?vault[_.-]?(?:id|name)|key(?:store|tab)[_.-]?(?:file|path)|monkey|keying|secret[_.-]?(?:length|name|size|ref)|UserSecretsId|csrf[_.-]?token|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il]|version|path)|public[_.-]?token|(?:key|token)[_.-]?(?:file|type|name|kind|count|index|len)|tokeni[sz]|author|auth[_.-]?type|result[_.-]?key|(?:next|continuation|page|pagination|change|request|idempotency|action|sync|cursor)[_.-]?token)';

/** Values that are placeholders, not secrets (gitleaks' global allowlist, and obvious stand-ins). */
export const PLACEHOLDER_VALUES: readonly string[] = [
  '^(?:true|false|null|undefined|none)$',
  '^(.)\\1+$',
  '^\\$\\{?[A-Za-z_][\\w]*\\}?$',
  '^%[A-Za-z_]+%$',
  '^\\{\\{.*\\}\\}$',
  'example|placeholder|changeme|change_me|dummy|sample|redacted|your[_-]|xxxx|\\*\\*\\*|abcdefghijklmnopqrstuvwxyz|0123456789|1234567',
];
