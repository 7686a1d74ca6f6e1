// The in-memory API server of @kubets/apiserver refuses CRDs with the same rules (one
// implementation, @kubets/apiextensions): each declaration the checker refuses gets the same
// 422 from it as from kube-apiserver 1.20 (src/crd.e2e.test.ts).

import { isInvalid, isStatusError } from '@kubets/apimachinery';
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { Clientset } from '@kubets/clientset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { violations } from '../test/website.js';
import { CustomResourceDefinitionError, defineCustomResource } from './index.js';

let server: InMemoryApiServer;
let clientset: Clientset;

beforeAll(async () => {
  server = await startApiServer();
  clientset = new Clientset({ host: server.host });
});

afterAll(async () => {
  await server.stop();
});

describe('the in-memory API server refuses what the checker refuses, with the same message', () => {
  for (const [rule, declaration] of Object.entries(violations('refused.example.com'))) {
    it(rule, async () => {
      let refused: CustomResourceDefinitionError | undefined;
      try {
        const refusedDeclaration: Parameters<typeof defineCustomResource>[0] = declaration;
        defineCustomResource(refusedDeclaration);
      } catch (err) {
        if (err instanceof CustomResourceDefinitionError) refused = err;
      }
      if (refused === undefined) throw new Error('the checker accepted the declaration');
      const err = await clientset
        .apiextensionsV1()
        .customResourceDefinitions()
        .create(refused.crd)
        .catch((e: unknown) => e);
      expect(isInvalid(err), String(err)).toBe(true);
      if (!isStatusError(err)) throw err;
      expect(err.message).toBe(refused.message);
      expect(err.status.details?.causes).toEqual(refused.causes);
    });
  }
});
