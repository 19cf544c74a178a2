// A GraphQL subscriptions client made of the `graphql-ws` library itself (what Apollo
// Client's GraphQLWsLink and urql run), driven by tests/support/graphql_ws.py.
//
//   node graphql_ws_client.cjs <ws url> <connection params as JSON>
//
// Reads one JSON line per subscription on stdin ({id, query, variables}) and writes one JSON
// line per thing the library reports: {type: "connected"}, {id, type: "next", payload},
// {id, type: "error", payload}, {id, type: "complete"}, {type: "closed", code, reason}.
// Ends when stdin closes.
const { createClient } = require("graphql-ws");
const WebSocket = require("ws");
const readline = require("readline");

const [url, params] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  connectionParams: JSON.parse(params),
  lazy: false,
  retryAttempts: 0,
  on: {
    connected: () => say({ type: "connected" }),
    closed: (event) => say({ type: "closed", code: event.code, reason: event.reason }),
  },
});

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const { id, query, variables } = JSON.parse(line);
  client.subscribe(
    { query, variables },
    {
      next: (payload) => say({ id, type: "next", payload }),
      error: (payload) => say({ id, type: "error", payload }),
      complete: () => say({ id, type: "complete" }),
    },
  );
});
lines.on("close", async () => {
  await client.dispose();
  process.exit(0);
});
