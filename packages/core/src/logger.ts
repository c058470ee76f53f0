import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';

export type { Logger };

/** JSON lines in production (for log shippers); readable, coloured lines in development. */
export function createLogger(config: Pick<Config, 'NODE_ENV' | 'LOG_LEVEL'>, name = 'muse'): Logger {
  const pretty = config.NODE_ENV === 'development' && process.stdout.isTTY;
  return pino({
    name,
    level: config.LOG_LEVEL,
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss' } } } : {}),
  });
}
