// Starts GraphiQL in the page's #graphiql element. Ours, not vendored: a file rather than an
// inline script, so the page runs under `script-src 'self'`. The endpoint comes from the
// element's data-endpoint (graphql/playground.py writes it), so this file is the same for
// every CONTENTAPI_GRAPHQL_ENDPOINT.
(function () {
  "use strict";
  var root = document.getElementById("graphiql");
  var fetcher = GraphiQL.createFetcher({ url: root.dataset.endpoint });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultEditorToolsVisibility: true })
  );
})();
