import { builtinDefinitionsV2 } from './openapi-builtins.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { ageOf, containersAndImages, objectAt, stringAt } from './table-format.js';

/** One column of a `meta.k8s.io` Table, as kube-apiserver describes it. */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  /** 0: always shown; 1: shown by `kubectl get -o wide`. */
  readonly priority: number;
}

/** A row condition (pods that completed carry one). */
export interface RowCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** What a printer makes of one object: its cells, and conditions when it has any. */
export interface PrintedRow {
  cells: JsonValue[];
  conditions?: RowCondition[];
}

/** The columns of a resource and how to fill them from an object at a point in time. */
export interface Printer {
  readonly columns: readonly TableColumn[];
  row(obj: JsonObject, now: number): PrintedRow;
}

/** Column data: name, type, priority (0 unless given), and whether it is the object's name. */
export type ColumnSpec = readonly [
  name: string,
  type: string,
  description: string,
  priority?: 0 | 1,
];

const META = 'field:io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
/** The object's name, the first column of nearly every printer. */
export const NAME: ColumnSpec = ['Name', 'string', `${META}.name`];
/** The object's age. */
export const AGE: ColumnSpec = ['Age', 'string', `${META}.creationTimestamp`];

const FIELD_DESCRIPTION = /^field:(io\.k8s\.[\w.-]+)\.(\w+)$/;
const resolved = new Map<string, string>();

/**
 * A column's description: kube-apiserver describes most columns with the OpenAPI description of
 * the field they show, written `field:<definition>.<property>` here and looked up on first use
 * (the schemas are read only when needed); any other text is the description itself.
 */
function describeColumn(text: string): string {
  const reference = FIELD_DESCRIPTION.exec(text);
  if (!reference) return text;
  let description = resolved.get(text);
  if (description === undefined) {
    const [, definition, property] = reference as unknown as [string, string, string];
    const schema = builtinDefinitionsV2()[definition]?.properties;
    const field = isObject(schema) ? schema[property] : undefined;
    const found = isObject(field) ? field.description : undefined;
    if (typeof found !== 'string') throw new Error(`no OpenAPI description for ${text}`);
    description = found;
    resolved.set(text, description);
  }
  return description;
}

/** A column definition, its description looked up when it is first written out. */
export function tableColumn(
  name: string,
  type: string,
  format: string,
  description: string,
  priority: number,
): TableColumn {
  const column = { name, type, format } as TableColumn;
  // Enumerable, in kube-apiserver's key order, so JSON.stringify writes it in its place.
  Object.defineProperty(column, 'description', {
    enumerable: true,
    get: () => describeColumn(description),
  });
  return Object.assign(column, { priority });
}
/** A workload template's container names (`-o wide`). */
export const CONTAINERS: ColumnSpec = [
  'Containers',
  'string',
  'Names of the template’s containers.',
  1,
];
/** A workload template's images (`-o wide`). */
export const IMAGES: ColumnSpec = ['Images', 'string', 'Images of the template’s containers.', 1];
/** A workload's label selector (`-o wide`). */
export const SELECTOR: ColumnSpec = ['Selector', 'string', 'The label selector of the pods.', 1];

/**
 * Column data from text, one column a line: `name | type | description`, then `| wide` for a
 * column only `kubectl get -o wide` shows (priority 1).
 */
export function columnTable(text: string): ColumnSpec[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line): ColumnSpec => {
      const [name, type, description, wide, ...rest] = line.split('|').map((part) => part.trim());
      if (!name || !type || !description || rest.length > 0 || (wide ?? 'wide') !== 'wide') {
        throw new Error(
          `column line ${JSON.stringify(line)}: want "name | type | description", then "| wide" or nothing`,
        );
      }
      return wide ? [name, type, description, 1] : [name, type, description];
    });
}

/** Column definitions from column data; `Name` gets the `name` format. */
export function columns(...specs: ColumnSpec[]): TableColumn[] {
  return specs.map(([name, type, description, priority]) =>
    tableColumn(name, type, name === 'Name' ? 'name' : '', description, priority ?? 0),
  );
}

/** `metadata.name`. */
export function nameOf(obj: JsonObject): string {
  return stringAt(objectAt(obj, 'metadata'), 'name');
}

/** The Age cell: how long ago `metadata.creationTimestamp` was, at `now`. */
export function ageCell(obj: JsonObject, now: number): string {
  return ageOf(objectAt(obj, 'metadata').creationTimestamp, now);
}

/** What a printer shows after the name, up to the age, and after the age. */
export interface NamedPrinterOptions {
  /** The resource's own columns, as {@link columnTable} text. */
  columns: string;
  cells: (obj: JsonObject, now: number) => JsonValue[];
  /** Columns after Age (most at priority 1, shown by `-o wide`), as {@link columnTable} text. */
  afterAge?: string | readonly ColumnSpec[];
  afterAgeCells?: (obj: JsonObject, now: number) => JsonValue[];
  /** The name cell, when it is more than `metadata.name`. */
  name?: (obj: JsonObject) => string;
}

/** The common printer layout: Name, the resource's own columns, Age, then any after it. */
export function namedPrinter(options: NamedPrinterOptions): Printer {
  const name = options.name ?? nameOf;
  return {
    columns: columns(
      NAME,
      ...columnTable(options.columns),
      AGE,
      ...(typeof options.afterAge === 'string'
        ? columnTable(options.afterAge)
        : (options.afterAge ?? [])),
    ),
    row: (obj, now) => ({
      cells: [
        name(obj),
        ...options.cells(obj, now),
        ageCell(obj, now),
        ...(options.afterAgeCells?.(obj, now) ?? []),
      ],
    }),
  };
}

/**
 * The printer of a workload: Name, its own columns, Age, then at priority 1 its pod template's
 * containers and images and, when `selector` is given, its selector.
 */
export function workloadPrinter(options: {
  /** The workload's own columns, as {@link columnTable} text. */
  columns: string;
  cells: (obj: JsonObject, now: number) => JsonValue[];
  /** Where the pod template's spec is; default `spec.template.spec`. */
  podSpecPath?: string;
  selector?: (obj: JsonObject) => string;
}): Printer {
  const { selector } = options;
  return namedPrinter({
    columns: options.columns,
    cells: options.cells,
    afterAge: [CONTAINERS, IMAGES, ...(selector ? [SELECTOR] : [])],
    afterAgeCells: (obj) => [
      ...containersAndImages(objectAt(obj, options.podSpecPath ?? 'spec.template.spec')),
      ...(selector ? [selector(obj)] : []),
    ],
  });
}
