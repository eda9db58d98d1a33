// arcturn mcp end to end with the official MCP TypeScript SDK as the
// client (StdioClientTransport): the handshake, tools/list, every tool's
// happy path and isError path, dry-run capture seen by `arcturn diff`
// with the digest review_changes gave, apply_changes only with
// --allow-apply, a 10 MB stdout capped; and, over a raw pipe, version
// negotiation and malformed lines. Prints TAP.
//
//   node sdk.mjs ARCTURN_BIN   (run from the folder npm ci installed)
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = process.argv[2];
let n = 0, failed = 0;

function ok(cond, name, detail) {
	n++;
	if (cond) {
		console.log(`ok ${n} - ${name}`);
	} else {
		failed++;
		console.log(`not ok ${n} - ${name}`);
		if (detail !== undefined)
			console.log(`# ${JSON.stringify(detail).slice(0, 2000)}`);
	}
}

// A workspace of its own, its temp dir and home beside it (arcturn exec
// refuses a TMPDIR that holds the workspace).
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "arcturn-mcp-sdk.")));
const ws = path.join(top, "ws"), outside = path.join(top, "outside");
for (const d of [ws, outside, path.join(top, "tmp"), path.join(top, "home")])
	fs.mkdirSync(d, { recursive: true });
const env = {
	PATH: process.env.PATH, HOME: path.join(top, "home"),
	TMPDIR: path.join(top, "tmp"), LANG: "C.UTF-8",
};
execFileSync("git", ["init", "-q", "."], { cwd: ws, env });
fs.writeFileSync(path.join(ws, "a.txt"), "hello\n");

const cli = (...args) => execFileSync(bin, args, { cwd: ws, env, encoding: "utf8" });

async function connect(...flags) {
	const transport = new StdioClientTransport({
		command: bin, args: ["mcp", ...flags], cwd: ws, env, stderr: "pipe",
	});
	const client = new Client({ name: "arcturn-tests", version: "1" });
	await client.connect(transport);
	return client;
}

// A call that must fail with a JSON-RPC error: its code.
async function rpcError(p) {
	try {
		await p;
		return null;
	} catch (e) {
		return e.code;
	}
}

const text = (r) => r.content?.[0]?.text;

const ALL_TOOLS = "begin_turn directory_tree discard_changes edit_file get_file_info list_checkpoints list_directory " +
    "read_file read_multiple_files review_changes run_command sandbox_status search_content search_files undo write_file";

// The sleep whose argument is token (a unique number of seconds):
// its pid, or 0. Commands run in a pid namespace of their own, so the pid
// a command would write itself is not ours: the test finds it in /proc.
function pidOf(token) {
	for (const d of fs.readdirSync("/proc")) {
		if (!/^[0-9]+$/.test(d))
			continue;
		try {
			const argv = fs.readFileSync(`/proc/${d}/cmdline`, "latin1").split("\0");
			// the sleep itself, not arcturn exec or the helper naming it
			if (path.basename(argv[0]) === "sleep" && argv[1] === token)
				return Number(d);
		} catch (e) { /* gone */ }
	}
	return 0;
}
// Whether pid still runs: a zombie (state Z: killed, not yet reaped by an
// init that may never reap) does not.
function alive(pid) {
	try {
		return !/^[0-9]+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "latin1"));
	} catch (e) {
		return false;
	}
}
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
// Wait for cond, 20 ms at a time, at most tries times: whether it held.
async function until(cond, tries = 1500) {
	for (let k = 0; k < tries; k++) {
		if (await cond())
			return true;
		await pause(20);
	}
	return false;
}
let tokens = 0;
const token = () => `3600.${process.pid}${++tokens}`;

