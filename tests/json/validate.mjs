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
if (args.length !== 2)
	die(2, 'usage: validate.mjs SCHEMA_DIR NAME < DOCUMENT | --check SCHEMA_DIR');
const [dir, name] = args;
if (!/^[a-z][a-z-]*$/.test(name))
	die(2, `${name}: not a document name`);
if (!fs.existsSync(path.join(dir, `${name}.json`)))
	die(1, `${dir}/${name}.json: no such schema`);

const input = fs.readFileSync(0, 'utf8');
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
	const { ajv, bad } = compileAll(dir);
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
if (problems.length) {
	console.log(`${name}: ${input.length > 400 ? input.slice(0, 400) +
	    '...' : input.trimEnd()}`);
	for (const p of problems)
		console.log(`  ${p}`);
	process.exit(1);
}
