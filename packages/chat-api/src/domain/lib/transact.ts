// The transaction helper is core's (one for both APIs); chat-api's modules import it from here.
export { transact, beforeCommit, isRetryable, retrying } from '@muse/core';
