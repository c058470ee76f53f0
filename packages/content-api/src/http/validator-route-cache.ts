import { createRequire } from 'node:module';

type PathToRegexp = (path: string, options?: { sensitive?: boolean; strict?: boolean }) => unknown;

/**
 * express-openapi-validator 5.6 compiles every documented route with path-to-regexp on every
 * request to find the one it answers (a fifth of a short request's CPU here). Compiling is
 * pure, so the compiled matcher of each (route, options) is kept and reused, as upstream's
 * cdimascio/express-openapi-validator#1217 does; drop this once a release includes it.
 * Only the path-to-regexp the validator itself loads is wrapped.
 */
export function cacheValidatorRouteMatchers(): void {
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const pathToRegexpModule = validatorRequire('path-to-regexp') as {
    pathToRegexp: PathToRegexp & { cached?: true };
  };
  const compile = pathToRegexpModule.pathToRegexp;
  if (compile.cached) return;
  const compiled = new Map<string, unknown>();
  const cached: PathToRegexp & { cached?: true } = (path, options = {}) => {
    if (typeof path !== 'string') return compile(path, options);
    const key = `${options.sensitive ? 's' : '-'}${options.strict ? 's' : '-'}${path}`;
    let matcher = compiled.get(key);
    if (!matcher) compiled.set(key, (matcher = compile(path, options)));
    return matcher;
  };
  cached.cached = true;
  pathToRegexpModule.pathToRegexp = cached;
}
