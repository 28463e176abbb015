import { describe, expect, it } from "vitest";

import { matchRoute, statusClass, UNMATCHED_ROUTE } from "./route-label";

const routes = [
  { pattern: "/api/v1/tickets/:ticketId", methods: new Set(["get"]) },
  { pattern: "/api/v1/sold", methods: new Set(["post"]) },
  { pattern: "/stream", methods: new Set(["post"]) },
  { pattern: "/api/v1/callbacks/:callbackId/redeliver", methods: new Set(["post"]) },
];

describe("matchRoute", () => {
  it("labels a path with its route's pattern, never with the ids in it", () => {
    expect(matchRoute(routes, "GET", "/api/v1/tickets/t-8f3a")).toBe("/api/v1/tickets/:ticketId");
    expect(matchRoute(routes, "POST", "/api/v1/callbacks/0190aa/redeliver?now=1")).toBe("/api/v1/callbacks/:callbackId/redeliver");
  });

  it("matches as the router does: trailing slash, letter case, query", () => {
    expect(matchRoute(routes, "POST", "/Stream/")).toBe("/stream");
    expect(matchRoute(routes, "POST", "/api/v1/sold?x=1")).toBe("/api/v1/sold");
    expect(matchRoute(routes, "HEAD", "/api/v1/tickets/t1")).toBe("/api/v1/tickets/:ticketId");
  });

  it("answers one fixed label for anything no route takes", () => {
    expect(matchRoute(routes, "GET", "/api/v1/sold")).toBe(UNMATCHED_ROUTE);
    expect(matchRoute(routes, "GET", "/api/v1/tickets")).toBe(UNMATCHED_ROUTE);
    expect(matchRoute(routes, "GET", "/api/v1/tickets/t1/extra")).toBe(UNMATCHED_ROUTE);
    expect(matchRoute(routes, "GET", "/wp-login.php")).toBe(UNMATCHED_ROUTE);
  });
});

describe("statusClass", () => {
  it("keeps the first digit", () => {
    expect([200, 204, 302, 403, 413, 429, 500, 503].map(statusClass)).toEqual(["2xx", "2xx", "3xx", "4xx", "4xx", "4xx", "5xx", "5xx"]);
  });
});
