// GET BASE/data/I.txt for I in 0..N-1 at once with Node's fetch, and
// print "I STATUS BODY" lines in order; exit 1 on any error
// (tests/bats/compat.bats).
const [base, n] = process.argv.slice(2);
const lines = await Promise.all([...Array(Number(n)).keys()].map(async (i) => {
	try {
		const r = await fetch(`${base}/data/${i % 8}.txt`);
		return `${i} ${r.status} ${(await r.text()).trim()}`;
	} catch (e) {
		process.exitCode = 1;
		return `${i} error ${e.cause ?? e}`;
	}
}));
console.log(lines.join("\n"));
