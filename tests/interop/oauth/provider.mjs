// A real OAuth 2.1 / OpenID authorization server for the authorization
// interop tests: oidc-provider (installed by scripts/install-tools.sh),
// issuing JWT access tokens (ES256) bound to one MCP resource (RFC 8707).
//
//   node provider.mjs PORT RESOURCE
//
// Issuer http://127.0.0.1:PORT; open Dynamic Client Registration; PKCE
// required; the development login page (any user name, any password) and
// consent granted for what the client asks, so a scripted browser can sign
// in. Prints "ready" on stdout once it listens.
import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [port, resource] = process.argv.slice(2);
if (!port || !resource) {
  console.error('usage: node provider.mjs PORT RESOURCE');
  process.exit(2);
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

const provider = new Provider(issuer, {
  jwks: { keys: [signing] },
  scopes: ['openid', 'offline_access', 'calculator:read', 'calculator:write'],
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
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) {
          throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        }
        return {
          scope: RESOURCE_SCOPES,
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  // Consent: the user grants what the client asks for (the login is still
  // the development page's).
  async loadExistingGrant(ctx) {
    const { client, session, params } = ctx.oidc;
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    const asked = String(params.scope || '').split(' ').filter(Boolean);
    const granted = asked.filter((s) => RESOURCE_SCOPES.split(' ').includes(s));
    if (asked.length) grant.addOIDCScope(asked.join(' '));
    grant.addResourceScope(resource, granted.join(' '));
    await grant.save();
    return grant;
  },
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));
provider.on('grant.error', (ctx, err) => console.error('grant.error', err.message, err.error_description ?? ''));
provider.on('authorization.error', (ctx, err) => console.error('authorization.error', err.message, err.error_description ?? ''));
provider.on('registration_create.error', (ctx, err) => console.error('registration.error', err.message, err.error_description ?? ''));
provider.listen(Number(port), '127.0.0.1', () => console.log('ready'));