async function main() {
	// plain server: no dry run, no apply
	let c = await connect();
	ok(c.getServerVersion()?.name === "arcturn", "initialize: serverInfo names arcturn", c.getServerVersion());
	ok(c.getServerCapabilities()?.tools !== undefined, "initialize: the tools capability");
	const names = (await c.listTools()).tools.map((t) => t.name).sort();
	ok(names.join(" ") === ALL_TOOLS, "tools/list: sixteen tools, no apply_changes without --allow-apply", names);
	const listed = (await c.listTools()).tools;
	ok(listed.every((t) => t.outputSchema?.type === "object"), "tools/list: each tool has an outputSchema");
	ok(listed.every((t) => t.title && t.description && ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
	    .every((h) => typeof t.annotations?.[h] === "boolean") &&
	    Object.values(t.inputSchema.properties ?? {}).every((p) => p.title && p.description)),
	    "tools/list: every tool has a title, a description, the four annotations, and every input a title and a description",
	    listed.map((t) => [t.name, t.title, t.annotations]));

	let r = await c.callTool({ name: "read_file", arguments: { path: "a.txt" } });
	ok(!r.isError && r.structuredContent.content === "hello\n" && text(r) === "hello\n", "read_file", r);
	r = await c.callTool({ name: "read_file", arguments: { path: "missing.txt" } });
	ok(r.isError && text(r) === "arcturn: read: missing.txt: No such file or directory", "read_file: isError with the CLI's line", r);

	r = await c.callTool({ name: "write_file", arguments: { path: "b.txt", content: "bee\n" } });
	ok(!r.isError && fs.readFileSync(path.join(ws, "b.txt"), "utf8") === "bee\n" &&
	    r.structuredContent.captured === false, "write_file writes the real tree", r);
	const cfg = fs.readFileSync(path.join(ws, ".git/config"), "utf8");
	r = await c.callTool({ name: "write_file", arguments: { path: ".git/config", content: "x" } });
	ok(r.isError && text(r) === "arcturn: write: .git/config: protected path (git control file); " +
	    "change it outside arcturn (git's hooks and config decide what git runs)" &&
	    r.structuredContent.deniedPaths[0] === ".git/config" &&
	    fs.readFileSync(path.join(ws, ".git/config"), "utf8") === cfg, "write_file: a protected path is refused", r);
	r = await c.callTool({ name: "write_file", arguments: { path: path.join(outside, "x"), content: "x" } });
	ok(r.isError && / outside the workspace .*; write and edit take paths inside it \(-C DIR names another workspace\)$/.test(text(r)) &&
	    r.structuredContent.code === "outside_roots" &&
	    r.structuredContent.deniedPaths[0] === path.join(outside, "x") && !fs.existsSync(path.join(outside, "x")),
	    "write_file: a path outside the workspace is refused, naming it and -C", r);

	r = await c.callTool({ name: "edit_file", arguments: { path: "b.txt", edits: [{ oldText: "bee", newText: "bop" }] } });
	ok(!r.isError && r.structuredContent.diff.includes("+bop") &&
	    fs.readFileSync(path.join(ws, "b.txt"), "utf8") === "bop\n", "edit_file", r);
	r = await c.callTool({ name: "edit_file", arguments: { path: "b.txt", edits: [{ oldText: "zzz", newText: "y" }] } });
	ok(r.isError && text(r) === "arcturn: edit: b.txt: edit 1: old text not found", "edit_file: isError when oldText is missing", r);

	r = await c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", "echo out; echo err >&2; exit 4"] } });
	ok(!r.isError && r.structuredContent.exitCode === 4 && r.structuredContent.stdout === "out\n" &&
	    r.structuredContent.stderr === "err\n", "run_command: status and output", r);
	const st = await c.callTool({ name: "sandbox_status", arguments: {} });
	ok(!st.isError && typeof st.structuredContent.backend === "string", "sandbox_status", st);
	ok(r.structuredContent.backend === st.structuredContent.backend &&
	    r.structuredContent.confined === (st.structuredContent.backend !== "none"),
	    "run_command: says its backend and whether it was confined", [r.structuredContent, st.structuredContent.backend]);
	r = await c.callTool({ name: "run_command", arguments: { command: ["arcturn-no-such-command"] } });
	ok(r.isError && /^arcturn: /.test(text(r)), "run_command: isError when the command cannot run", r);
	r = await c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", "head -c 10000000 /dev/zero | tr '\\000' a"] } });
	ok(!r.isError && r.structuredContent.stdoutTruncated === true && r.structuredContent.stdoutBytes === 10000000 &&
	    r.structuredContent.stdout.length < r.structuredContent.outputCap + 400 &&
	    r.structuredContent.stdout.includes("[arcturn: 9967232 bytes of stdout left out;"),
	    "run_command: a 10 MB stdout keeps its head and tail and says what was left out",
	    { ...r.structuredContent, stdout: r.structuredContent.stdout.slice(16300, 16700) });

	// a long call: ping answered during it; an abort (notifications/cancelled) ends it
	const ac = new AbortController();
	const long = c.callTool({ name: "run_command", arguments: { command: ["sleep", "30"] } }, undefined, { signal: ac.signal });
	let t0 = Date.now();
	await c.ping();
	ok(Date.now() - t0 < 2000, "ping is answered during a long run_command", Date.now() - t0);
	ac.abort();
	let aborted = false;
	try { await long; } catch (e) { aborted = true; }
	t0 = Date.now();
	r = await c.callTool({ name: "read_file", arguments: { path: "a.txt" } });
	ok(aborted && !r.isError && Date.now() - t0 < 2000, "an aborted run_command is cancelled and the server goes on at once", Date.now() - t0);

	ok(await rpcError(c.callTool({ name: "no_such_tool", arguments: {} })) === -32602, "an unknown tool: -32602");
	r = await c.callTool({ name: "read_file", arguments: { path: 1 } });
	ok(r.isError && text(r) === "arcturn: read_file: invalid arguments: path must be a string",
	    "malformed arguments: an isError result the model can read (spec 2025-11-25)", r);
	// strings are taken whole: a NUL in a path is an error, in content it is written
	fs.writeFileSync(path.join(ws, "important.txt"), "keep\n");
	r = await c.callTool({ name: "write_file", arguments: { path: "important.txt\u0000.bak", content: "x" } });
	ok(r.isError && /path holds a NUL character/.test(text(r)) &&
	    fs.readFileSync(path.join(ws, "important.txt"), "utf8") === "keep\n", "write_file: a NUL in the path is an error", r);
	r = await c.callTool({ name: "write_file", arguments: { path: "nul.txt", content: "line1\u0000line2" } });
	ok(!r.isError && fs.readFileSync(path.join(ws, "nul.txt"), "latin1") === "line1\u0000line2",
	    "write_file: content with a NUL is written whole", r);
	r = await c.callTool({ name: "edit_file", arguments: { path: "important.txt", edits: [{ oldText: "ke\u0000x", newText: "y" }] } });
	ok(r.isError && /edits\[0\]\.oldText holds a NUL/.test(text(r)), "edit_file: a NUL in oldText is an error", r);
	ok(await rpcError(c.callTool({ name: "apply_changes", arguments: { expect: "x" } })) === -32602,
	    "apply_changes is refused without --allow-apply");
	await c.close();

	// dry run: captured, the real tree unchanged, the CLI sees the same
	c = await connect("--dry-run");
	r = await c.callTool({ name: "write_file", arguments: { path: "c.txt", content: "sea\n" } });
	ok(!r.isError && r.structuredContent.captured === true, "--dry-run: write_file is captured", r);
	r = await c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", "echo ran >d.txt; echo bye >a.txt"] } });
	ok(!r.isError && r.structuredContent.exitCode === 0 && r.structuredContent.captured === true,
	    "--dry-run: run_command is captured", r);
	ok(!fs.existsSync(path.join(ws, "c.txt")) && !fs.existsSync(path.join(ws, "d.txt")) &&
	    fs.readFileSync(path.join(ws, "a.txt"), "utf8") === "hello\n", "--dry-run: the real tree is unchanged");
	r = await c.callTool({ name: "read_file", arguments: { path: "a.txt" } });
	ok(r.structuredContent.content === "bye\n", "--dry-run: read_file sees the session", r);
	const rev = await c.callTool({ name: "review_changes", arguments: {} });
	const cliDiff = cli("diff");
	const m = /^digest: ([0-9a-f]{64})$/m.exec(cliDiff);
	ok(!rev.isError && m && rev.structuredContent.digest === m[1] && rev.structuredContent.count === 3,
	    "review_changes: the digest arcturn diff prints", [rev.structuredContent, cliDiff]);
	r = await c.callTool({ name: "discard_changes", arguments: { paths: ["c.txt"] } });
	ok(r.isError, "discard_changes: paths are refused", r);
	r = await c.callTool({ name: "discard_changes", arguments: {} });
	ok(!r.isError && cli("diff") === "", "discard_changes empties the session", r);
	await c.close();

	// --allow-apply: the agent applies what it reviewed
	c = await connect("--dry-run", "--allow-apply");
	ok((await c.listTools()).tools.some((t) => t.name === "apply_changes"), "--allow-apply lists apply_changes");
	await c.callTool({ name: "write_file", arguments: { path: "e.txt", content: "applied\n" } });
	const d = (await c.callTool({ name: "review_changes", arguments: {} })).structuredContent.digest;
	r = await c.callTool({ name: "apply_changes", arguments: { expect: "0".repeat(64) } });
	ok(r.isError && !fs.existsSync(path.join(ws, "e.txt")), "apply_changes: a stale digest is refused", r);
	r = await c.callTool({ name: "apply_changes", arguments: { expect: d } });
	ok(!r.isError && fs.readFileSync(path.join(ws, "e.txt"), "utf8") === "applied\n", "apply_changes applies", r);
	// progress: files done, up to the files to apply, then the result
	const many = ["p/1.txt", "p/2.txt", "p/q/3.txt", "4.txt", "5.txt"];
	for (const f of many)
		await c.callTool({ name: "write_file", arguments: { path: f, content: `${f}\n` } });
	const d2 = (await c.callTool({ name: "review_changes", arguments: {} })).structuredContent.digest;
	const ap = [];
	r = await c.callTool({ name: "apply_changes", arguments: { expect: d2 } }, undefined,
	    { onprogress: (p) => ap.push(p) });
	ok(!r.isError && many.every((f) => fs.readFileSync(path.join(ws, f), "utf8") === `${f}\n`) &&
	    ap.length === 6 && ap.every((p, k) => p.progress === k && p.total === 5 &&
	    p.message === `apply_changes: ${k} of 5 files done`),
	    "apply_changes: progress counts the files done, 0 to 5 of 5, then the result", [ap, r]);
	await c.close();

	// launch as clients write it: started in the home, -C after mcp
	const home = path.join(top, "home");
	let t = new StdioClientTransport({ command: bin, args: ["mcp", "-C", ws], cwd: home, env, stderr: "pipe" });
	c = new Client({ name: "arcturn-tests", version: "1" });
	await c.connect(t);
	r = await c.callTool({ name: "read_file", arguments: { path: "a.txt" } });
	ok(!r.isError && r.structuredContent.content === "hello\n", "args [mcp, -C, DIR] from the home serves DIR", r);
	await c.close();
	// started in the home without -C: refused, saying how to choose
	t = new StdioClientTransport({ command: bin, args: ["mcp"], cwd: home, env, stderr: "pipe" });
	c = new Client({ name: "arcturn-tests", version: "1" });
	await c.connect(t);
	r = await c.callTool({ name: "write_file", arguments: { path: "x.txt", content: "x" } });
	ok(r.isError && /refused as a workspace.*-C DIR.*MCP root/.test(text(r)) && !fs.existsSync(path.join(home, "x.txt")),
	    "started in the home: the tools refuse it and say how to choose a workspace", r);
	await c.close();
	// the same with MCP roots: the client's root is the workspace
	t = new StdioClientTransport({ command: bin, args: ["mcp"], cwd: home, env, stderr: "pipe" });
	c = new Client({ name: "arcturn-tests", version: "1" }, { capabilities: { roots: { listChanged: true } } });
	c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file://" + ws, name: "ws" }] }));
	await c.connect(t);
	r = await c.callTool({ name: "write_file", arguments: { path: "rooted.txt", content: "r\n" } });
	ok(!r.isError && fs.readFileSync(path.join(ws, "rooted.txt"), "utf8") === "r\n" && !fs.existsSync(path.join(home, "rooted.txt")),
	    "MCP roots: the client's file:// root is the workspace", r);
	await c.close();

	await concurrency();
	await navigation();
	await turns();
	await cannotStart();

	// raw lines: version negotiation and malformed input
	const lines = await raw([
		{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
		"not json",
		"[]",
		{ jsonrpc: "2.0", id: 2, method: "ping" },
		{ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "1999-01-01" } },
	]);
	ok(lines[0]?.result?.protocolVersion === "2025-06-18", "initialize answers 2025-06-18 when asked", lines[0]);
	ok(lines[1]?.error?.code === -32700 && lines[1].id === null, "a malformed line: -32700, id null", lines[1]);
	ok(lines[2]?.error?.code === -32600, "a batch: -32600", lines[2]);
	ok(lines[3]?.id === 2 && lines[3].result !== undefined, "the server goes on after malformed lines", lines[3]);
	ok(lines[4]?.result?.protocolVersion === "2025-11-25", "an unknown version gets the newest", lines[4]);
}

