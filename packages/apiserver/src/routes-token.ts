import { createSign, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { type RequestContext, sendJson } from './http.js';
import { timestamp } from './object-meta.js';
import { isObject, type JsonObject } from './patch.js';
import { parseObjectBody } from './request-body.js';
import type { ServerState } from './server-state.js';
import { badRequest, conflict, invalid, methodNotAllowed } from './status.js';
import type { Target } from './target.js';
import { invalid as invalidValue } from './validation/field-errors.js';

/** The issuer and default audience of the tokens, the one envtest gives its kube-apiserver. */
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** What a TokenRequest without `expirationSeconds` gets (authentication/v1's default). */
const DEFAULT_EXPIRATION_SECONDS = 3600;

let signingKey: { privateKey: KeyObject; kid: string } | undefined;

/** The RSA key tokens are signed with: made on the first token, as most tests never ask for one. */
function tokenSigningKey(): { privateKey: KeyObject; kid: string } {
  if (!signingKey) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    signingKey = { privateKey, kid: randomUUID() };
  }
  return signingKey;
}

const base64url = (value: object): string =>
  Buffer.from(JSON.stringify(value)).toString('base64url');

/** A signed (RS256) service-account JWT with kube-apiserver's claims. */
function signToken(claims: object): string {
  const { privateKey, kid } = tokenSigningKey();
  const unsigned = `${base64url({ alg: 'RS256', kid })}.${base64url(claims)}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKey, 'base64url');
  return `${unsigned}.${signature}`;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * `POST …/serviceaccounts/{name}/token` (`kubectl create token`): a TokenRequest answered with
 * a signed token for the service account, bound to a Pod or Secret when `boundObjectRef` names
 * one, checked as kube-apiserver 1.20 checks it (duration limits, then the service account,
 * then the bound object).
 */
export function serveServiceAccountToken(
  state: ServerState,
  ctx: RequestContext,
  target: Target,
  name: string,
): void {
  const method = ctx.req.method ?? 'GET';
  if (method !== 'POST') throw methodNotAllowed(method, 'TokenRequest');
  const request = parseObjectBody(ctx, { ...target.definition, kind: 'TokenRequest' });
  const spec = isObject(request.spec) ? request.spec : {};
  const expirationSeconds =
    typeof spec.expirationSeconds === 'number'
      ? spec.expirationSeconds
      : DEFAULT_EXPIRATION_SECONDS;
  const problems = [];
  if (expirationSeconds < 600) {
    problems.push(
      invalidValue(
        'spec.expirationSeconds',
        expirationSeconds,
        'may not specify a duration less than 10 minutes',
      ),
    );
  }
  if (expirationSeconds > 2 ** 32) {
    problems.push(
      invalidValue(
        'spec.expirationSeconds',
        expirationSeconds,
        'may not specify a duration larger than 2^32 seconds',
      ),
    );
  }
  if (problems.length > 0) throw invalid('TokenRequest', '', problems, 'authentication.k8s.io');
  const account = state.storage.get(target, name).obj;
  const accountMeta = isObject(account.metadata) ? account.metadata : {};
  const namespace = target.namespace ?? '';
  const bound = boundObject(state, target, name, spec.boundObjectRef);
  const audiences =
    Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences : [ISSUER];
  const now = Date.now();
  const issuedAt = Math.floor(now / 1000);
  const token = signToken({
    aud: audiences,
    exp: issuedAt + expirationSeconds,
    iat: issuedAt,
    iss: ISSUER,
    'kubernetes.io': {
      namespace,
      ...(bound ? { [bound.claim]: { name: bound.name, uid: bound.uid } } : {}),
      serviceaccount: { name, uid: str(accountMeta.uid) },
    },
    nbf: issuedAt,
    sub: `system:serviceaccount:${namespace}:${name}`,
  });
  const answer = {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: {
      ...(isObject(request.metadata) ? request.metadata : {}),
      creationTimestamp: null,
    },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: isObject(spec.boundObjectRef) ? spec.boundObjectRef : null,
    },
    status: {
      token,
      expirationTimestamp: timestamp(new Date(now + expirationSeconds * 1000)),
    },
  };
  sendJson(ctx.res, 201, JSON.stringify(answer));
}

/** The Pod or Secret a token is bound to, looked up and checked; undefined when unbound. */
function boundObject(
  state: ServerState,
  target: Target,
  account: string,
  ref: unknown,
): { claim: 'pod' | 'secret'; name: string; uid: string } | undefined {
  if (!isObject(ref)) return undefined;
  const apiVersion = str(ref.apiVersion);
  const kind = str(ref.kind);
  const resource = apiVersion === 'v1' && kind === 'Pod' ? 'pods' : undefined;
  const secret = apiVersion === 'v1' && kind === 'Secret' ? 'secrets' : undefined;
  const plural = resource ?? secret;
  if (!plural) {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  const definition = state.storage.registry.lookup('', 'v1', plural);
  if (!definition) throw badRequest(`cannot bind token to ${kind}`);
  const object: JsonObject = state.storage.get(
    { definition, version: 'v1', namespace: target.namespace },
    str(ref.name),
  ).obj;
  const meta = isObject(object.metadata) ? object.metadata : {};
  if (plural === 'pods') {
    const spec = isObject(object.spec) ? object.spec : {};
    if (str(spec.serviceAccountName) !== account) {
      throw badRequest(
        `cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`,
      );
    }
  }
  const uid = str(meta.uid);
  if (str(ref.uid) !== '' && str(ref.uid) !== uid) {
    throw conflict(
      kind,
      str(ref.name),
      `the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return { claim: plural === 'pods' ? 'pod' : 'secret', name: str(ref.name), uid };
}
