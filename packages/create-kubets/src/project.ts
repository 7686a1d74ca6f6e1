import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  ScaffoldError,
  type ScaffoldOptions,
  type ScaffoldProblem,
  scaffoldNames,
} from './names.js';
import { type ProjectFile, renderProject } from './templates.js';
import { ownVersion } from './version.js';

/** Options of {@link createProject}: the project's names and the version of its `@kubets` packages. */
export interface CreateProjectOptions extends Omit<ScaffoldOptions, 'name'> {
  /** The project's name; default the target folder's name. */
  name?: string | undefined;
  /**
   * The version of the `@kubets` packages the project depends on (`^version`); default this
   * package's own, since create-kubets is released with them.
   */
  kubetsVersion?: string | undefined;
}

/**
 * The files of a new project, rendered in memory: nothing is written.
 *
 * @throws {ScaffoldError} for a name, group, kind or version that cannot be used, naming the rule.
 */
export function projectFiles(
  options: ScaffoldOptions & { kubetsVersion?: string | undefined },
): ProjectFile[] {
  return renderProject(scaffoldNames(options), options.kubetsVersion ?? ownVersion());
}

/**
 * Writes a new operator project into `directory` (created if missing) and resolves with the
 * paths written, relative to it. Every check comes first: invalid names, or a `directory` that
 * exists and is not an empty folder, reject with one {@link ScaffoldError} listing them all,
 * before anything is written.
 */
export async function createProject(
  directory: string,
  options: CreateProjectOptions = {},
): Promise<string[]> {
  const target = path.resolve(directory);
  const { kubetsVersion, ...names } = options;
  // Every problem in one error: the names' and the folder's.
  const problems: ScaffoldProblem[] = [];
  let files: ProjectFile[] = [];
  try {
    files = projectFiles({ ...names, name: options.name ?? path.basename(target), kubetsVersion });
  } catch (err) {
    if (!(err instanceof ScaffoldError)) throw err;
    problems.push(...err.problems);
  }
  problems.push(...(await folderProblems(target)));
  if (problems.length > 0) throw new ScaffoldError(problems);
  for (const file of files) {
    const where = path.join(target, ...file.path.split('/'));
    await mkdir(path.dirname(where), { recursive: true });
    await writeFile(where, file.content, { flag: 'wx' });
  }
  return files.map((f) => f.path);
}

/** What keeps `target` from holding a new project: being a file, or a folder with anything in it. */
async function folderProblems(target: string): Promise<ScaffoldProblem[]> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(target)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  if (!isFolder) return [{ option: 'directory', message: `${target} exists and is not a folder` }];
  const entries = (await readdir(target)).sort();
  if (entries.length === 0) return [];
  const shown = entries.slice(0, 5).join(', ');
  const more = entries.length > 5 ? `, and ${entries.length - 5} more` : '';
  return [
    {
      option: 'directory',
      message: `${target} exists and is not empty (${shown}${more}): choose a new folder or empty this one`,
    },
  ];
}
