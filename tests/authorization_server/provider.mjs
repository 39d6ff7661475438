// A real OAuth 2.1 authorization server for the tests: oidc-provider (a certified OpenID
// provider) on 127.0.0.1:<port>, issuing JWT access tokens (RFC 9068) for the resource a
// client names (RFC 8707 resource indicators), with the scopes given by --scopes.
//
// Open dynamic client registration, PKCE required (S256), the authorization code grant,
// client_credentials for the confidential client --service-id/--service-secret, and
// refresh tokens when a client asks for offline_access. There is no browser in a test, so
// the interaction (login, then consent) approves itself: whoever follows the redirects
// with cookies logs in as the request's login_hint (else "alice") and is granted every
// scope asked for. Prints "listening <issuer>" once it accepts connections.
//
//   node provider.mjs --port 8080 --modules <folder with node_modules/oidc-provider> \
//        --scopes "notes:read notes:write"
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({
  options: {
    port: { type: 'string' },
    modules: { type: 'string' },
    scopes: { type: 'string', default: '' },
    'service-id': { type: 'string', default: 'service' },
    'service-secret': { type: 'string', default: 'service-secret' },
    'token-ttl': { type: 'string', default: '600' },
  },
});

// The npm peers live in .ci/_work/node, not beside this file, and ESM ignores NODE_PATH.
const { default: Provider, errors } = await import(
  pathToFileURL(join(options.modules, 'oidc-provider', 'lib', 'index.js')).href
);

const issuer = `http://127.0.0.1:${options.port}`;
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
const resourceScopes = options.scopes.split(' ').filter(Boolean);

function resourceServer(resource) {
  let url;
  try {
    url = new URL(resource);
  } catch {
    throw new errors.InvalidTarget();
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.hash) throw new errors.InvalidTarget();
  return {
    scope: resourceScopes.join(' '),
    audience: resource,
    accessTokenTTL: Number(options['token-ttl']),
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'RS256' } },
  };
}

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: options['service-id'],
      client_secret: options['service-secret'],
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
    },
  ],
  jwks: { keys: [{ ...signingKey, kid: 'signing-1', use: 'sig', alg: 'RS256' }] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  pkce: { required: () => true },
  // The resource's scopes are listed too: registration refuses a client whose `scope`
  // metadata names a scope the server does not list, and MCP clients register with theirs.
  scopes: ['openid', 'offline_access', ...resourceScopes],
  // MCP clients (both SDKs) register with the scope of the first challenge and ask for
  // more on a 403 insufficient_scope; oidc-provider reads a registered `scope` as the most
  // a client may ever ask for, and would refuse that step-up (invalid_scope). Here the
  // registered scope is dropped: a client may ask for any scope the server lists.
  extraClientMetadata: {
    properties: ['scope'],
    validator(ctx, key, value, metadata) {
      if (key === 'scope') delete metadata.scope;
    },
  },
  findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  issueRefreshToken: (ctx, client, code) =>
    client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf ?? undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => resourceServer(resource),
    },
  },
});

// Login, then consent, each finished at once; interactionFinished redirects back to
// the authorization endpoint, which goes on to the next prompt or to the client.
async function interact(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const accountId = params.login_hint || 'alice';
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const missing = prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const handle = provider.callback();
const server = createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interact(req, res).catch((error) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'text/plain');
      res.end(String(error));
    });
  } else {
    handle(req, res);
  }
});
server.listen(Number(options.port), '127.0.0.1', () => console.log(`listening ${issuer}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
