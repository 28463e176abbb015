import { describe, expect, it } from "vitest";

import { connectionBaseUrl as sut } from "./public-urls";

describe("connectionBaseUrl", () => {
  it("is the connection's own address and port, with https where the connection is TLS", () => {
    expect(sut({ encrypted: false, localAddress: "127.0.0.1", localPort: 3000 })).toBe("http://127.0.0.1:3000");
    expect(sut({ encrypted: true, localAddress: "10.1.2.3", localPort: 8443 })).toBe("https://10.1.2.3:8443");
  });

  it("writes an IPv4 address of a dual-stack socket as IPv4, and IPv6 in brackets", () => {
    expect(sut({ encrypted: false, localAddress: "::ffff:127.0.0.1", localPort: 3000 })).toBe("http://127.0.0.1:3000");
    expect(sut({ encrypted: false, localAddress: "::1", localPort: 3000 })).toBe("http://[::1]:3000");
    expect(sut({ encrypted: false, localAddress: "fe80::1", localPort: 80 })).toBe("http://[fe80::1]:80");
  });
});
