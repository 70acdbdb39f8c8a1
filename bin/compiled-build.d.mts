/** True when dist/ holds a build at least as new as every file under src/ (or there is no src/, as in an image). */
export function compiledBuildIsCurrent(root?: string): boolean;
