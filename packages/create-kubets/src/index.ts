/**
 * `npm create kubets`: writes a new Kubernetes operator project on kubets. The command is
 * `create-kubets`; {@link createProject} does the same from code.
 * @packageDocumentation
 */
export {
  defaultOptions,
  ScaffoldError,
  type ScaffoldNames,
  type ScaffoldOptions,
  type ScaffoldProblem,
  scaffoldNames,
} from './names.js';
export { type CreateProjectOptions, createProject, projectFiles } from './project.js';
export type { ProjectFile } from './templates.js';
