// Hostile values for the parts of an API path (namespace, resource, name, subresource, API
// group and version), with what a client must do with each: refuse it before sending, or
// send it so that the path names exactly that object. The expectations are data, not
// derived from the code under test: apimachinery's IsValidPathSegmentName refuses `.`,
// `..`, and anything containing `/` or `%`; every other value reaches the server
// percent-encoded (the server then answers NotFound or Invalid, never for another object).
//
// Also what the unit tests of that rule share: a stub server answering NotFound and the
// check of a request's fate, refused or sent. These call vitest, so only test files may
// import this subpath.

import { afterAll, beforeEach, expect } from 'vitest';
import { type StubServer, sendJson, startStubServer } from './stub-server.js';

/** One hostile value and whether a client must refuse it as a path segment. */
export interface HostileSegment {
  /** What the case is, for test names. */
  readonly label: string;
  readonly value: string;
  /** True: refused before sending. False: sent, naming exactly this value. */
  readonly refused: boolean;
}

export const hostileSegments: readonly HostileSegment[] = [
  { label: 'backslash traversal', value: '..\\..\\victim', refused: false },
  { label: 'single backslash', value: '\\', refused: false },
  { label: 'backslash inside', value: 'a\\b', refused: false },
  { label: 'dot TAB dot', value: '.\t.', refused: false },
  { label: 'TAB before dots', value: '\t..', refused: false },
  { label: 'dots then TAB', value: '..\t', refused: false },
  { label: 'CR inside', value: 'a\rb', refused: false },
  { label: 'LF inside', value: 'a\nb', refused: false },
  { label: 'CRLF header injection', value: 'x\r\nHost: evil', refused: false },
  { label: 'NUL alone', value: '\u0000', refused: false },
  { label: 'NUL inside', value: 'a\u0000b', refused: false },
  { label: 'dot dot', value: '..', refused: true },
  { label: 'dot', value: '.', refused: true },
  { label: 'dots and semicolon', value: '..;', refused: false },
  { label: 'dots then space', value: '.. ', refused: false },
  { label: 'space then dots', value: ' ..', refused: false },
  { label: 'percent-encoded dots', value: '%2e%2e', refused: true },
  { label: 'upper-case percent dots', value: '%2E.', refused: true },
  { label: 'percent-encoded slash', value: '..%2fvictim', refused: true },
  { label: 'percent-encoded NUL', value: 'a%00', refused: true },
  { label: 'slash traversal', value: '../victim', refused: true },
  { label: 'slash inside', value: 'a/b', refused: true },
  { label: 'query injection', value: 'x?watch=true', refused: false },
  { label: 'fragment injection', value: 'x#y', refused: false },
  { label: 'space inside', value: 'a b', refused: false },
  { label: 'one dot leader pair (look-alike of ..)', value: '\u2024\u2024', refused: false },
  { label: 'fullwidth full stops (look-alike of ..)', value: '\uff0e\uff0e', refused: false },
  { label: 'division slash (look-alike of /)', value: '\u2215victim', refused: false },
  { label: 'fullwidth solidus (look-alike of /)', value: '\uff0fvictim', refused: false },
  { label: 'small reverse solidus (look-alike of \\)', value: '\ufe68victim', refused: false },
  { label: 'accented letters', value: 'caf\u00e9', refused: false },
  { label: 'lone surrogate', value: 'a\ud800', refused: true },
  { label: 'colon, kept readable', value: 'system:node', refused: false },
  { label: 'very long (10,000 characters)', value: 'x'.repeat(10_000), refused: false },
];

/** An API group or version and whether a client must refuse it. */
export interface HostileGroupVersionPart {
  readonly label: string;
  readonly value: string;
  readonly refused: boolean;
}

