// The TypeScript SDK's client through MCP's whole OAuth flow against a generated server
// (driven by tests/test_auth_oidc.py): the 401 sends it to the protected resource
// metadata and the authorization server's, it registers itself, sends the user to
// authorize with PKCE and the resource, exchanges the code, then calls `whoami`. Then
// `write_entry`, which needs more scope: the 403 insufficient_scope makes it authorize
// again with the scope the server named, and the call succeeds.
//
// There is no browser: the provider's redirectToAuthorization follows the redirects itself
// (the authorization server approves every request), keeping cookies as a browser would.
// Prints one JSON line of what happened.
//
//   node sdk_client.mjs --url http://127.0.0.1:8000/mcp --modules <folder with node_modules>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({
  options: { url: { type: 'string' }, modules: { type: 'string' } },
});

// The npm peers live in .ci/_work/node, not beside this file, and ESM ignores NODE_PATH.
const sdk = (path) =>
  import(pathToFileURL(join(options.modules, '@modelcontextprotocol', 'sdk', 'dist', 'esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { UnauthorizedError } = await sdk('client/auth.js');

const REDIRECT_URL = 'http://127.0.0.1:9/callback'; // never reached: see `approve`

// Follow the authorization request until the authorization server sends the browser to
// the client's redirect URL; the code in it (or the error, thrown).
async function approve(authorizationUrl) {
  const cookies = new Map();
  let url = authorizationUrl.toString();
  for (let step = 0; step < 10; step += 1) {
    const headers = { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    const response = await fetch(url, { redirect: 'manual', headers });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
    url = new URL(location, url).toString();
    if (url.startsWith(REDIRECT_URL)) {
      const answer = new URL(url).searchParams;
      if (!answer.get('code')) throw new Error(`authorization refused: ${url}`);
      return answer.get('code');
    }
  }
  throw new Error('too many redirects');
}

class ApprovingProvider {
  constructor() {
    this.authorizations = [];
    this.code = undefined;
  }

  get redirectUrl() {
    return REDIRECT_URL;
  }

  get clientMetadata() {
    return {
      client_name: 'mcpgen test (TypeScript SDK)',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(client) {
    this.client = client;
  }

  tokens() {
    return this.savedTokens;
  }

  saveTokens(tokens) {
    this.savedTokens = tokens;
  }

  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }

  async redirectToAuthorization(url) {
    this.authorizations.push(Object.fromEntries(url.searchParams));
    this.code = await approve(url);
  }
}

// The SDK's own pattern: a call that needed the user throws UnauthorizedError once the
// provider sent them off; the code comes back, finishAuth exchanges it, and the call is
// made again.
async function authorized(provider, transport, call) {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await transport.finishAuth(provider.code);
    return call();
  }
}

const provider = new ApprovingProvider();
const url = new URL(options.url);
let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
const client = new Client({ name: 'mcpgen-oauth-test', version: '1' });
try {
  await client.connect(transport);
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  await transport.finishAuth(provider.code);
  transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
}
const text = (result) => result.content[0].text;
const first = JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })));
const written = text(await authorized(provider, transport, () => client.callTool({ name: 'write_entry', arguments: {} })));
const after = JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })));
await client.close();
console.log(
  JSON.stringify({
    client_id: provider.client.client_id,
    authorizations: provider.authorizations,
    first,
    written,
    after,
  }),
);
