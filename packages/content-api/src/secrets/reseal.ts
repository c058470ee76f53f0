import { type SecretBox, type Sequelize, exec, rows, transact } from '@muse/core';

/** Every table whose `secrets` column holds sealed values (one JSON object of name → value per row). */
const SECRET_TABLES = ['verification_code_providers', 'generators', 'payment_api'] as const;

/**
 * Seals every stored secret under the first key of MUSE_SECRETS_KEY: values sealed under an
 * older key and plain values from before encryption. One transaction per table, rows locked,
 * so a concurrent change is not lost. Answers how many values were resealed and how many were
 * already sealed under that key.
 */
export async function resealSecrets(
  db: Sequelize,
  box: SecretBox,
): Promise<{ resealed: number; current: number }> {
  let resealed = 0;
  let current = 0;
  for (const table of SECRET_TABLES) {
    // Counted per attempt and added once committed: transact may run the work again.
    const counted = await transact(db, async (transaction) => {
      const counts = { resealed: 0, current: 0 };
      const found = await rows<{ id: string; secrets: Record<string, unknown> }>(
        db,
        `SELECT id, secrets FROM content.${table} FOR UPDATE`,
        {},
        transaction,
      );
      for (const row of found) {
        const stale = Object.entries(row.secrets).filter(([, value]) => box.needsResealing(value));
        counts.current += Object.keys(row.secrets).length - stale.length;
        if (!stale.length) continue;
        const fresh = Object.fromEntries(stale.map(([name, value]) => [name, box.seal(box.open(value))]));
        await exec(
          db,
          `UPDATE content.${table} SET secrets = secrets || CAST(:fresh AS jsonb) WHERE id = :id`,
          { id: row.id, fresh: JSON.stringify(fresh) },
          transaction,
        );
        counts.resealed += stale.length;
      }
      return counts;
    });
    resealed += counted.resealed;
    current += counted.current;
  }
  return { resealed, current };
}
