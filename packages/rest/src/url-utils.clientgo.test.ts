// client-go's rest/url_utils_test.go, as data.

import { describe, expect, it } from 'vitest';
import { RESTClient } from './client.js';
import { ConfigError } from './errors.js';

describe('TestValidatesHostParameter', () => {
  // Host, APIPath, the versioned URL (client-go joins the API path and the version with no
  // group prefix: `/v1`), or an error.
  const rows: [host: string, apiPath: string, url: string | Error][] = [
    ['127.0.0.1', '', 'http://127.0.0.1/v1'],
    ['127.0.0.1:8080', '', 'http://127.0.0.1:8080/v1'],
    ['foo.bar.com', '', 'http://foo.bar.com/v1'],
    ['http://host/prefix', '', 'http://host/prefix/v1'],
    ['http://host', '', 'http://host/v1'],
    ['http://host', '/', 'http://host/v1'],
    ['http://host', '/other', 'http://host/other/v1'],
    ['host/server', '', new Error('must be a URL (with http:// or https://) or a host:port pair')],
  ];
  it.each(rows)('host %j, apiPath %j', (host, apiPath, url) => {
    const build = () =>
      new RESTClient({ host, qps: -1 }, { groupVersion: 'v1', apiPath })
        .get()
        .url()
        .href.replace(/\/$/, '');
    if (url instanceof Error) {
      expect(build).toThrow(ConfigError);
      expect(build).toThrow(url.message);
    } else {
      expect(build()).toBe(url);
    }
  });
});
