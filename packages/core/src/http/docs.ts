import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

/**
 * `GET /docs`: the API reference, Swagger UI rendering the service's own /openapi.json. Swagger
 * UI's files come from the swagger-ui-dist package installed with the service (no CDN: the page
 * works offline), and the page turns off everything that would call out (the validator badge).
 */
export function referenceDocs(title: string): Router {
  const assets = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(page(title));
  });
  router.use(
    '/docs/assets',
    express.static(assets, { index: false, immutable: true, maxAge: '1d', fallthrough: false }),
  );
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(INIT);
  });
  return router;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string): string {
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
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
}

// The document's `servers` name where the API usually runs; "Try it out" calls this server, the
// one the page came from, first.
const INIT = `fetch('/openapi.json')
  .then((answer) => answer.json())
  .then((spec) => {
    const here = window.location.origin;
    spec.servers = [{ url: here, description: 'this server' }].concat(
      (spec.servers || []).filter((server) => server.url !== here),
    );
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: '#reference',
      deepLinking: true,
      docExpansion: 'list',
      validatorUrl: null,
      tryItOutEnabled: true,
      persistAuthorization: false,
      displayRequestDuration: true,
    });
  });
`;
