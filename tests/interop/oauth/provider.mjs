// A real OAuth 2.1 / OpenID authorization server for the authorization
// interop tests: oidc-provider (installed by scripts/install-tools.sh),
// issuing JWT access tokens (ES256) for MCP resources (RFC 8707), configured
// as the identity providers behave.
//
//   node provider.mjs PORT RESOURCE[,RESOURCE...] [OPTION...]
//
//   --no-registration     no Dynamic Client Registration: the metadata names
//                         no registration_endpoint (Entra ID, Google, Keycloak
//                         with its default anonymous policy)
//   --client ID           a client registered beforehand (public, native:
//                         loopback redirects on any port); its tokens name the
//                         resource in `aud`
//   --client-audience ID  the same, but its tokens name the client id in
//                         `aud` (Entra ID v2.0 tokens, Auth0 and WorkOS by a
//                         setting)
//   --metadata-documents PORT CERT KEY
//                         Client ID Metadata Documents: the metadata says
//                         client_id_metadata_document_supported, and a
//                         client id that is an https URL is resolved by
//                         fetching its document. The documents of
//                         calculator_client and of the Python client are
//                         served here too, at
//                         https://127.0.0.1:PORT/clients/{calculator_client,python}.json
//                         (CERT and KEY: a certificate for 127.0.0.1, which
//                         NODE_EXTRA_CA_CERTS must name so that the fetch
//                         trusts it).
//
// Whatever the client: a `.default` scope (`api://calculator/.default`)
// asks for every scope of the resource, and the `resource` parameter beside
// one is refused with invalid_target, as Entra ID does. PKCE is required; the development
// login page (any user name, any password) signs in and consent is granted
// for what the client asks, so a scripted browser can sign in. Every request
// is logged (`request METHOD PATH`), so a test can say what was never asked.
// Prints "ready" on stdout once it listens.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { pathToFileURL } from 'node:url';

const usage = 'usage: node provider.mjs PORT RESOURCE[,RESOURCE...] [--no-registration] [--client ID] [--client-audience ID] [--metadata-documents PORT CERT KEY]';
const [port, resourceList, ...options] = process.argv.slice(2);
if (!port || !resourceList) {
  console.error(usage);
  process.exit(2);
}
const resources = resourceList.split(',');
let registration = true;
const clients = [];
/** Clients whose tokens carry their own id in `aud`. */
const audienceIsClient = new Set();
let documents;
for (let i = 0; i < options.length; i++) {
  const option = options[i];
  if (option === '--no-registration') {
    registration = false;
  } else if ((option === '--client' || option === '--client-audience') && options[i + 1]) {
    clients.push(options[++i]);
    if (option === '--client-audience') audienceIsClient.add(options[i]);
  } else if (option === '--metadata-documents' && options[i + 3]) {
    documents = { port: Number(options[i + 1]), cert: options[i + 2], key: options[i + 3] };
    i += 3;
  } else {
    console.error(`provider.mjs: unknown option ${option}\n${usage}`);
    process.exit(2);
  }
}
const modules = process.env.MCP_OIDC_PROVIDER_MODULES;
if (!modules) {
  console.error('MCP_OIDC_PROVIDER_MODULES is not set: source .tools/env.sh');
  process.exit(2);
}
const { default: Provider, errors } = await import(
  pathToFileURL(`${modules}/oidc-provider/lib/index.js`).href
);

const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signing = { ...privateKey.export({ format: 'jwk' }), kid: 'interop-es256', alg: 'ES256', use: 'sig' };
const RESOURCE_SCOPES = 'calculator:read calculator:write';
const loopbackRedirects = ['http://127.0.0.1/callback', 'http://127.0.0.1:9/callback'];
const documentsOrigin = documents && `https://127.0.0.1:${documents.port}`;

/** Whether a scope is a `.default` one (Entra ID's "every permission granted"). */
const isDefault = (scope) => scope.endsWith('/.default');

/** Whether the request itself carries `resource` (not a default filled in). */
function sentResource(ctx) {
  const sent = ctx.method === 'GET' ? ctx.query?.resource : ctx.oidc?.body?.resource;
  return sent !== undefined;
}

