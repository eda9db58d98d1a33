// Validate arcturn's --json documents against schema/*.json (JSON Schema
// draft-07), with the Ajv that the pinned MCP test packages bring
// (tests/mcp/package-lock.json, installed into .deps/npm-mcp by
// vendor/fetch-npm.sh --ci tests/mcp): nothing of its own is installed.
//
//   node tests/json/validate.mjs SCHEMA_DIR NAME < DOCUMENT
//	One document on stdin, exactly ONE line (ending in a newline):
//	validated against SCHEMA_DIR/NAME.json. Prints what is wrong and
//	exits 1 on any problem; exits 0 silently when it is valid.
//   node tests/json/validate.mjs --check SCHEMA_DIR
//	Compiles every schema file (each must be valid draft-07, in Ajv's
//	strict mode, with "$id" "arcturn/<file name>/v1"); prints one line
//	per file and exits 1 on any problem.
//   node tests/json/validate.mjs --serve SCHEMA_DIR FIFO_DIR [PID]
//	Compiles the schemas once, then answers requests until told "quit"
//	(or until process PID is gone): a request is written to the FIFO
//	FIFO_DIR/req, one line "NAME FILE" (FILE holds the document); the
//	answer, read from the FIFO FIFO_DIR/resp, is the exit status the
//	first form would have had on its own line, then what it would have
//	printed. One node start (a second or more here) for a whole test
//	file instead of one a document.
//
// ARCTURN_NPM_MCP names the install (default: .deps/npm-mcp of this
// checkout). Exit 2: the install or the schema directory is missing.
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const deps = process.env.ARCTURN_NPM_MCP ||
    path.join(here, '..', '..', '.deps', 'npm-mcp');

function die(code, msg) {
	process.stderr.write(`validate.mjs: ${msg}\n`);
	process.exit(code);
}

// Ajv 8, as the MCP SDK depends on it (the top-level ajv of that install
// is the Inspector's v6): resolved from the SDK's own folder.
function loadAjv() {
	const base = path.join(deps, 'node_modules', '@modelcontextprotocol',
	    'sdk', 'package.json');
	if (!fs.existsSync(base))
		die(2, `${base} is missing (vendor/fetch-npm.sh --ci tests/mcp ${deps})`);
	const req = createRequire(base);
	const pkg = req('ajv/package.json');
	if (!/^8\./.test(pkg.version))
		die(2, `ajv ${pkg.version} beside the MCP SDK: expected 8.x`);
	const mod = req('ajv');
	return mod.default || mod;
}

function loadSchemas(dir) {
	let names;
	try {
		names = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
	} catch (e) {
		die(2, `${dir}: ${e.message}`);
	}
	const Ajv = loadAjv();
	// strict: an unknown keyword or a type mistake in a schema is an
	// error, not a silently looser check
	const ajv = new Ajv({ strict: true, allowUnionTypes: true,
	    allErrors: true });
	const bad = [];
	for (const f of names) {
		let s;
		try {
			s = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
		} catch (e) {
			bad.push(`${f}: not JSON: ${e.message}`);
			continue;
		}
		const want = `arcturn/${f.slice(0, -5)}/v1`;
		if (s.$id !== want)
			bad.push(`${f}: "$id" is ${JSON.stringify(s.$id)}, not "${want}"`);
		if (s.$schema !== 'http://json-schema.org/draft-07/schema#')
			bad.push(`${f}: "$schema" is not draft-07`);
		try {
			ajv.addSchema(s);
		} catch (e) {
			bad.push(`${f}: ${e.message}`);
		}
	}
	return { ajv, names, bad };
}

function compileAll(dir) {
	const { ajv, names, bad } = loadSchemas(dir);
	for (const f of names) {
		const id = `arcturn/${f.slice(0, -5)}/v1`;
		try {
			if (!ajv.validateSchema(ajv.getSchema(id).schema))
				bad.push(`${f}: ${ajv.errorsText(ajv.errors)}`);
		} catch (e) {
			bad.push(`${f}: ${e.message}`);
		}
	}
	return { ajv, names, bad };
}

