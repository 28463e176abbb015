import { execFile } from "node:child_process";
import https from "node:https";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type HttpsReceiver, startHttpsReceiver } from "../support/https-receiver";

let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

/** A POST with Node's default trust store (no `ca` option): passes only if NODE_EXTRA_CA_CERTS holds the test CA. */
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: "POST", agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("the test HTTPS receiver and its CA", () => {
  it("is trusted through NODE_EXTRA_CA_CERTS, inherited by the test worker", async () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toMatch(/ca\.pem$/);
    receiver.script("/tls", [{ status: 201, headers: { "x-scripted": "yes" } }]);
    expect(await post(receiver.url("/tls"), '{"hello":1}')).toBe(201);
    expect(await post(receiver.url("/tls"), "again")).toBe(204);
    expect(receiver.requests("/tls").map((request) => request.body)).toEqual(['{"hello":1}', "again"]);
  });

  it("is trusted by a new Node process started by the test, and not without the variable", async () => {
    const script = `require("https").request(process.argv[1], { method: "POST" }, (r) => { console.log(r.statusCode); r.resume(); }).on("error", (e) => { console.log(e.code); }).end("x")`;
    const run = async (url: string, env: NodeJS.ProcessEnv) => (await promisify(execFile)(process.execPath, ["-e", script, url], { env })).stdout.trim();
    expect(await run(receiver.url("/child"), process.env)).toBe("204");
    expect(await run(`https://127.0.0.1:${receiver.port}/child`, process.env)).toBe("204");
    // Without the variable the same certificate is not trusted: the trust comes from NODE_EXTRA_CA_CERTS alone.
    expect(await run(receiver.url("/child"), { ...process.env, NODE_EXTRA_CA_CERTS: "" })).toMatch(
      /^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/,
    );
  });
});
