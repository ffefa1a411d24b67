// Times attach → snapshot with upstream's published client, as its user sees it (CBOR decode
// and schema checks included): node attach-latency.mjs <client install dir> <socket> <session
// id> [keep]. With "keep" a second client holds the session live; without, each attach opens
// it from its file (the session is closed when the client detaches).
import { pathToFileURL } from "node:url";
import { join } from "node:path";
const [dir, socket, id, keep] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(dir, "node_modules", p)).href);
const { PiClient } = await mod("@earendil-works/pi-client/dist/index.js");
const { createUnixTransportFactory } = await mod("@earendil-works/pi-client/dist/unix.js");
const connect = () => PiClient.connect({ transportFactory: createUnixTransportFactory({ path: socket }) });
const c = await connect();
let keeper;
if (keep) { keeper = await connect(); await keeper.attachSession(id); }
const out = [];
for (let i = 0; i < 8; i++) {
	const t0 = performance.now();
	const h = await c.attachSession(id);
	out.push((performance.now() - t0).toFixed(1));
	await h.detach();
	await new Promise((r) => setTimeout(r, 100));
}
console.log(`${keep ? "live" : "from file"}: ms`, out.join(" "));
await c.dispose(); if (keeper) await keeper.dispose();
