import { parser } from '@prometheus-io/lezer-promql';

/**
 * The metric names a PromQL expression reads, found with Prometheus's own grammar
 * (@prometheus-io/lezer-promql): every vector selector's name, or its `__name__="…"` matcher.
 * Function names, label names, `by` clauses and strings are not metric names and are skipped.
 * A syntax error throws, so a broken query fails the test rather than reading as "no metrics".
 */
export function metricNames(expression: string): string[] {
  const text = withoutGrafanaVariables(expression);
  const tree = parser.parse(text);
  const names = new Set<string>();
  tree.iterate({
    enter(node) {
      if (node.type.isError) {
        throw new Error(
          `not PromQL at ${node.from}: ${text.slice(node.from, node.from + 40)} (in ${expression})`,
        );
      }
      if (node.name !== 'VectorSelector') return;
      const selector = node.node;
      const identifier = selector.getChild('Identifier');
      if (identifier) names.add(text.slice(identifier.from, identifier.to));
      const matchers = selector.getChild('LabelMatchers');
      for (let matcher = matchers?.firstChild; matcher; matcher = matcher.nextSibling) {
        const label = matcher.getChild('LabelName');
        const value = matcher.getChild('StringLiteral');
        if (label && value && text.slice(label.from, label.to) === '__name__')
          names.add(JSON.parse(text.slice(value.from, value.to).replace(/^'|'$/g, '"')) as string);
      }
    },
  });
  return [...names];
}

/** Grafana's interval variables stand where PromQL wants a duration; others sit inside strings. */
function withoutGrafanaVariables(expression: string): string {
  return expression.replace(
    /\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}/g,
    '5m',
  );
}

/** Grafana's `label_values(metric, label)` template query: the metric part is PromQL. */
export function templateQueryMetricNames(query: string): string[] {
  const match = /^\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$/s.exec(query);
  return match ? metricNames(match[1]!) : metricNames(query);
}

/** The sample names of a Prometheus text exposition (`name{labels} value`), comments skipped. */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[\s{]/.exec(line);
    if (match) names.add(match[1]!);
  }
  return names;
}

/** Every PromQL expression of a Grafana dashboard (panels, nested rows, template queries). */
export function dashboardQueries(dashboard: unknown): { where: string; expr: string; template?: boolean }[] {
  const found: { where: string; expr: string; template?: boolean }[] = [];
  const board = dashboard as {
    panels?: Panel[];
    templating?: { list?: { name: string; type: string; query?: string | { query?: string } }[] };
  };
  const visit = (panels: Panel[] = []) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? [])
        if (target.expr) found.push({ where: `panel "${panel.title}"`, expr: target.expr });
      visit(panel.panels);
    }
  };
  visit(board.panels);
  for (const variable of board.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    if (query) found.push({ where: `variable $${variable.name}`, expr: query, template: true });
  }
  return found;
}

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}
