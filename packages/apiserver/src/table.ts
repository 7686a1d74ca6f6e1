import type { Entry } from './object-entry.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import type { ResourceDefinition } from './resources.js';
import { ApiError, failure } from './status.js';
import type { PrintedRow, Printer, TableColumn } from './table-columns.js';
import { ageOf } from './table-format.js';
import { builtinPrinters, defaultPrinter } from './table-printers.js';
import { groupPrinters } from './table-printers-groups.js';

/** The Table versions kube-apiserver 1.20 serves (`meta.k8s.io`). */
export type TableVersion = 'v1' | 'v1beta1';

/**
 * Reads an Accept header the way kube-apiserver negotiates it: the first media range it can
 * serve wins. Answers the Table version when that is a `as=Table` range, undefined when it is
 * anything else; throws 406 when every range asks for a Table version it does not serve.
 */
export function negotiateTable(accept: string | undefined): TableVersion | undefined {
  if (accept === undefined || accept.trim() === '') return undefined;
  let askedForTable = false;
  for (const range of accept.split(',')) {
    const [type = '', ...parameterTexts] = range.split(';').map((part) => part.trim());
    const parameters = new Map(
      parameterTexts.map((p) => {
        const at = p.indexOf('=');
        return [p.slice(0, at).trim(), p.slice(at + 1).trim()] as const;
      }),
    );
    const as = parameters.get('as');
    if (as !== 'Table') {
      if (servable(type)) return undefined;
      continue;
    }
    askedForTable = true;
    const version = parameters.get('v');
    if (
      parameters.get('g') === 'meta.k8s.io' &&
      (version === 'v1' || version === 'v1beta1') &&
      (type === 'application/json' || type === '*/*')
    ) {
      return version;
    }
  }
  if (!askedForTable) return undefined;
  throw new ApiError(
    failure(
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    ),
  );
}

function servable(type: string): boolean {
  return (
    type === 'application/json' ||
    type === 'application/yaml' ||
    type === 'application/vnd.kubernetes.protobuf' ||
    type === 'application/*' ||
    type === '*/*'
  );
}

/** What a Table row's `object` holds: `includeObject=Metadata` (default), `Object` or `None`. */
export type IncludeObject = 'Metadata' | 'Object' | 'None';

/** Parses `includeObject`; 400 for other values, as kube-apiserver answers. */
export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'Object' || value === 'None') return value;
  throw new ApiError(
    failure(
      400,
      'BadRequest',
      `includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`,
    ),
  );
}

/**
 * The printer of a resource: the built-in one, or for a custom resource the CRD version's
 * `additionalPrinterColumns` after the name (an Age column when it declares none).
 */
export function printerFor(
  definition: ResourceDefinition,
  crdVersion: JsonObject | undefined,
): Printer {
  if (!definition.custom) {
    const key = `${definition.group}/${definition.resource}`;
    return builtinPrinters[key] ?? groupPrinters[key] ?? defaultPrinter;
  }
  const declared = Array.isArray(crdVersion?.additionalPrinterColumns)
    ? crdVersion.additionalPrinterColumns.filter(isObject)
    : [];
  const specs =
    declared.length > 0
      ? declared
      : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  const custom = specs.map((spec) => {
    const jsonPath = String(spec.jsonPath ?? spec.JSONPath ?? '');
    const column: TableColumn = {
      name: String(spec.name ?? ''),
      type: String(spec.type ?? 'string'),
      format: typeof spec.format === 'string' ? spec.format : '',
      description:
        typeof spec.description === 'string' && spec.description !== ''
          ? spec.description
          : `Custom resource definition column (in JSONPath format): ${jsonPath}`,
      priority: typeof spec.priority === 'number' ? spec.priority : 0,
    };
    return { column, path: parseSimpleJsonPath(jsonPath) };
  });
  return {
    columns: [defaultPrinter.columns[0] as TableColumn, ...custom.map((c) => c.column)],
    row: (obj, now) => ({
      cells: [
        (isObject(obj.metadata) ? obj.metadata.name : null) ?? null,
        ...custom.map(({ column, path }) => columnCell(column.type, valueAt(obj, path), now)),
      ],
    }),
  };
}

/** `.spec.replicas`, `.status.conditions[0].type`: the JSONPath subset CRD columns use. */
function parseSimpleJsonPath(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  const text = path.replace(/^\{|\}$/g, '');
  for (const match of text.matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']+)'\]/g)) {
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else if (match[3] !== undefined) steps.push(match[3]);
  }
  return steps;
}

function valueAt(obj: JsonObject, path: readonly (string | number)[]): JsonValue | undefined {
  let at: JsonValue | undefined = obj;
  for (const step of path) {
    if (typeof step === 'number') at = Array.isArray(at) ? at[step] : undefined;
    else at = isObject(at) ? at[step] : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

/** A CRD column's cell: the value when it has the column's type (dates become ages), else null. */
function columnCell(type: string, value: JsonValue | undefined, now: number): JsonValue {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      return typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : ageOf(value, now);
    default:
      return null;
  }
}

/** List metadata a Table carries over from the list it renders. */
export interface TableListMeta {
  resourceVersion: string;
  continue?: string | undefined;
  remainingItemCount?: number | undefined;
}

/**
 * A `meta.k8s.io` Table of entries. `render` gives an entry's full JSON at the requested
 * apiVersion, for `includeObject=Object`.
 */
export function buildTable(
  printer: Printer,
  entries: readonly Entry[],
  options: {
    version: TableVersion;
    include: IncludeObject;
    meta: TableListMeta;
    now: number;
    render: (entry: Entry) => string;
  },
): string {
  const apiVersion = `meta.k8s.io/${options.version}`;
  const metadata: JsonObject = { resourceVersion: options.meta.resourceVersion };
  if (options.meta.continue) metadata.continue = options.meta.continue;
  if (options.meta.remainingItemCount !== undefined)
    metadata.remainingItemCount = options.meta.remainingItemCount;
  const rows = entries.map((entry) => {
    const printed: PrintedRow = printer.row(entry.obj, options.now);
    const object =
      options.include === 'None'
        ? 'null'
        : options.include === 'Object'
          ? options.render(entry)
          : JSON.stringify({
              kind: 'PartialObjectMetadata',
              apiVersion,
              metadata: entry.obj.metadata ?? {},
            });
    const conditions = printed.conditions
      ? `,"conditions":${JSON.stringify(printed.conditions)}`
      : '';
    return `{"cells":${JSON.stringify(printed.cells)}${conditions},"object":${object}}`;
  });
  return `{"kind":"Table","apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"columnDefinitions":${JSON.stringify(printer.columns)},"rows":[${rows.join(',')}]}`;
}

/**
 * Renders watch events' objects as Tables of one row, as kube-apiserver does for
 * `kubectl get -w`: the first carries the column definitions, the later ones `null`.
 */
export function tableEventRenderer(
  printer: Printer,
  options: {
    version: TableVersion;
    include: IncludeObject;
    now: () => number;
    render: (entry: Entry) => string;
  },
): (entry: Entry) => string {
  let first = true;
  return (entry) => {
    const meta = { resourceVersion: String(entry.rv) };
    const table = buildTable(printer, [entry], { ...options, meta, now: options.now() });
    if (first) {
      first = false;
      return table;
    }
    return table.replace(
      `"columnDefinitions":${JSON.stringify(printer.columns)}`,
      '"columnDefinitions":null',
    );
  };
}
