import type { Logger, Sequelize } from '@muse/core';

/** What activities reach the outside world through; tests pass their own. */
export interface ActivityDeps {
  db: Sequelize;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    async databaseTime(): Promise<string> {
      const [rows] = await deps.db.query('SELECT now() AS now');
      return new Date((rows as { now: Date }[])[0]!.now).toISOString();
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
