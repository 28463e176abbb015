import { describe, expect, it } from "vitest";

import { undecodableIn } from "./undecodable-path";

const split = (path: string) => path.split("/").filter(Boolean);

describe("undecodableIn", () => {
  it("names the parameter whose segment does not decode, when the path fits the pattern", () => {
    expect(undecodableIn(split("/api/v1/tickets/:ticketId"), split("/api/v1/tickets/a%ffb"))).toBe("ticketId");
    expect(undecodableIn(split("/api/v1/callbacks/:callbackId/redeliver"), split("/API/v1/callbacks/%E0%A4%A/redeliver"))).toBe("callbackId");
    expect(undecodableIn(split("/verify/tokens/:tokenId"), split("/verify/tokens/%ED%A0%80"))).toBe("tokenId");
  });

  it("is null for a path of another pattern, or one whose parameters all decode", () => {
    expect(undecodableIn(split("/api/v1/events/:eventId"), split("/api/v1/tickets/%ff"))).toBeNull();
    expect(undecodableIn(split("/api/v1/tickets/:ticketId"), split("/api/v1/tickets/%ff/more"))).toBeNull();
    expect(undecodableIn(split("/api/v1/tickets/:ticketId"), split("/api/v1/tickets/a%20b"))).toBeNull();
  });
});
