import { describe, expect, it } from "vitest";

import { isStatusRead } from "./status-reads";

describe("isStatusRead", () => {
  it.each([
    ["GET", "/api/v1/actions/7c1d7e1e-5f4e-4d0a-9a53-2a8f1c9e3b11"],
    ["GET", "/api/v1/actions/7c1d7e1e-5f4e-4d0a-9a53-2a8f1c9e3b11?wait=1"],
    ["HEAD", "/api/v1/actions/some-promise"],
    ["GET", "/api/v1/actions/events"],
    ["GET", "/api/v1/actions/events?since=12"],
  ])("counts %s %s as a status read", (method, url) => {
    expect(isStatusRead(method, url)).toBe(true);
  });

  it.each([
    ["POST", "/api/v1/actions/some-promise"],
    ["GET", "/api/v1/actions"],
    ["GET", "/api/v1/actionsx/1"],
    ["GET", "/api/v1/tickets/t-1"],
    ["GET", "/api/v1/chain?next=/api/v1/actions/1"],
    ["POST", "/api/v1/sold"],
  ])("counts %s %s on the requests' budget", (method, url) => {
    expect(isStatusRead(method, url)).toBe(false);
  });
});
