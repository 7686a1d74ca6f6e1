import { describe, expect, it } from 'vitest';
import {
  bytesField,
  mapEntry,
  messageField,
  protobufBody,
  varintField,
} from '../test/protobuf-encode.js';
import { decodeProtobufObject } from './protobuf.js';

const builtin = (kind: string) => ({ kind, custom: false });

describe('decodeProtobufObject', () => {
  it('decodes a Deployment as kubectl create deployment sends it, zero values left out', () => {
    const meta = messageField(
      1,
      bytesField(1, 'web'),
      bytesField(2, ''),
      mapEntry(11, 'app', 'web'),
      messageField(8),
    );
    const container = messageField(
      2,
      bytesField(1, 'nginx'),
      bytesField(2, 'nginx:1'),
      messageField(6, varintField(3, 80), bytesField(4, 'TCP')),
      messageField(8),
    );
    const spec = messageField(
      2,
      varintField(1, 0),
      messageField(2, mapEntry(1, 'app', 'web')),
      messageField(3, messageField(1, mapEntry(11, 'app', 'web')), messageField(2, container)),
      messageField(4),
    );
    const body = protobufBody('apps/v1', 'Deployment', meta, spec, messageField(3));
    expect(decodeProtobufObject(body, builtin('Deployment'))).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'nginx',
                image: 'nginx:1',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                resources: {},
              },
            ],
          },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('decodes timestamps, negative integers and byte maps', () => {
    const meta = messageField(
      1,
      bytesField(1, 's'),
      messageField(8, varintField(1, 1767225600)),
      varintField(10, -1),
    );
    const body = protobufBody('v1', 'Secret', meta, mapEntry(2, 'k', Buffer.from('hi')));
    expect(decodeProtobufObject(body, builtin('Secret'))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        creationTimestamp: '2026-01-01T00:00:00Z',
        deletionGracePeriodSeconds: -1,
      },
      data: { k: 'aGk=' },
    });
  });

  it('refuses a field it does not know with 415 rather than dropping it', () => {
    const body = protobufBody(
      'v1',
      'ConfigMap',
      messageField(1, bytesField(1, 'c')),
      varintField(9, 1),
    );
    expect(() => decodeProtobufObject(body, builtin('ConfigMap'))).toThrow(
      'the in-memory API server cannot decode field 9 of ConfigMap from protobuf; send this object as application/json',
    );
  });

  it('refuses kinds it has no table for, and truncated bodies', () => {
    expect(() => decodeProtobufObject(protobufBody('v1', 'Pod'), builtin('Pod'))).toThrow(
      /decodes protobuf only for .*\(got v1 Pod\)/,
    );
    const truncated = protobufBody('v1', 'ConfigMap', messageField(1, bytesField(1, 'c')));
    expect(() =>
      decodeProtobufObject(truncated.subarray(0, truncated.length - 1), builtin('ConfigMap')),
    ).toThrow(/invalid protobuf body: .*truncated/);
  });
});