const provider = new Provider(issuer, {
  jwks: { keys: [signing] },
  scopes: ['openid', 'offline_access', 'calculator:read', 'calculator:write'],
  clients: clients.map((id) => ({
    client_id: id,
    application_type: 'native',
    redirect_uris: loopbackRedirects,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  })),
  // Policy: a registered client may ask for every scope, whatever `scope`
  // it registered with (the Python SDK registers with the first scope a
  // server challenged, and asks for more later: step-up).
  extraClientMetadata: {
    properties: ['mcp_interop_policy'],
    validator(ctx, key, value, metadata) {
      if (metadata.scope !== undefined) {
        metadata.scope = 'openid offline_access calculator:read calculator:write';
      }
    },
  },
  clientDefaults: {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    id_token_signed_response_alg: 'ES256',
  },
  // The documented hook for outgoing requests: the metadata documents served
  // here, on loopback, are fetched without the SSRF guard that refuses
  // special-use addresses; every other URL keeps it.
  fetch: (url, opts) => {
    if (documentsOrigin && new URL(url).origin === documentsOrigin) {
      delete opts.dispatcher;
    }
    return globalThis.fetch(url, opts);
  },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: registration },
    clientIdMetadataDocument: {
      enabled: documents !== undefined,
      ack: documents !== undefined ? 'draft-02' : undefined,
      allowFetch: (ctx, id) => documentsOrigin !== undefined && id.startsWith(`${documentsOrigin}/clients/`),
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf ?? resources[0],
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator, client) => {
        if (!resources.includes(indicator)) {
          throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        }
        if (sentResource(ctx) && ctx.state.askedDefault) {
          throw new errors.InvalidTarget('the resource parameter is not accepted with a .default scope');
        }
        return {
          scope: RESOURCE_SCOPES,
          audience: audienceIsClient.has(client?.clientId) ? client.clientId : indicator,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  // Consent: the user grants what the client asks for; the login is still
  // the development page's.
  async loadExistingGrant(ctx) {
    const { client, session, params } = ctx.oidc;
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    const asked = String(params.scope || '').split(' ').filter(Boolean);
    const granted = asked.filter((s) => RESOURCE_SCOPES.split(' ').includes(s));
    if (asked.length) grant.addOIDCScope(asked.join(' '));
    for (const resource of resources) grant.addResourceScope(resource, granted.join(' '));
    await grant.save();
    return grant;
  },
});
provider.use(async (ctx, next) => {
  console.log(`request ${ctx.method} ${ctx.path}`);
  // A `.default` scope stands for every scope of the resource, as Entra ID
  // grants every permission the client holds: the authorization request is
  // read with those instead (and remembered, for the `resource` refusal).
  if (ctx.method === 'GET' && ctx.path === '/auth' && ctx.query.scope) {
    const asked = String(ctx.query.scope).split(' ');
    if (asked.some(isDefault)) {
      ctx.state.askedDefault = true;
      const query = new URLSearchParams(ctx.querystring);
      const scopes = [...asked.filter((s) => !isDefault(s)), ...RESOURCE_SCOPES.split(' ')];
      query.set('scope', [...new Set(scopes)].join(' '));
      ctx.querystring = query.toString();
    }
  }
  await next();
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));
provider.on('grant.error', (ctx, err) => console.error('grant.error', err.message, err.error_description ?? ''));
provider.on('authorization.error', (ctx, err) => console.error('authorization.error', err.message, err.error_description ?? ''));
provider.on('registration_create.error', (ctx, err) => console.error('registration.error', err.message, err.error_description ?? ''));

/** The metadata document of a client of these tests, at its own URL. */
function clientDocument(name) {
  const url = `${documentsOrigin}/clients/${name}.json`;
  return {
    client_id: url,
    client_name: name,
    application_type: 'native',
    redirect_uris: loopbackRedirects,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

async function listen() {
  if (documents) {
    const server = createServer(
      { cert: readFileSync(documents.cert), key: readFileSync(documents.key) },
      (req, res) => {
        const name = /^\/clients\/(calculator_client|python)\.json$/u.exec(req.url ?? '')?.[1];
        console.log(`document ${req.method} ${req.url} ${name ? 200 : 404}`);
        res.writeHead(name ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(name ? clientDocument(name) : { error: 'not_found' }));
      },
    );
    await new Promise((resolve) => server.listen(documents.port, '127.0.0.1', resolve));
  }
  provider.listen(Number(port), '127.0.0.1', () => console.log('ready'));
}
await listen();
