import type { MigrationContext } from '@muse/core';

/**
 * Open sockets follow every change that can make the REST read of a conversation refuse,
 * whichever code path (REST, administrator, bootstrap, operator, SQL) makes it. The database
 * announces them when the change commits, through the event bus (LISTEN/NOTIFY), in commit order
 * with the conversation's messages:
 * - a conversation whose visibility or owner changed, or that was deleted, on its own channel
 *   `conversation:<id>` as `{"type": "access.changed"}`;
 * - an account banned or re-enabled, made or unmade administrator, whose permissions changed, or
 *   deleted, on `muse_account_access` as `{"user_id": …}`.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE FUNCTION content.announce_conversation_access() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('conversation:' || OLD.id,
        json_build_object('type', 'access.changed', 'conversation_id', OLD.id)::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER conversation_access_changed AFTER UPDATE OF visibility, owner_id ON content.conversations
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)
      EXECUTE FUNCTION content.announce_conversation_access();
    CREATE TRIGGER conversation_deleted AFTER DELETE ON content.conversations
      FOR EACH ROW EXECUTE FUNCTION content.announce_conversation_access();

    CREATE FUNCTION content.announce_account_access() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('muse_account_access', json_build_object('user_id', OLD.id)::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER account_access_changed
      AFTER UPDATE OF is_active, is_admin, permissions_granted, permissions_revoked ON content.users
      FOR EACH ROW WHEN (
        OLD.is_active IS DISTINCT FROM NEW.is_active OR OLD.is_admin IS DISTINCT FROM NEW.is_admin
        OR OLD.permissions_granted IS DISTINCT FROM NEW.permissions_granted
        OR OLD.permissions_revoked IS DISTINCT FROM NEW.permissions_revoked)
      EXECUTE FUNCTION content.announce_account_access();
    CREATE TRIGGER account_deleted AFTER DELETE ON content.users
      FOR EACH ROW EXECUTE FUNCTION content.announce_account_access();
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TRIGGER account_deleted ON content.users;
    DROP TRIGGER account_access_changed ON content.users;
    DROP FUNCTION content.announce_account_access();
    DROP TRIGGER conversation_deleted ON content.conversations;
    DROP TRIGGER conversation_access_changed ON content.conversations;
    DROP FUNCTION content.announce_conversation_access();
  `);
}
