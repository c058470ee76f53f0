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
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
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