/** API groups: `''` (core) or a DNS subdomain; anything else is refused before sending. */
export const hostileGroups: readonly HostileGroupVersionPart[] = [
  { label: 'core group', value: '', refused: false },
  { label: 'a real group', value: 'apps', refused: false },
  { label: 'a CRD group', value: 'crddemo.k8s.io', refused: false },
  { label: 'escape from a base path', value: '../../c2/apis/apps', refused: true },
  { label: 'dot dot', value: '..', refused: true },
  { label: 'dot', value: '.', refused: true },
  { label: 'slash inside', value: 'apps/v1', refused: true },
  { label: 'backslash', value: 'a\\b', refused: true },
  { label: 'TAB', value: 'a\tb', refused: true },
  { label: 'NUL', value: 'a\u0000', refused: true },
  { label: 'percent-encoded dots', value: '%2e%2e', refused: true },
  { label: 'upper case', value: 'Apps', refused: true },
  { label: 'fullwidth letters', value: '\uff41\uff50\uff50\uff53', refused: true },
  { label: 'longer than 253 characters', value: `${'a'.repeat(250)}.com`, refused: true },
];

/** API versions: a DNS label (`v1`, `v1beta1`); anything else is refused before sending. */
export const hostileVersions: readonly HostileGroupVersionPart[] = [
  { label: 'v1', value: 'v1', refused: false },
  { label: 'v1beta1', value: 'v1beta1', refused: false },
  { label: 'dot dot', value: '..', refused: true },
  { label: 'traversal', value: '../../api/v1', refused: true },
  { label: 'backslash traversal', value: '..\\..', refused: true },
  { label: 'TAB', value: 'v1\t', refused: true },
  { label: 'upper case', value: 'V1', refused: true },
  { label: 'dot inside', value: 'v1.2', refused: true },
  { label: 'longer than 63 characters', value: `v${'1'.repeat(63)}`, refused: true },
];

/**
 * The segments of a path as sent (`/api/v1/...`, no query), each percent-decoded: what the
 * server sees as the namespace, resource and name. A raw `/` inside a value would show up
 * here as an extra segment.
 */
export function decodedPathSegments(pathAsSent: string): string[] {
  const path = pathAsSent.split('?')[0] ?? '';
  return path.split('/').slice(1).map(decodeURIComponent);
}

/** The parts of an object's path a hostile segment can be given as. */
export const objectPathParts = ['namespace', 'resource', 'name', 'subresource'] as const;
export type ObjectPathPart = (typeof objectPathParts)[number];

/**
 * Starts a stub server that answers every request 404 NotFound, for the tests of the file
 * that calls it at its top level: a request that is sent reaches no object, and its path is
 * in `requests`, emptied before each test. Closed after the file's tests.
 */
export async function notFoundServerForFile(): Promise<StubServer> {
  const server = await startStubServer((_request, response) =>
    sendJson(response, 404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' }),
  );
  beforeEach(() => {
    server.requests.length = 0;
  });
  afterAll(() => server.close());
  return server;
}

/** A hostile value given as one part of a request, and where the request goes if sent. */
export interface HostileRequest {
  readonly part: string;
  readonly value: string;
  /** The value's {@link HostileSegment.refused}. */
  readonly refused: boolean;
  /** The segments of the path the request names, percent-decoded. */
  readonly path: readonly string[];
}

/**
 * Checks what became of a request to a {@link notFoundServerForFile} server: a value that must
 * be refused failed it with an InvalidRequestError naming the part and value, nothing sent;
 * any other value reached the server as its one request, to exactly `path`, and got the 404.
 * `isInvalidRequestError` is @kubets/rest's, passed in: this package does not depend on it.
 */
export function expectRefusedOrSent(
  server: StubServer,
  isInvalidRequestError: (err: unknown) => boolean,
  outcome: unknown,
  { part, value, refused, path }: HostileRequest,
): void {
  if (refused) {
    expect(isInvalidRequestError(outcome)).toBe(true);
    expect(outcome).toMatchObject({ part, value });
    expect(server.requests).toHaveLength(0);
    return;
  }
  expect(outcome).toMatchObject({ status: { code: 404 } });
  expect(server.requests.map((r) => decodedPathSegments(r.url))).toEqual([path]);
}
