import { isDNS1123Label } from '@kubets/apimachinery';
import {
  CustomResourceDefinitionError,
  defineCustomResource,
  type FieldError,
  pluralize,
} from '@kubets/crd';
import Type from 'typebox';

/** What a new project is made from: its name and its custom resource's group, kind and version. */
export interface ScaffoldOptions {
  /** The project's name: its package name, the operator's Deployment and ServiceAccount. */
  name: string;
  /** The custom resource's API group, a DNS subdomain with at least one dot; default `example.com`. */
  group?: string | undefined;
  /** The custom resource's kind, in PascalCase; default `Website`. */
  kind?: string | undefined;
  /** The custom resource's version; default `v1alpha1`. */
  version?: string | undefined;
}

/** The names the templates use, derived from valid {@link ScaffoldOptions}. */
export interface ScaffoldNames {
  /** The project's name (`my-operator`). */
  readonly name: string;
  /** The namespace the manifests deploy the operator into (`my-operator-system`). */
  readonly namespace: string;
  /** The API group (`example.com`). */
  readonly group: string;
  /** The kind (`Website`). */
  readonly kind: string;
  /** The version (`v1alpha1`). */
  readonly version: string;
  /** The plural resource name, as `@kubets/crd` derives it (`websites`). */
  readonly plural: string;
  /** The kind in lower camel case, for variables and functions (`website`). */
  readonly camelKind: string;
}

/** One broken rule: the option it concerns and the rule in the words of whoever made it. */
export interface ScaffoldProblem {
  /** The option (`name`, `group`, `kind`, `version`) or `directory`. */
  readonly option: string;
  /** What is wrong, with the rule that was broken. */
  readonly message: string;
}

/** Thrown before anything is written when a project cannot be made from the options given. */
export class ScaffoldError extends Error {
  /** Every broken rule. */
  readonly problems: readonly ScaffoldProblem[];

  /** The message lists each problem on a line of its own. */
  constructor(problems: readonly ScaffoldProblem[]) {
    super(
      `cannot create the project:\n${problems.map((p) => `  --${p.option}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ScaffoldError';
    this.problems = problems;
  }
}

/** The defaults of the options a user may leave out. */
export const defaultOptions = {
  /** The API group. */
  group: 'example.com',
  /** The kind. */
  kind: 'Website',
  /** The version. */
  version: 'v1alpha1',
} as const;

/** `-system`: the operator's namespace is its name with this suffix, as kubebuilder's. */
const namespaceSuffix = '-system';

/**
 * Names the generated code imports or declares next to the kind's type: a kind equal to one of
 * them would shadow it. `src/templates.test.ts` checks that the list covers every import.
 */
export const namesInUse: ReadonlySet<string> = new Set([
  'Clientset',
  'CustomObjectOf',
  'Envtest',
  'Manager',
  'ManagerOptions',
  'OperatorManifestsOptions',
  'PatchType',
  'ReconcileFunc',
  'Type',
]);

/**
 * Checks `options` and derives the names the templates use. The group, kind and version are
 * checked by `defineCustomResource` of `@kubets/crd` — the very call the generated project
 * makes — so a refusal carries kube-apiserver's rule and field (`spec.group: Invalid value:
 * "websites": should be a domain with at least one dot`); the name as the object name and
 * namespace it becomes (an RFC 1123 label).
 *
 * @throws {ScaffoldError} listing every broken rule.
 */
export function scaffoldNames(options: ScaffoldOptions): ScaffoldNames {
  const group = options.group ?? defaultOptions.group;
  const kind = options.kind ?? defaultOptions.kind;
  const version = options.version ?? defaultOptions.version;
  const { name } = options;
  const problems: ScaffoldProblem[] = [];

  const namespace = `${name}${namespaceSuffix}`;
  const nameErrors = isDNS1123Label(name);
  if (nameErrors.length > 0) {
    problems.push({
      option: 'name',
      message: `${JSON.stringify(name)} names the operator's Deployment and ServiceAccount and its namespace, so it must be an RFC 1123 label: ${nameErrors.join(', ')}`,
    });
  } else if (isDNS1123Label(namespace).length > 0) {
    problems.push({
      option: 'name',
      message: `${JSON.stringify(name)} is too long: the operator's namespace ${JSON.stringify(namespace)} must be an RFC 1123 label: ${isDNS1123Label(namespace).join(', ')}`,
    });
  }

  let crdRefused: ScaffoldProblem[] = [];
  try {
    defineCustomResource({
      group,
      kind,
      scope: 'Namespaced',
      versions: { [version]: { spec: Type.Object({}) } },
    });
  } catch (err) {
    if (!(err instanceof CustomResourceDefinitionError)) throw err;
    crdRefused = crdProblems(err.causes);
    problems.push(...crdRefused);
  }

  // Past kube-apiserver's rules, a TypeScript type is named after the kind.
  if (!crdRefused.some((p) => p.option === 'kind')) {
    if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
      problems.push({
        option: 'kind',
        message: `${JSON.stringify(kind)} names the resource's TypeScript type, so it must be PascalCase: a capital letter, then letters and digits (e.g. 'Website')`,
      });
    } else if (namesInUse.has(kind)) {
      problems.push({
        option: 'kind',
        message: `${JSON.stringify(kind)} is a name the generated code already imports; choose another kind`,
      });
    }
  }

  if (problems.length > 0) throw new ScaffoldError(problems);
  const singular = kind.toLowerCase();
  return {
    name,
    namespace,
    group,
    kind,
    version,
    plural: pluralize(singular),
    camelKind: kind.charAt(0).toLowerCase() + kind.slice(1),
  };
}

/**
 * The CRD's causes as problems of the options that made the fields. Left out: what only repeats
 * another cause — `spec.version` is the first version's name, checked as `spec.versions[0].name`;
 * the plural, singular and list kind come from the kind, so its own cause says it;
 * `metadata.name` is `plural.group`, wrong whenever the group or the kind is — unless nothing
 * else explains it.
 */
function crdProblems(causes: readonly FieldError[]): ScaffoldProblem[] {
  const kindRefused = causes.some((c) => c.field === 'spec.names.kind');
  const direct = causes.filter(
    (c) =>
      c.field !== 'metadata.name' &&
      c.field !== 'spec.version' &&
      !(kindRefused && c.field.startsWith('spec.names.') && c.field !== 'spec.names.kind'),
  );
  const kept = direct.length > 0 ? direct : causes.filter((c) => c.field === 'metadata.name');
  return kept.map((cause) => ({
    option: optionOf(cause.field),
    message: `${cause.field}: ${cause.message}`,
  }));
}

/** The option a CRD field comes from. */
function optionOf(field: string): string {
  if (field === 'spec.group' || field === 'metadata.name') return 'group';
  if (field.startsWith('spec.version')) return 'version';
  // The kind gives the CRD's names (plural, singular, list kind).
  return 'kind';
}
