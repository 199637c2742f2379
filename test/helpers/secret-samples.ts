/**
 * Generators of planted secrets, one per rule of src/discover/secret-rules.ts, for the scanner's
 * unit tests and the planted-secret property test. Values are random (from a seed), so that a
 * test cannot pass by matching a fixed string; characters that would make a placeholder (`xxxx`,
 * runs of digits) are avoided.
 */

import { GENERIC_STOPWORDS } from '../../src/discover/secret-stopwords.js';
import { prng as seededRandom } from '../../bench/stats.js';

/** The seeded PRNG the benches use (mulberry32). */
export { seededRandom };

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWYZ';
const LOWER = 'abcdefghijklmnopqrstuvwyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';

function pick(rand: () => number, chars: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += chars[Math.floor(rand() * chars.length)];
  // a value with a digit and a letter, without a run that reads as a placeholder
  return /(.)\1\1\1|0123|1234|2345|3456|4567|5678|6789|abcd/i.test(out) ? pick(rand, chars, n) : out;
}

/** A secret planted in a line of a source file: `value` must never be served. */
export interface Planted {
  readonly rule: string;
  readonly value: string;
  /** The line holding it (no line end). */
  readonly line: string;
}

type Maker = (rand: () => number) => { value: string; line: (v: string) => string };

const mixed = (rand: () => number, chars: string, n: number): string => {
  const v = pick(rand, chars, n);
  return /\d/.test(v) && /[a-z]/i.test(v) ? v : mixed(rand, chars, n);
};

/** A random value of the generic rule: like gitleaks, a value holding a stop word (`auth`, `md5`) is not taken for a secret. */
function genericValue(rand: () => number): string {
  const v = mixed(rand, ALNUM, 28);
  return GENERIC_STOPWORDS.some((w) => v.toLowerCase().includes(w)) ? genericValue(rand) : v;
}

