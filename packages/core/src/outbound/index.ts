export * from './address-policy.ts';
export * from './errors.ts';
export * from './fetch.ts';
export * from './http2.ts';
