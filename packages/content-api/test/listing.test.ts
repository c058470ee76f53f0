import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../src/listing/listing.ts';

describe('parseListQuery', () => {
  it('applies the defaults', () => {
    expect(parseListQuery({})).toEqual({ scope: 'own', offset: 0, limit: 50, desc: true, order: 'created_at' });
  });

  it.each([
    ['limit', '0'],
    ['limit', '-1'],
    ['limit', '101'],
    ['limit', 'ten'],
    ['offset', '-1'],
    ['order', 'name'],
    ['desc', 'maybe'],
    ['scope', 'everyone'],
    ['created_after_datetime', 'yesterday'],
    ['updated_before_datetime', '2026-13-45T00:00:00Z'],
  ])('rejects %s=%s with 422 naming it', (name, value) => {
    try {
      parseListQuery({ [name]: value });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ status: 422, details: [{ path: name }] });
    }
  });

  it('reads every parameter', () => {
    const query = parseListQuery({
      scope: 'public',
      offset: '10',
      limit: '100',
      desc: 'false',
      order: 'updated_at',
      created_after_datetime: '2026-01-01T00:00:00Z',
    });
    expect(query).toMatchObject({ scope: 'public', offset: 10, limit: 100, desc: false, order: 'updated_at' });
    expect(query.createdAfter?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});
