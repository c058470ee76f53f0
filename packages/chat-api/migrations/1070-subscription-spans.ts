import type { MigrationContext } from '@muse/core';

/**
 * A channel message writes nothing per recipient (issue 22). Who received it follows from
 * subscription spans: a span is one subscription period of a user to a channel, the message ids
 * `from_id` to `to_id` (NULL: still subscribed). Spans follow `chat.subscriptions` by trigger,
 * whoever writes it (actions, the server command, tests): a subscription that starts opens a
 * span at the next message id to be given out, one that ends closes it at the last one; so do
 * a user's deactivation and reactivation.
 *
 * `user_messages` keeps a row only where a user's flags differ from the default, and such a row
 * holds the whole set: every direct message's recipients, and for channel messages the mentioned,
 * a sender who did not read their own message, and whatever a user starred or marked. The default
 * for a channel message inside a span (`chat.default_flags`): `read` for its sender and at or
 * below the span's read watermark `read_through`, `wildcard_mentioned` when the message mentions
 * everyone (`messages.wildcard_mentioned`).
 *
 * The backfill keeps every user's history: each run of a channel's consecutive messages a user
 * has rows for becomes a span (open when it reaches the channel's last message and the user is
 * subscribed), every active subscription without one opens a span, each span's watermark is set
 * below its first unread message, and the rows that now equal the default are deleted.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE chat.subscription_spans (
      user_id integer NOT NULL,
      stream_id integer NOT NULL,
      from_id bigint NOT NULL,
      to_id bigint,
      read_through bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (user_id, stream_id, from_id)
    );
    CREATE INDEX subscription_spans_stream ON chat.subscription_spans (stream_id, from_id);
    ALTER TABLE chat.messages ADD COLUMN wildcard_mentioned boolean NOT NULL DEFAULT false;
    CREATE INDEX messages_stream ON chat.messages (stream_id, id) WHERE stream_id IS NOT NULL;

    CREATE FUNCTION chat.next_message_id() RETURNS bigint LANGUAGE sql VOLATILE AS $$
      SELECT COALESCE(pg_sequence_last_value('chat.messages_id_seq'), 0) + 1
    $$;

    CREATE FUNCTION chat.default_flags(reader integer, read_through bigint, message_id bigint,
      sender_id integer, wildcard boolean) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT array_remove(ARRAY[
        CASE WHEN sender_id = reader OR message_id <= read_through THEN 'read' END,
        CASE WHEN wildcard THEN 'wildcard_mentioned' END], NULL)
    $$;

    -- A user's flags on one message: their row, else the default inside a span, else NULL (not received).
    CREATE FUNCTION chat.message_flags(reader integer, message bigint) RETURNS text[] LANGUAGE sql STABLE AS $$
      SELECT COALESCE(
        (SELECT um.flags FROM chat.user_messages um WHERE um.user_id = reader AND um.message_id = message),
        (SELECT chat.default_flags(reader, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned)
         FROM chat.messages m JOIN chat.subscription_spans sp ON sp.user_id = reader
           AND sp.stream_id = m.stream_id AND sp.from_id <= m.id AND (sp.to_id IS NULL OR sp.to_id >= m.id)
         WHERE m.id = message LIMIT 1))
    $$;

    -- Everyone who has a message, with their flags.
    CREATE FUNCTION chat.message_holders(message bigint)
      RETURNS TABLE (user_id integer, flags text[]) LANGUAGE sql STABLE AS $$
      SELECT um.user_id, um.flags FROM chat.user_messages um WHERE um.message_id = message
      UNION ALL
      SELECT sp.user_id, chat.default_flags(sp.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned)
      FROM chat.messages m JOIN chat.subscription_spans sp ON sp.stream_id = m.stream_id
        AND sp.from_id <= m.id AND (sp.to_id IS NULL OR sp.to_id >= m.id)
      WHERE m.id = message AND NOT EXISTS (
        SELECT 1 FROM chat.user_messages um WHERE um.user_id = sp.user_id AND um.message_id = m.id)
    $$;
  `);
  await backfill(sequelize);
  await sequelize.query(`
    CREATE FUNCTION chat.follow_subscriptions() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next_id bigint := chat.next_message_id();
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO chat.subscription_spans (user_id, stream_id, from_id)
        SELECT n.user_id, n.stream_id, next_id FROM new_rows n WHERE n.active
        ON CONFLICT (user_id, stream_id, from_id) DO UPDATE SET to_id = NULL;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO chat.subscription_spans (user_id, stream_id, from_id)
        SELECT n.user_id, n.stream_id, next_id FROM new_rows n
          JOIN old_rows o ON o.user_id = n.user_id AND o.stream_id = n.stream_id
        WHERE n.active AND NOT o.active
        ON CONFLICT (user_id, stream_id, from_id) DO UPDATE SET to_id = NULL;
        DELETE FROM chat.subscription_spans sp USING old_rows o
          JOIN new_rows n ON n.user_id = o.user_id AND n.stream_id = o.stream_id
        WHERE o.active AND NOT n.active AND sp.user_id = o.user_id AND sp.stream_id = o.stream_id
          AND sp.to_id IS NULL AND sp.from_id >= next_id;
        UPDATE chat.subscription_spans sp SET to_id = next_id - 1 FROM old_rows o
          JOIN new_rows n ON n.user_id = o.user_id AND n.stream_id = o.stream_id
        WHERE o.active AND NOT n.active AND sp.user_id = o.user_id AND sp.stream_id = o.stream_id
          AND sp.to_id IS NULL;
      ELSE
        DELETE FROM chat.subscription_spans sp USING old_rows o
        WHERE o.active AND sp.user_id = o.user_id AND sp.stream_id = o.stream_id
          AND sp.to_id IS NULL AND sp.from_id >= next_id;
        UPDATE chat.subscription_spans sp SET to_id = next_id - 1 FROM old_rows o
        WHERE o.active AND sp.user_id = o.user_id AND sp.stream_id = o.stream_id AND sp.to_id IS NULL;
      END IF;
      RETURN NULL;
    END $$;
    -- A deactivated user receives nothing (as no flags rows were written for them): their spans
    -- close, and open again for their subscriptions when they are reactivated.
    CREATE FUNCTION chat.follow_user_activity() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next_id bigint := chat.next_message_id();
    BEGIN
      IF NEW.is_active THEN
        INSERT INTO chat.subscription_spans (user_id, stream_id, from_id)
        SELECT s.user_id, s.stream_id, next_id FROM chat.subscriptions s WHERE s.user_id = NEW.id AND s.active
        ON CONFLICT (user_id, stream_id, from_id) DO UPDATE SET to_id = NULL;
      ELSE
        DELETE FROM chat.subscription_spans
        WHERE user_id = NEW.id AND to_id IS NULL AND from_id >= next_id;
        UPDATE chat.subscription_spans SET to_id = next_id - 1 WHERE user_id = NEW.id AND to_id IS NULL;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER users_spans AFTER UPDATE OF is_active ON chat.users FOR EACH ROW
      WHEN (OLD.is_active IS DISTINCT FROM NEW.is_active) EXECUTE FUNCTION chat.follow_user_activity();
    CREATE TRIGGER subscriptions_spans_insert AFTER INSERT ON chat.subscriptions
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chat.follow_subscriptions();
    CREATE TRIGGER subscriptions_spans_update AFTER UPDATE ON chat.subscriptions
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
      EXECUTE FUNCTION chat.follow_subscriptions();
    CREATE TRIGGER subscriptions_spans_delete AFTER DELETE ON chat.subscriptions
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chat.follow_subscriptions();
  `);
}

async function backfill(sequelize: MigrationContext['sequelize']): Promise<void> {
  await sequelize.query(`
    INSERT INTO chat.subscription_spans (user_id, stream_id, from_id, to_id)
    WITH channel AS (
      SELECT id, stream_id, row_number() OVER (PARTITION BY stream_id ORDER BY id) AS n
      FROM chat.messages WHERE stream_id IS NOT NULL),
    received AS (
      SELECT um.user_id, c.stream_id, c.id,
        c.n - row_number() OVER (PARTITION BY um.user_id, c.stream_id ORDER BY c.id) AS run
      FROM chat.user_messages um JOIN channel c ON c.id = um.message_id),
    runs AS (
      SELECT user_id, stream_id, min(id) AS from_id, max(id) AS to_id FROM received
      GROUP BY user_id, stream_id, run),
    last AS (SELECT stream_id, max(id) AS id FROM channel GROUP BY stream_id)
    SELECT r.user_id, r.stream_id, r.from_id,
      CASE WHEN s.active AND u.is_active AND r.to_id = l.id THEN NULL ELSE r.to_id END
    FROM runs r JOIN last l ON l.stream_id = r.stream_id JOIN chat.users u ON u.id = r.user_id
    LEFT JOIN chat.subscriptions s ON s.user_id = r.user_id AND s.stream_id = r.stream_id;

    INSERT INTO chat.subscription_spans (user_id, stream_id, from_id)
    SELECT s.user_id, s.stream_id, chat.next_message_id() FROM chat.subscriptions s
    JOIN chat.users u ON u.id = s.user_id AND u.is_active
    WHERE s.active AND NOT EXISTS (SELECT 1 FROM chat.subscription_spans sp
      WHERE sp.user_id = s.user_id AND sp.stream_id = s.stream_id AND sp.to_id IS NULL);

    UPDATE chat.subscription_spans sp SET read_through = COALESCE(
      (SELECT min(um.message_id) - 1 FROM chat.user_messages um JOIN chat.messages m ON m.id = um.message_id
       WHERE um.user_id = sp.user_id AND m.stream_id = sp.stream_id AND um.message_id >= sp.from_id
         AND (sp.to_id IS NULL OR um.message_id <= sp.to_id) AND NOT ('read' = ANY (um.flags))),
      sp.to_id,
      (SELECT max(m.id) FROM chat.messages m WHERE m.stream_id = sp.stream_id),
      0);

    DELETE FROM chat.user_messages um USING chat.messages m, chat.subscription_spans sp
    WHERE m.id = um.message_id AND sp.user_id = um.user_id AND sp.stream_id = m.stream_id
      AND um.message_id >= sp.from_id AND (sp.to_id IS NULL OR um.message_id <= sp.to_id)
      AND um.flags = chat.default_flags(um.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  // Back to a row per recipient: every span's messages without a row get their default flags.
  await sequelize.query(`
    INSERT INTO chat.user_messages (user_id, message_id, flags)
    SELECT sp.user_id, m.id, chat.default_flags(sp.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned)
    FROM chat.subscription_spans sp JOIN chat.messages m ON m.stream_id = sp.stream_id
      AND m.id >= sp.from_id AND (sp.to_id IS NULL OR m.id <= sp.to_id)
    ON CONFLICT (user_id, message_id) DO NOTHING;
    DROP TRIGGER subscriptions_spans_insert ON chat.subscriptions;
    DROP TRIGGER subscriptions_spans_update ON chat.subscriptions;
    DROP TRIGGER subscriptions_spans_delete ON chat.subscriptions;
    DROP TRIGGER users_spans ON chat.users;
    DROP FUNCTION chat.follow_user_activity();
    DROP FUNCTION chat.follow_subscriptions();
    DROP FUNCTION chat.message_holders(bigint);
    DROP FUNCTION chat.message_flags(integer, bigint);
    DROP FUNCTION chat.default_flags(integer, bigint, bigint, integer, boolean);
    DROP FUNCTION chat.next_message_id();
    DROP INDEX chat.messages_stream;
    ALTER TABLE chat.messages DROP COLUMN wildcard_mentioned;
    DROP TABLE chat.subscription_spans;
  `);
}
