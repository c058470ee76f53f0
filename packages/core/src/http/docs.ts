import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

const packageDir = (name: string) =>
  path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
const assetOptions = { index: false, immutable: true, maxAge: '1d', fallthrough: false };

/**
 * `GET /docs`: the API reference, Swagger UI rendering the service's own /openapi.json. Swagger
 * UI's files come from the swagger-ui-dist package installed with the service (no CDN: the page
 * works offline), and the page turns off everything that would call out (the validator badge).
 * A service with an AsyncAPI document (`asyncapi`: where it is served) also gets
 * `GET /docs/asyncapi`, AsyncAPI's own React renderer (@asyncapi/react-component's standalone
 * bundle, from the package too), linked from the top of /docs.
 */
export function referenceDocs(title: string, options: { asyncapi?: string } = {}): Router {
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(page(title, options.asyncapi !== undefined));
  });
  router.use('/docs/assets', express.static(packageDir('swagger-ui-dist'), assetOptions));
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(INIT);
  });
  if (options.asyncapi !== undefined) {
    const renderer = packageDir('@asyncapi/react-component');
    router.get('/docs/asyncapi', (_req, res) => {
      res.type('html').send(asyncapiPage(title));
    });
    router.use('/docs/asyncapi-assets/browser', express.static(path.join(renderer, 'browser'), assetOptions));
    router.use('/docs/asyncapi-assets/styles', express.static(path.join(renderer, 'styles'), assetOptions));
    router.get('/docs/asyncapi-init.js', (_req, res) => {
      res.type('js').send(asyncapiInit(options.asyncapi!));
    });
  }
  return router;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const ASYNCAPI_LINK = `<p style="font-family: sans-serif; margin: 12px 20px">
The conversation sockets (WebSocket frames) are described by an AsyncAPI document:
<a id="asyncapi-link" href="/docs/asyncapi">AsyncAPI reference</a>.</p>`;

function page(title: string, asyncapi: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
${asyncapi ? ASYNCAPI_LINK : ''}
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
}

// The documents' `servers` are relative (`/`), so "Try it out" calls the server the page came
// from, whatever its address. The filter box searches the operations by tag; tags are listed by
// name, the operators' probes and documents (operations) last, after what developers came for.
//
// Form bodies (urlencoded, multipart): Swagger UI fills every field with a sample made up from its
// schema ("string", 0, {"new":0}, or a `default: ''` over the example) and ticks "Send empty
// value" on every optional one, so "Try it out" would send them all, and the example of the
// operation is not used. The plugin below wraps the form (RequestBody) to start it from the
// example instead: the example's fields hold its values, the other optional fields start empty
// and unsent until the reader fills them (or ticks the box). Values take the shapes Swagger UI's
// own form fields hold: text, JSON text for objects, a list for arrays. JSON bodies already start
// from the operation's example (Swagger UI's own editor does that).
const INIT = `const FORM_BODY = /^(application\\/x-www-form-urlencoded|multipart\\/)/;

function formFieldValue(value) {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function exampleOf(media) {
  const example = media.has('example') ? media.get('example') : media.get('examples')?.first()?.get('value');
  return example && example.toJS ? example.toJS() : example;
}

const FormsFromExamples = (system) => ({
  wrapComponents: {
    RequestBody: (Original) => (props) => {
      const { Im, React } = system;
      const content = props.requestBody?.get('content');
      const contentType = props.contentType || content?.keySeq().first() || '';
      const media = FORM_BODY.test(contentType) ? content.get(contentType) : undefined;
      const properties = media?.getIn(['schema', 'properties']);
      if (!Im.Map.isMap(properties)) return React.createElement(Original, props);
      const example = exampleOf(media);
      const fields = example !== null && typeof example === 'object' ? example : {};
      const required = media.getIn(['schema', 'required']) || Im.List();
      let start = Im.OrderedMap();
      let unsent = Im.Map();
      for (const key of properties.keys()) {
        if (!required.includes(key)) unsent = unsent.set(key, false);
        if (key in fields) start = start.setIn([key, 'value'], formFieldValue(fields[key]));
        else if (!required.includes(key)) start = start.setIn([key, 'value'], '');
      }
      // What the reader typed or ticked (the store) wins over the starting values.
      const typed = Im.Map.isMap(props.requestBodyValue) ? props.requestBodyValue : Im.Map();
      return React.createElement(Original, {
        ...props,
        requestBodyValue: start.merge(typed),
        requestBodyInclusionSetting: unsent.merge(props.requestBodyInclusionSetting || Im.Map()),
      });
    },
  },
});

window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  plugins: [FormsFromExamples],
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  filter: true,
  tagsSorter: (a, b) => (a === 'operations') - (b === 'operations') || a.localeCompare(b),
  validatorUrl: null,
  tryItOutEnabled: true,
  persistAuthorization: false,
  displayRequestDuration: true,
});
`;

function asyncapiPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title.replace(/API reference$/, 'AsyncAPI reference'))}</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/asyncapi-assets/styles/default.min.css">
</head>
<body>
<p style="font-family: sans-serif; margin: 12px 20px"><a href="/docs">OpenAPI reference</a></p>
<div id="asyncapi"></div>
<script src="/docs/asyncapi-assets/browser/standalone/index.js"></script>
<script src="/docs/asyncapi-init.js"></script>
</body>
</html>
`;
}

/**
 * The document is fetched, then handed over whole: the renderer makes no request of its own.
 * AsyncAPI servers need a host, so the page shows the one it was served from (ws, or wss under https).
 */
function asyncapiInit(documentPath: string): string {
  return `fetch(${JSON.stringify(documentPath)})
  .then((answer) => answer.json())
  .then((asyncapi) => {
    // Not named \`document\`: that would hide the page's own, which the render call below needs.
    for (const server of Object.values(asyncapi.servers || {})) {
      server.host = window.location.host;
      if (server.protocol === 'ws' && window.location.protocol === 'https:') server.protocol = 'wss';
    }
    const schema = JSON.stringify(asyncapi);
    AsyncApiStandalone.render(
      { schema, config: { show: { sidebar: true, errors: true }, expand: { messageExamples: true } } },
      document.getElementById('asyncapi'),
    );
  });
`;
}