// Concurrent, cancellable, observable (issue 27 item 3).
async function concurrency() {
	const c = await connect();
	await c.listTools();
	const fifo = path.join(top, "fifo");
	execFileSync("mkfifo", [fifo]);
	// a call blocked on the fifo: the ping's reply comes before the call's
	let done = false, readDone = false;
	const long = c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", `read x <"${fifo}"; echo "got $x" >seen.txt`] } })
	    .then((r) => { done = true; return r; });
	await c.ping();
	ok(!done, "a ping is answered while a call runs (the call waits on a fifo the test has not written)");
	// a read sent after a write waits for it, and sees what it wrote
	const rd = c.callTool({ name: "read_file", arguments: { path: "seen.txt" } }).then((r) => { readDone = true; return r; });
	await c.ping();
	ok(!done && !readDone, "a read sent after a writing call waits for it; pings are still answered");
	fs.writeFileSync(fifo, "go\n");
	const r = await long;
	ok(done && !r.isError && r.structuredContent.exitCode === 0, "then the call ends with its own reply", r);
	const rr = await rd;
	ok(rr.structuredContent?.content === "got go\n", "and the read sees what the call wrote", rr);
	fs.unlinkSync(path.join(ws, "seen.txt"));

	// progress: a notification at the start, then one saying what was output
	const seen = [];
	let outputSeen;
	const sawOutput = new Promise((res) => { outputSeen = res; });
	const prog = c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", `echo hello; read x <"${fifo}"`] } },
	    undefined, { onprogress: (p) => { seen.push(p); if (/ 6 bytes of output/.test(p.message)) outputSeen(); } });
	await sawOutput;
	fs.writeFileSync(fifo, "\n");
	const pr = await prog;
	ok(!pr.isError && seen.length >= 2 && seen.every((p, k) => k === 0 || p.progress > seen[k - 1].progress) &&
	    /^run_command: running for [0-9.]+ s, 0 bytes/.test(seen[0].message),
	    "progress: notifications while the command runs, increasing, with the output so far", seen);

	// cancellation: the command is gone, and no reply comes for it
	const msgs = [];
	const t = c.transport, prev = t.onmessage;
	t.onmessage = (m, extra) => { msgs.push(m); prev?.(m, extra); };
	const tok = token(), pidfile = path.join(top, "cancelled.pid");
	const ac = new AbortController();
	const cancelled = c.callTool({ name: "run_command", arguments: { command: ["sleep", tok] } }, undefined, { signal: ac.signal })
	    .catch(() => "aborted");
	ok(await until(() => pidOf(tok) !== 0), "the command to cancel started");
	fs.writeFileSync(pidfile, String(pidOf(tok)));
	const cid = msgs.length;	// requests so far: the call's id is the last one sent
	ac.abort();
	ok(await cancelled === "aborted", "the cancelled call is aborted on the client");
	const pid = Number(fs.readFileSync(pidfile, "utf8"));
	ok(await until(() => !alive(pid), 50), "notifications/cancelled kills the command (pid file) within a second", pid);
	await c.ping();
	await c.callTool({ name: "list_directory", arguments: {} });
	ok(msgs.slice(cid).every((m) => m.result?.structuredContent?.exitCode === undefined),
	    "no reply is sent for the cancelled call", msgs.slice(cid));
	await c.close();

	// the client gone mid-call: server and command end, the lock is free
	const tok2 = token();
	const p = spawn(bin, ["mcp", "--dry-run"], { cwd: ws, env, stdio: ["pipe", "pipe", "ignore"] });
	let exited = null;
	p.on("exit", (code) => { exited = code; });
	p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) + "\n");
	p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "run_command", arguments: { command: ["sleep", tok2] } } }) + "\n");
	ok(await until(() => pidOf(tok2) !== 0), "a dry-run command runs, holding the session");
	const pid2 = pidOf(tok2);
	p.stdin.end();
	ok(await until(() => exited !== null && !alive(pid2), 50),
	    "stdin closed mid-call: the server exits 0 and the command is gone within a second", [exited, alive(pid2)]);
	ok(exited === 0, "the server's status is 0", exited);
	let free;
	try {
		execFileSync(bin, ["discard", "--yes"], { cwd: ws, env, timeout: 10000, stdio: "ignore" });
		free = true;
	} catch (e) {
		free = false;
	}
	ok(free, "the session's lock is free: discard takes it");
}

