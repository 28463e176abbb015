import type { INestApplication } from "@nestjs/common";
import { METHOD_METADATA, PATH_METADATA } from "@nestjs/common/constants";
import { RequestMethod } from "@nestjs/common";
import { DiscoveryService, MetadataScanner } from "@nestjs/core";

import { PUBLIC_ROUTE } from "../auth/authenticated-organization";
import type { KnownRoute } from "../metrics/http/route-label";

/**
 * The routes marked @Public() (health, and any other controller that needs no key), as patterns
 * with their methods, read from the controllers' metadata: the API-key middleware lets requests to
 * them through before routing. The guard still checks every route, so this list only decides which
 * requests may have their body read without a key.
 */
export function publicRoutes(app: INestApplication): KnownRoute[] {
  const discovery = app.get(DiscoveryService, { strict: false });
  const scanner = new MetadataScanner();
  const routes: KnownRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
    if (!controller || typeof controller !== "function") continue;
    const classPublic = Reflect.getMetadata(PUBLIC_ROUTE, controller) === true;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as object;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      if (!classPublic && Reflect.getMetadata(PUBLIC_ROUTE, handler) !== true) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const methods = new Set([method === "ALL" ? "_all" : method.toLowerCase()]);
      for (const prefix of asList(Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined)) {
        for (const path of asList(paths)) routes.push({ pattern: joinPath(prefix, path), methods });
      }
    }
  }
  return routes;
}

function asList(paths: string | string[] | undefined): string[] {
  if (paths === undefined) return [""];
  return Array.isArray(paths) ? paths : [paths];
}

function joinPath(...parts: string[]): string {
  return `/${parts.join("/")}`.replace(/\/+/g, "/").replace(/(.)\/$/, "$1");
}
