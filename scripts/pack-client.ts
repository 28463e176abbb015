import { join } from "node:path";

import { packClient } from "../client/pack";

/** `npm run client:pack`: the integrators' package (client/) built and packed into dist/client. */
const tarball = packClient(join(__dirname, "..", "dist", "client"));
console.log(`Packed ${tarball}`);