// Navigation, in the real tree and under dry run (issue 27 item 5).
async function navigation() {
	fs.mkdirSync(path.join(ws, "nav/deep/er"), { recursive: true });
	fs.writeFileSync(path.join(ws, "nav/one.c"), "int one;\n");
	fs.writeFileSync(path.join(ws, "nav/deep/two.c"), "int two;\nint main;\n");
	fs.writeFileSync(path.join(ws, "nav/deep/er/three.h"), "/* three */\n");
	let c = await connect();
	await c.listTools();
	let r = await c.callTool({ name: "list_directory", arguments: { path: "nav" } });
	ok(!r.isError && text(r) === "[DIR] deep\n[FILE] one.c\n" && r.structuredContent.total === 2, "list_directory", r);
	r = await c.callTool({ name: "directory_tree", arguments: { path: "nav", maxDepth: 2 } });
	ok(!r.isError && JSON.stringify(r.structuredContent.tree) === JSON.stringify([
	    { name: "deep", type: "directory", children: [{ name: "er", type: "directory" }, { name: "two.c", type: "file" }] },
	    { name: "one.c", type: "file" }]), "directory_tree, to maxDepth", r);
	r = await c.callTool({ name: "search_files", arguments: { path: "nav", pattern: "*.c" } });
	ok(!r.isError && r.structuredContent.matches.join(" ") === "nav/deep/two.c nav/one.c", "search_files: a glob on names", r);
	r = await c.callTool({ name: "search_files", arguments: { pattern: "nav/**/*.h" } });
	ok(!r.isError && r.structuredContent.matches.join(" ") === "nav/deep/er/three.h", "search_files: a glob on paths", r);
	r = await c.callTool({ name: "search_content", arguments: { path: "nav", pattern: "int (one|main)", include: "*.c" } });
	ok(!r.isError && text(r) === "nav/deep/two.c:2: int main;\nnav/one.c:1: int one;\n", "search_content: a regex, path:line: text", r);
	r = await c.callTool({ name: "get_file_info", arguments: { path: "nav/one.c" } });
	ok(!r.isError && r.structuredContent.size === 9 && r.structuredContent.isFile === true, "get_file_info", r);
	r = await c.callTool({ name: "read_multiple_files", arguments: { paths: ["nav/one.c", "nav/none.c"] } });
	ok(!r.isError && r.structuredContent.files[0].content === "int one;\n" && /No such file/.test(r.structuredContent.files[1].error),
	    "read_multiple_files: each file, or its error", r);
	r = await c.callTool({ name: "list_directory", arguments: { path: outside } });
	ok(r.isError && /outside the workspace/.test(text(r)), "a folder outside the workspace is refused", r);
	fs.symlinkSync(outside, path.join(ws, "nav/out"));
	r = await c.callTool({ name: "list_directory", arguments: { path: "nav/out" } });
	ok(r.isError, "a symlink out of the workspace is not listed", r);
	fs.unlinkSync(path.join(ws, "nav/out"));
	r = await c.callTool({ name: "search_files", arguments: { pattern: 7 } });
	ok(r.isError && /pattern must be a string/.test(text(r)), "bad arguments: isError naming the argument", r);
	await c.close();
	// under dry run they see the pending changes
	c = await connect("--dry-run");
	await c.listTools();
	await c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", "rm nav/one.c; echo 'int four;' >nav/four.c"] } });
	r = await c.callTool({ name: "list_directory", arguments: { path: "nav" } });
	ok(text(r) === "[DIR] deep\n[FILE] four.c\n", "under dry run: list_directory sees the session", r);
	r = await c.callTool({ name: "search_content", arguments: { path: "nav", pattern: "int f" } });
	ok(r.structuredContent.matches.map((m) => m.path).join(" ") === "nav/four.c", "under dry run: search_content too", r);
	r = await c.callTool({ name: "get_file_info", arguments: { path: "nav/one.c" } });
	ok(r.isError && fs.existsSync(path.join(ws, "nav/one.c")), "under dry run: a removed file is gone from the view only", r);
	await c.callTool({ name: "discard_changes", arguments: {} });
	await c.close();
}

