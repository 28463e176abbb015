import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { parseHosts, readHostsFile } from "./hosts-file";

describe("parseHosts", () => {
  it("reads address and names per line, aliases and IPv6 included, comments and bad lines skipped", () => {
    const table = parseHosts("127.0.0.1\tlocalhost Loopback\n::1 localhost ip6-localhost # v6\n# 10.0.0.1 commented\nnot-an-address name\n\n10.0.0.2 app\n");
    expect(Object.fromEntries(table)).toEqual({
      localhost: [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 },
      ],
      loopback: [{ address: "127.0.0.1", family: 4 }],
      "ip6-localhost": [{ address: "::1", family: 6 }],
      app: [{ address: "10.0.0.2", family: 4 }],
    });
  });

  it("reads a hosts file; one that cannot be read is empty", () => {
    const file = join(mkdtempSync(join(tmpdir(), "hosts-")), "hosts");
    writeFileSync(file, "192.0.2.1 receiver\n");
    expect(Object.fromEntries(readHostsFile(file))).toEqual({ receiver: [{ address: "192.0.2.1", family: 4 }] });
    expect(readHostsFile(join(file, "missing")).size).toBe(0);
  });
});
