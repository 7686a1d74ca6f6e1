import type { GroupVersion } from '@kubets/apimachinery';
import type { RESTClient } from '@kubets/rest';

/**
 * The base of every generated group/version client (`CoreV1Client`, `AppsV1Client`, ...):
 * holds the REST client for that group/version, as client-go's `CoreV1Client` does.
 */
export abstract class GroupVersionClient {
  /** The REST client requests of this group/version go through (client-go's `RESTClient()`). */
  readonly restClient: RESTClient;

  constructor(restClient: RESTClient) {
    this.restClient = restClient;
  }
}

/** A generated group/version client class: constructible from a REST client, and naming its group/version. */
export interface GroupVersionClientClass<C extends GroupVersionClient> {
  new (restClient: RESTClient): C;
  /** The group/version the class addresses. */
  readonly groupVersion: GroupVersion;
}