// Turns an agent can undo (issue 27 item 6).
async function turns() {
	const c = await connect();
	await c.listTools();
	fs.writeFileSync(path.join(ws, "t.txt"), "before\n");
	let r = await c.callTool({ name: "begin_turn", arguments: { label: "agent: rework t" } });
	const turn = r.structuredContent?.turn;
	ok(!r.isError && Number.isInteger(turn) && r.structuredContent.label === "agent: rework t", "begin_turn", r);
	r = await c.callTool({ name: "write_file", arguments: { path: "t.txt", content: "written\n" } });
	ok(r.structuredContent.turn === turn, "write_file joins the turn", r);
	r = await c.callTool({ name: "edit_file", arguments: { path: "t.txt", edits: [{ oldText: "written", newText: "edited" }] } });
	ok(r.structuredContent.turn === turn, "edit_file joins the turn", r);
	r = await c.callTool({ name: "run_command", arguments: { command: ["sh", "-c", "echo ran >made.txt; echo run >>t.txt"] } });
	const ck = r.structuredContent.checkpointed;
	ok(!r.isError && (ck ? r.structuredContent.turn === turn : r.structuredContent.turn === null),
	    `run_command's writes ${ck ? "join the turn" : "are not checkpointed on this backend (" + r.structuredContent.backend + ")"}`, r);
	r = await c.callTool({ name: "list_checkpoints", arguments: {} });
	const t0 = r.structuredContent?.turns?.[0];
	ok(!r.isError && t0.id === turn && t0.label === "agent: rework t" &&
	    t0.paths.map((p) => p.path).sort().join(" ") === (ck ? "made.txt t.txt" : "t.txt"), "list_checkpoints: the turn, its label, its paths", r);
	const human = JSON.parse(cli("--json", "checkpoints")).turns[0];
	ok(human.id === turn && human.label === "agent: rework t", "arcturn checkpoints shows the same turn and label", human);
	r = await c.callTool({ name: "undo", arguments: {} });
	ok(!r.isError && r.structuredContent.since === turn && fs.readFileSync(path.join(ws, "t.txt"), "utf8") === "before\n" &&
	    !fs.existsSync(path.join(ws, "made.txt")), "undo restores all of it: the writes, the edit and the command's", r);
	r = await c.callTool({ name: "undo", arguments: { turn: 999999 } });
	ok(r.isError && /no such turn/.test(text(r)), "undo of no such turn: isError", r);
	await c.close();
}

