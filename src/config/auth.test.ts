import { expect, test } from 'bun:test'
import { parseConfig } from './load.ts'

const base = { providers: [{ name: 'mock', type: 'mock' }], models: [{ id: 'm', provider: 'mock', price: { input: 1, output: 2 } }] }
const oidc = { issuer: 'https://sso.example.com/realms/acme', client_id: 'tollgate', client_secret: 's3cret' }

test('auth: passwords on and no single sign-on by default', () => {
  expect(parseConfig(base).auth).toEqual({ passwords: true, oidc: undefined })
})

test('auth.oidc: defaults, and every setting read', () => {
  expect(parseConfig({ ...base, auth: { oidc } }).auth.oidc).toEqual({
    issuer: oidc.issuer,
    clientId: 'tollgate',
    clientSecret: 's3cret',
    name: 'single sign-on',
    scopes: ['openid', 'email', 'profile'],
    allowedDomains: [],
    roleClaim: undefined,
    accountClaim: undefined,
  })
  const full = {
    ...oidc,
    name: 'Keycloak',
    scopes: ['email', 'roles'],
    allowed_domains: ['@Example.com', 'example.org'],
    role_claim: 'realm_access.roles',
    account_claim: 'tollgate_account',
  }
  expect(parseConfig({ ...base, auth: { passwords: false, oidc: full } }).auth).toEqual({
    passwords: false,
    oidc: {
      issuer: oidc.issuer,
      clientId: 'tollgate',
      clientSecret: 's3cret',
      name: 'Keycloak',
      scopes: ['openid', 'email', 'roles'],
      allowedDomains: ['example.com', 'example.org'],
      roleClaim: 'realm_access.roles',
      accountClaim: 'tollgate_account',
    },
  })
})

test('auth: a setting that cannot work fails at start, naming the field', () => {
  expect(() => parseConfig({ ...base, auth: { passwords: false } })).toThrow('auth.passwords: false needs auth.oidc')
  expect(() => parseConfig({ ...base, auth: { oidc: { ...oidc, issuer: 'http://sso.example.com' } } })).toThrow(
    "auth.oidc.issuer: must be the provider's https://",
  )
  expect(() => parseConfig({ ...base, auth: { oidc: { ...oidc, issuer: 'sso.example.com' } } })).toThrow('auth.oidc.issuer')
  expect(() => parseConfig({ ...base, auth: { oidc: { ...oidc, client_secret: undefined } } })).toThrow(
    'auth.oidc.client_secret: is required',
  )
  expect(() => parseConfig({ ...base, auth: { oidc: { ...oidc, roles_claim: 'x' } } })).toThrow('auth.oidc.roles_claim: unknown setting')
  expect(() => parseConfig({ ...base, auth: { password: false } })).toThrow('auth.password: unknown setting')
  // A provider on the same machine may speak plain http.
  expect(parseConfig({ ...base, auth: { oidc: { ...oidc, issuer: 'http://127.0.0.1:8180/realms/acme' } } }).auth.oidc!.issuer).toBe(
    'http://127.0.0.1:8180/realms/acme',
  )
})

test("the README's and operations guide's auth examples are valid configs", async () => {
  const documents = [
    await Bun.file(`${import.meta.dir}/../../README.md`).text(),
    await Bun.file(`${import.meta.dir}/../../docs/operations.md`).text(),
  ]
  const blocks = documents.flatMap((text) => [...text.matchAll(/```yaml\n([ \t]*auth:\n[\s\S]*?)```/g)].map((match) => match[1]!))
  expect(blocks).toHaveLength(2)
  for (const block of blocks) {
    const indent = /^[ \t]*/.exec(block)![0].length
    const yaml = block
      .split('\n')
      .map((line) => line.slice(indent))
      .join('\n')
      .replaceAll('${OIDC_CLIENT_SECRET}', 'secret')
    expect(parseConfig({ ...base, ...(Bun.YAML.parse(yaml) as object) }).auth.oidc!.clientId).toBe('tollgate')
  }
})
