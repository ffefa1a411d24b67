// Drives `pi serve` with upstream's published client, @earendil-works/pi-client 0.84.4. Every
// message that client accepts has passed its own schema checks (a message that fails them
// ends the connection, failing this script); each event is also checked here against the
// protocol package's ServerEventSchema. Usage: node e2e.mjs <client install dir> <socket>.
// Prints one JSON line of findings; exits non-zero on the first failure.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [dir, socket] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(dir, "node_modules", p)).href);
const { PiClient } = await mod("@earendil-works/pi-client/dist/index.js");
const { createUnixTransportFactory } = await mod("@earendil-works/pi-client/dist/unix.js");
const { ServerEventSchema, SessionSnapshotSchema } = await mod("@earendil-works/pi-protocol/dist/schemas.js");
const { Check } = await mod("typebox/build/value/index.mjs");

function fail(msg) {
	console.error("e2e:", msg);
	process.exit(1);
}
function expect(cond, msg) {
	if (!cond) fail(msg);
}
const texts = (snap) =>
	snap.transcript.flatMap((it) => it.content.filter((c) => c.type === "text").map((c) => `${it.role}:${c.text}`));

const transport = () => createUnixTransportFactory({ path: socket });
const client = await PiClient.connect({ transportFactory: transport() });
const found = { events: {}, progress: {} };
client.onEvent((ev) => {
	expect(Check(ServerEventSchema, ev), `an event failed the schema: ${JSON.stringify(ev).slice(0, 300)}`);
	found.events[ev.type] = (found.events[ev.type] ?? 0) + 1;
	if (ev.type === "session_progress") found.progress[ev.progress.type] = (found.progress[ev.progress.type] ?? 0) + 1;
});
expect(client.snapshot?.protocolVersion === 1, "no server snapshot with the hello");
found.listed = (await client.listSessions()).length;

const session = await client.createSession({ cwd: process.cwd(), name: "e2e" });
const id = session.id;
let snap = await session.prompt("hello?");
expect(Check(SessionSnapshotSchema, snap), "the prompt's snapshot failed the schema");
found.firstReply = texts(snap);
found.tool = snap.transcript.filter((it) => it.role === "tool").map((it) => `${it.toolName}:${it.status}:${it.content[0]?.text?.trim()}`);
expect(snap.phase === "idle", `phase after the prompt: ${snap.phase}`);

// A long reply: steer while it streams, then abort it.
let streaming;
const started = new Promise((resolve) => {
	const off = session.onEvent((ev) => {
		if (ev.type === "session_progress" && ev.progress.type === "assistant_delta") {
			off();
			resolve();
		}
	});
});
const long = session.prompt("write a lot");
await started;
const steered = await session.steer("and keep it short");
found.queuedSteerCount = steered.queuedSteerCount;
const aborted = await session.abort();
found.abortPhase = aborted.phase;
snap = await long;
const asked = snap.transcript.findIndex((it) => it.role === "user" && texts({ transcript: [it] })[0] === "user:write a lot");
found.abortedReply = snap.transcript[asked + 1]?.status;
found.revision = snap.revision;

// A second client sees the same session; after both detach it is re-opened from its file.
const other = await PiClient.connect({ transportFactory: transport() });
const shared = await other.attachSession(id);
found.sharedTexts = texts(shared.snapshot).slice(0, 2);
await shared.detach();
await session.detach();
await new Promise((r) => setTimeout(r, 200));
const again = await other.attachSession(id);
found.reopenedTexts = texts(again.snapshot).slice(0, 2);
found.reopenedRevision = again.snapshot.revision;
await again.detach();
found.listedAfter = (await other.listSessions()).some((s) => s.id === id);
await other.dispose();
await client.dispose();
console.log(JSON.stringify(found));
