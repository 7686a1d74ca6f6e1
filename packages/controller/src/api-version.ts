import { parseGroupVersion } from '@kubets/apimachinery';

/**
 * The group of an `apiVersion` (`''` for the core group), or the string itself when it is
 * not one: references are matched by group because every version of a group is one object.
 */
export function groupOf(apiVersion: string): string {
  try {
    return parseGroupVersion(apiVersion).group;
  } catch {
    return apiVersion;
  }
}
