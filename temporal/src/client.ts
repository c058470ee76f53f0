import { Client, Connection } from '@temporalio/client';

/** A lazily connecting client: API processes start (and answer /readyz with 503) before Temporal is up. */
export function createTemporalClient(address: string, namespace: string): Client {
  return new Client({ connection: Connection.lazy({ address }), namespace });
}
