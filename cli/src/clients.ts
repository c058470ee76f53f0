import { CliError } from './errors.ts';
import type { Factory } from './factory.ts';
import type { ErrorMapper } from './report.ts';

/** A request that never reached a server: name the address and how to change it. */
function unreachable(error: unknown): CliError | undefined {
  if (!(error instanceof TypeError) || !/fetch failed/.test(error.message)) return undefined;
  const cause = (
    error as TypeError & { cause?: { code?: string; message?: string; address?: string; port?: number } }
  ).cause;
  const where = cause?.address ? ` ${cause.address}${cause.port ? `:${cause.port}` : ''}` : '';
  return new CliError(
    `cannot reach the server${where} (${cause?.code ?? cause?.message ?? 'network error'})`,
    {
      code: 'unreachable',
      hint: 'check the address with muse auth status, or set it with muse auth login --content-url/--chat-url',
    },
  );
}

export function apiErrorMappers(_f: Factory): ErrorMapper[] {
  return [unreachable];
}