const args = process.argv.slice(2);
if (args[0] === '--check') {
	if (args.length !== 2)
		die(2, 'usage: validate.mjs --check SCHEMA_DIR');
	const { names, bad } = compileAll(args[1]);
	if (names.length === 0)
		bad.push(`${args[1]}: no schema files`);
	for (const f of names)
		if (!bad.some((b) => b.startsWith(`${f}:`)))
			console.log(`ok ${f}`);
	for (const b of bad)
		console.log(`bad ${b}`);
	process.exit(bad.length ? 1 : 0);
}
// What is wrong with INPUT as a NAME document: { code, out } (the exit
// status and what to print); SCHEMAS: compileAll's, made on first use.
let compiled;
function validate(dir, name, input) {
	if (!/^[a-z][a-z-]*$/.test(name))
		return { code: 2, err: `${name}: not a document name` };
	if (!fs.existsSync(path.join(dir, `${name}.json`)))
		return { code: 1, err: `${dir}/${name}.json: no such schema` };
	const problems = [];
	if (input === '')
		problems.push('no document on stdout');
	else if (!input.endsWith('\n'))
		problems.push('the document does not end with a newline');
	else if (input.indexOf('\n') !== input.length - 1)
		problems.push(`${input.split('\n').length - 1} lines, not ONE`);
	let doc;
	if (input !== '') {
		try {
			doc = JSON.parse(input);
		} catch (e) {
			problems.push(`not JSON: ${e.message}`);
		}
	}
	if (doc !== undefined) {
		compiled = compiled || compileAll(dir);
		const { ajv, bad } = compiled;
		if (bad.length)
			problems.push(...bad.map((b) => `schema ${b}`));
		else {
			const v = ajv.getSchema(`arcturn/${name}/v1`);
			if (!v(doc)) {
				// oneOf: what the branch the document means to be
				// (the error document when it has "error", else the
				// result) found wrong; both when that is nothing
				const res = (e) => e.schemaPath.startsWith('#/definitions/result');
				const err = doc !== null && typeof doc === 'object' &&
				    'error' in doc;
				let errs = v.errors.filter((e) => e.schemaPath !== '#/oneOf' &&
				    (err ? !res(e) : res(e)));
				if (errs.length === 0)
					errs = v.errors;
				for (const e of errs)
					problems.push(`${e.instancePath || '/'} ${e.message}` +
					    (e.params && Object.keys(e.params).length ?
					    ` ${JSON.stringify(e.params)}` : '') +
					    ` (${e.schemaPath})`);
			}
		}
	}
	if (problems.length === 0)
		return { code: 0, out: '' };
	let out = `${name}: ${input.length > 400 ? input.slice(0, 400) +
	    '...' : input.trimEnd()}\n`;
	for (const p of problems)
		out += `  ${p}\n`;
	return { code: 1, out };
}

if (args[0] === '--serve') {
	if (args.length !== 3 && args.length !== 4)
		die(2, 'usage: validate.mjs --serve SCHEMA_DIR FIFO_DIR [PID]');
	const [, dir, fifo, pid] = args;
	compiled = compileAll(dir);
	// the FIFOs are opened by the thread pool: the loop stays free to
	// see the test run gone (the process that started this one)
	if (pid)
		setInterval(() => {
			try {
				process.kill(Number(pid), 0);
			} catch (e) {
				process.exit(0);
			}
		}, 1000).unref();
	const serve = async () => {
		for (;;) {
			const req = await fs.promises.readFile(path.join(fifo, 'req'), 'utf8');
			let ans = '';
			for (const line of req.split('\n')) {
				if (line === '')
					continue;
				if (line === 'quit')
					process.exit(0);
				const sp = line.indexOf(' ');
				let r;
				try {
					r = validate(dir, line.slice(0, sp),
					    fs.readFileSync(line.slice(sp + 1), 'utf8'));
				} catch (e) {
					r = { code: 2, err: e.message };
				}
				ans += `${r.code}\n${r.out || ''}` +
				    (r.err ? `validate.mjs: ${r.err}\n` : '');
			}
			await fs.promises.writeFile(path.join(fifo, 'resp'), ans);
		}
	};
	serve().catch((e) => die(2, `--serve: ${e.message}`));
} else {
	if (args.length !== 2)
		die(2, 'usage: validate.mjs SCHEMA_DIR NAME < DOCUMENT | --check SCHEMA_DIR | --serve SCHEMA_DIR FIFO_DIR [PID]');
	const r = validate(args[0], args[1], fs.readFileSync(0, 'utf8'));
	if (r.err)
		die(r.code, r.err);
	process.stdout.write(r.out);
	process.exitCode = r.code;
}
