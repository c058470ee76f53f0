import { describe, expect, it } from 'vitest';
import { dashboardQueries, exposedNames, metricNames, templateQueryMetricNames } from './support/promql.ts';

describe('metric names read from PromQL (the dashboard and alert check relies on these)', () => {
  it('finds each selector and nothing else: not functions, labels, by clauses or strings', () => {
    expect(
      metricNames(
        'sum by (service, status) (rate(http_request_duration_seconds_count{status=~"5..", route!="rate"}[5m]))' +
          ' / on (service) group_left max(up offset 1h) > 0.05',
      ).sort(),
    ).toEqual(['http_request_duration_seconds_count', 'up']);
  });

  it('reads histogram_quantile, subqueries, `or` branches and __name__ matchers', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(a_bucket[5m]))) or max_over_time(b[1h:5m]) or {__name__="c"}',
      ).sort(),
    ).toEqual(['a_bucket', 'b', 'c']);
  });

  it("turns Grafana's interval variables into durations and keeps $variables inside strings", () => {
    expect(metricNames('rate(x_total{service=~"$service"}[$__rate_interval])')).toEqual(['x_total']);
    expect(templateQueryMetricNames('label_values(http_requests_total, service)')).toEqual([
      'http_requests_total',
    ]);
  });

  it('throws on a query that is not PromQL instead of finding no metric', () => {
    expect(() => metricNames('sum(rate(x[5m])')).toThrow(/not PromQL/);
  });

  it('lists the sample names of an exposition, comments aside', () => {
    const names = exposedNames(
      '# HELP a_total A\n# TYPE a_total counter\na_total{service="x"} 3\nb_bucket{le="1"} 1\nc 0\n',
    );
    expect([...names].sort()).toEqual(['a_total', 'b_bucket', 'c']);
  });

  it("collects the targets of nested rows and the dashboard's query variables", () => {
    const queries = dashboardQueries({
      panels: [{ title: 'row', panels: [{ title: 'inner', targets: [{ expr: 'up' }] }] }],
      templating: { list: [{ name: 's', type: 'query', query: { query: 'label_values(up, job)' } }] },
    });
    expect(queries.map((query) => query.expr)).toEqual(['up', 'label_values(up, job)']);
  });
});