/** Token rules: the literal, and a line of code that holds it. */
export const TOKEN_MAKERS: Readonly<Record<string, Maker>> = {
  'aws-access-token': (r) => ({ value: `AKIA${pick(r, 'ABCDEFGHIJKLMNOPQRSTUVWYZ234567', 16)}`, line: (v) => `const accessKeyId = "${v}";` }),
  'aws-secret-access-key': (r) => ({ value: mixed(r, `${ALNUM}+/`, 40), line: (v) => `aws_secret_access_key = ${v}` }),
  'gcp-api-key': (r) => ({ value: `AIza${mixed(r, `${ALNUM}_-`, 35)}`, line: (v) => `const mapsBrowserConfig = { apiKey: '${v}' };` }),
  'azure-ad-client-secret': (r) => ({ value: `${pick(r, ALNUM, 3)}${pick(r, DIGITS, 1)}Q~${mixed(r, ALNUM, 34)}`, line: (v) => `AZURE_CLIENT_SECRET: "${v}"` }),
  'azure-storage-account-key': (r) => ({ value: `${mixed(r, ALNUM, 86)}==`, line: (v) => `conn = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${v};EndpointSuffix=core.windows.net"` }),
  'github-pat': (r) => ({ value: `ghp_${mixed(r, ALNUM, 36)}`, line: (v) => `export const GH = '${v}';` }),
  'github-fine-grained-pat': (r) => ({ value: `github_pat_${mixed(r, `${ALNUM}_`, 82)}`, line: (v) => `gh auth login --with-token ${v}` }),
  'github-oauth': (r) => ({ value: `gho_${mixed(r, ALNUM, 36)}`, line: (v) => `  oauth: "${v}",` }),
  'github-app-token': (r) => ({ value: `ghs_${mixed(r, ALNUM, 36)}`, line: (v) => `installation ${v}` }),
  'github-refresh-token': (r) => ({ value: `ghr_${mixed(r, ALNUM, 36)}`, line: (v) => `refresh(${JSON.stringify(v)})` }),
  'gitlab-pat': (r) => ({ value: `glpat-${mixed(r, ALNUM, 20)}`, line: (v) => `PRIVATE-TOKEN: ${v}` }),
  'gitlab-ptt': (r) => ({ value: `glptt-${mixed(r, HEX, 40)}`, line: (v) => `trigger ${v}` }),
  'gitlab-deploy-token': (r) => ({ value: `gldt-${mixed(r, ALNUM, 20)}`, line: (v) => `deploy ${v}` }),
  'gitlab-rrt': (r) => ({ value: `GR1348941${mixed(r, ALNUM, 20)}`, line: (v) => `runner register ${v}` }),
  'npm-access-token': (r) => ({ value: `npm_${mixed(r, LOWER + DIGITS, 36)}`, line: (v) => `publish with ${v} now` }),
  'pypi-upload-token': (r) => ({ value: `pypi-AgEIcHlwaS5vcmc${mixed(r, ALNUM, 60)}`, line: (v) => `twine upload -p ${v}` }),
  'slack-bot-token': (r) => ({ value: `xoxb-${pick(r, DIGITS, 11)}-${pick(r, DIGITS, 12)}-${mixed(r, ALNUM, 24)}`, line: (v) => `slack(${JSON.stringify(v)})` }),
  'slack-user-token': (r) => ({ value: `xoxp-${pick(r, DIGITS, 11)}-${pick(r, DIGITS, 11)}-${pick(r, DIGITS, 11)}-${mixed(r, ALNUM, 32)}`, line: (v) => `user ${v}` }),
  'slack-app-token': (r) => ({ value: `xapp-1-A${pick(r, UPPER + DIGITS, 9)}-${pick(r, DIGITS, 12)}-${mixed(r, LOWER + DIGITS, 64)}`, line: (v) => `app ${v}` }),
  'slack-legacy-token': (r) => ({ value: `xoxs-${pick(r, DIGITS, 9)}-${pick(r, DIGITS, 9)}-${pick(r, DIGITS, 9)}-${mixed(r, HEX, 40)}`, line: (v) => `legacy ${v}` }),
  'slack-webhook-url': (r) => ({ value: `https://hooks.slack.com/services/T${pick(r, UPPER + DIGITS, 8)}/B${pick(r, UPPER + DIGITS, 8)}/${mixed(r, ALNUM, 24)}`, line: (v) => `webhook: ${v}` }),
  'stripe-access-token': (r) => ({ value: `sk_live_${mixed(r, ALNUM, 24)}`, line: (v) => `stripe = Stripe('${v}')` }),
  'sendgrid-api-token': (r) => ({ value: `SG.${mixed(r, ALNUM, 22)}.${mixed(r, ALNUM, 43)}`, line: (v) => `sg.send('${v}')` }),
  'twilio-api-key': (r) => ({ value: `SK${mixed(r, HEX, 32)}`, line: (v) => `twilio ${v}` }),
  'openai-api-key': (r) => ({ value: `sk-${mixed(r, ALNUM, 20)}T3BlbkFJ${mixed(r, ALNUM, 20)}`, line: (v) => `openai = OpenAI("${v}")` }),
  'anthropic-api-key': (r) => ({ value: `sk-ant-api03-${mixed(r, ALNUM, 93)}AA`, line: (v) => `client = Anthropic('${v}')` }),
  'huggingface-access-token': (r) => ({ value: `hf_${pick(r, UPPER + LOWER, 34)}`, line: (v) => `login("${v}")` }),
  'digitalocean-pat': (r) => ({ value: `dop_v1_${mixed(r, HEX, 64)}`, line: (v) => `do ${v}` }),
  'shopify-access-token': (r) => ({ value: `shpat_${mixed(r, HEX, 32)}`, line: (v) => `shop ${v}` }),
  'databricks-api-token': (r) => ({ value: `dapi${mixed(r, HEX, 32)}`, line: (v) => `databricks ${v}` }),
  'age-secret-key': (r) => ({ value: `AGE-SECRET-KEY-1${pick(r, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`, line: (v) => `# ${v}` }),
  jwt: (r) => ({ value: `eyJ${mixed(r, ALNUM, 30)}.eyJ${mixed(r, ALNUM, 60)}.${mixed(r, `${ALNUM}_-`, 43)}`, line: (v) => `Authorization: Bearer ${v}` }),
  'generic-api-key': (r) => ({ value: genericValue(r), line: (v) => `const dbPassword = "${v}";` }),
};

/** A planted token literal of `rule`. */
export function plantToken(rule: string, rand: () => number): Planted {
  const m = TOKEN_MAKERS[rule]!(rand);
  return { rule, value: m.value, line: m.line(m.value) };
}

/** Key blocks (a file holding one is a secret): the text, and a line of it that must never be served. */
export const BLOCK_MAKERS: Readonly<Record<string, (rand: () => number) => { text: string; value: string }>> = {
  'private-key': (r) => {
    const kind = ['RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ', ''][Math.floor(r() * 5)]!;
    const body = Array.from({ length: 4 }, () => mixed(r, `${ALNUM}+/`, 64));
    return { value: body[1]!, text: `-----BEGIN ${kind}PRIVATE KEY-----\n${body.join('\n')}\n-----END ${kind}PRIVATE KEY-----` };
  },
  'private-key-pgp': (r) => {
    const body = Array.from({ length: 4 }, () => mixed(r, `${ALNUM}+/`, 64));
    return { value: body[2]!, text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body.join('\n')}\n-----END PGP PRIVATE KEY BLOCK-----` };
  },
  'putty-private-key': (r) => {
    const pub = mixed(r, `${ALNUM}+/`, 64);
    const priv = mixed(r, `${ALNUM}+/`, 64);
    return {
      value: priv,
      text: `PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key\nPublic-Lines: 1\n${pub}\nPrivate-Lines: 1\n${priv}\nPrivate-MAC: ${mixed(r, HEX, 40)}`,
    };
  },
};
