import { Controller, Delete, Get, Head, Patch, Post, Put } from "@nestjs/common";
import { describe, expect, it } from "vitest";

import { RequiresScope, scopeOfMethod, scopeOfRequest, scopeOfRoute } from "./required-scope";

@Controller("things")
class ThingsController {
  @Get()
  list(): void {}

  @Head()
  peek(): void {}

  @Post()
  create(): void {}

  @Put(":id")
  replace(): void {}

  @Patch(":id")
  change(): void {}

  @Delete(":id")
  remove(): void {}

  @Post("scan")
  @RequiresScope("scan")
  scan(): void {}

  @Post("mixed")
  @RequiresScope("scan", (body) => (Array.isArray(body) && body.includes("sell") ? "full" : "read"))
  mixed(): void {}
}

/** The handler as Nest's metadata keys it (the prototype's function, never called here). */
const handler = (name: keyof ThingsController): object => Object.getOwnPropertyDescriptor(ThingsController.prototype, name)!.value as object;

describe("the scope a route needs", () => {
  it("is read for a GET or HEAD, full for any other method, unless declared", () => {
    expect(["list", "peek", "create", "replace", "change", "remove"].map((name) => scopeOfRoute(handler(name as keyof ThingsController)))).toEqual([
      "read",
      "read",
      "full",
      "full",
      "full",
      "full",
    ]);
    expect(["GET", "head", "POST", "DELETE", "OPTIONS"].map(scopeOfMethod)).toEqual(["read", "read", "full", "full", "full"]);
  });

  it("is the declared one where a route declares it", () => {
    expect(scopeOfRoute(handler("scan"))).toBe("scan");
    expect(scopeOfRequest(handler("scan"), ["sell"])).toBe("scan");
  });

  it("is the wider of the declared one and its body's, never narrower than the declared one", () => {
    expect(scopeOfRoute(handler("mixed"))).toBe("scan");
    expect(scopeOfRequest(handler("mixed"), ["scan"])).toBe("scan");
    expect(scopeOfRequest(handler("mixed"), ["scan", "sell"])).toBe("full");
    expect(scopeOfRequest(handler("create"), ["anything"])).toBe("full");
  });

  it("is shown in the OpenAPI document where declared", () => {
    expect(Reflect.getMetadata("swagger/apiExtension", handler("scan"))).toEqual({ "x-key-scope": "scan" });
  });
});