// A server that cannot start says why to initialize (issue 27 item 1).
async function cannotStart() {
	const t = new StdioClientTransport({ command: bin, args: ["mcp", "-C", "/"], cwd: ws, env, stderr: "pipe" });
	const c = new Client({ name: "arcturn-tests", version: "1" });
	let err = null;
	try {
		await c.connect(t);
	} catch (e) {
		err = e;
	}
	ok(err !== null && /refused as a workspace/.test(String(err.message)),
	    "a server that cannot start answers initialize with an error saying why", String(err));
}

// Send each message as a line, close stdin, parse the replies.
function raw(msgs) {
	return new Promise((resolve, reject) => {
		const p = spawn(bin, ["mcp"], { cwd: ws, env, stdio: ["pipe", "pipe", "ignore"] });
		let out = "";
		p.stdout.on("data", (b) => { out += b; });
		p.on("error", reject);
		p.on("close", () => resolve(out.split("\n").filter(Boolean).map((l) => JSON.parse(l))));
		p.stdin.end(msgs.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n") + "\n");
	});
}

main().catch((e) => {
	ok(false, "the SDK session", String(e && e.stack || e));
}).finally(() => {
	console.log(`1..${n}`);
	fs.rmSync(top, { recursive: true, force: true });
	process.exit(failed ? 1 : 0);
});
