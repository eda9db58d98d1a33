/*
 * sandbox: the rules every platform shares (sandbox.h): choosing a backend
 * from the mode and ARCTURN_BACKEND, and the status report with its one
 * table of guarantees. The backends themselves live in whole files per
 * platform.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/exitcode.h"
#include "sandbox/sandbox.h"

/*
 * Every backend reports on each of these, and README's security table has
 * a row for each key (tests/unit/sandbox_test.c checks both).
 */
const struct sandbox_gdef sandbox_guarantees[SANDBOX_NKEYS] = {
	[SG_WRITES] =		{ "writes_outside", "writes outside the roots" },
	[SG_METADATA] =		{ "metadata_outside",
				  "metadata changes outside the roots" },
	[SG_PROTECTED] =	{ "protected_paths", "protected paths" },
	[SG_TRUNCATION] =	{ "truncation", "truncation outside the roots" },
	[SG_DEVICES] =		{ "devices", "writes to other devices" },
	[SG_SIGNALS] =		{ "signals", "signals to outside processes" },
	[SG_TIOCSTI] =		{ "tiocsti", "TIOCSTI terminal injection" },
	[SG_NETWORK_OFF] =	{ "network_off", "--network off" },
	[SG_UNIX_SOCKETS] =	{ "unix_sockets",
				  "unix sockets of outside processes" },
	[SG_ABSTRACT] =		{ "abstract_sockets",
				  "abstract unix sockets outside the sandbox" },
	[SG_IPC] =		{ "ipc", "SysV IPC of outside processes" },
	[SG_LIFETIME] =		{ "lifetime",
				  "processes outliving arcturn" },
	[SG_LABELS] =		{ "persistent_labels",
				  "roots unchanged after the command" },
	/* git, protected paths that do not exist, the state dir */
	[SG_GIT] =		{ "git_control_files",
				  "git's hooks, config and pointers" },
	[SG_MISSING] =		{ "protected_missing",
				  "protected paths that do not exist yet" },
	[SG_STATE] =		{ "state_dir",
				  "arcturn's sessions and helper cache" },
};

/* pick for a platform with one backend (0) besides none (1). */
static void
pick_one(const struct sandbox_platform *pf, struct sandbox_choice *ch)
{
	char why[sizeof ch->why];
	size_t n = strlen(ch->why);

	if (pf->usable(why, sizeof why)) {
		if (!ch->forced)
			snprintf(ch->why, sizeof ch->why, "%s", why);
		ch->backend = 0;
		return;
	}
	snprintf(ch->why + n, sizeof ch->why - n, "%s%s", ch->forced ?
	    ", but " : "", why);
	ch->backend = 1;
}

void
sandbox_decide(const struct policy *p, const struct sandbox_platform *pf,
    struct sandbox_choice *ch)
{
	const char *env = p->backend;
	size_t i, n, k;
	int none;

	memset(ch, 0, sizeof *ch);
	for (none = 0; pf->names[none + 1] != NULL; none++)
		;
	ch->backend = none;
	ch->name = pf->names[none];
	if (p->mode == MODE_OFF) {
		ch->verdict = SANDBOX_OFF;
		snprintf(ch->why, sizeof ch->why, "sandbox mode is off");
		return;
	}
	if (env != NULL) {
		for (i = 0; pf->names[i] != NULL; i++)
			if (strcmp(env, pf->names[i]) == 0)
				break;
		if (pf->names[i] == NULL) {
			ch->verdict = SANDBOX_BAD;
			n = (size_t)snprintf(ch->why, sizeof ch->why,
			    "ARCTURN_BACKEND=%s: unknown backend (", env);
			for (k = 0; pf->names[k] != NULL && n < sizeof ch->why;
			    k++)
				n += (size_t)snprintf(ch->why + n,
				    sizeof ch->why - n, "%s%s", k ? ", " : "",
				    pf->names[k]);
			if (n < sizeof ch->why)
				snprintf(ch->why + n, sizeof ch->why - n, ")");
			return;
		}
		ch->forced = 1;
		ch->backend = (int)i;
		snprintf(ch->why, sizeof ch->why, "forced by ARCTURN_BACKEND=%s",
		    env);
	}
	/* a forced none needs no asking */
	if (ch->backend != none || !ch->forced) {
		if (pf->pick != NULL)
			pf->pick(p, ch);
		else
			pick_one(pf, ch);
	}
	ch->name = pf->names[ch->backend];
	ch->verdict = ch->backend == none ? SANDBOX_NONE : SANDBOX_CONFINE;
}

int
sandbox_start(const struct sandbox_platform *pf, const struct policy *p,
    const struct sandbox_choice *ch, char **argv, struct sandbox_end *end,
    char *err, size_t errlen)
{
	int rc;

	memset(end, 0, sizeof *end);
	end->status = EXIT_OWN;
	if (ch->verdict == SANDBOX_BAD) {
		snprintf(err, errlen, "%s", ch->why);
		return EXIT_OWN;
	}
	rc = pf->run(p, ch, argv, end, err, errlen);
	if (!end->ran)
		end->status = rc;
	return rc;
}

void
sandbox_choose(const struct policy *p, struct sandbox_choice *ch)
{
	sandbox_decide(p, &sandbox_platform, ch);
}

int
sandbox_run(const struct policy *p, const struct sandbox_choice *ch,
    char **argv, struct sandbox_end *end, char *err, size_t errlen)
{
	return sandbox_start(&sandbox_platform, p, ch, argv, end, err, errlen);
}

int
sandbox_setenv(const char *v)
{
#ifdef _WIN32
	return _putenv_s("ARCTURN_SANDBOX", v != NULL ? v : "") == 0 ? 0 : -1;
#else
	return v != NULL ? setenv("ARCTURN_SANDBOX", v, 1) :
	    unsetenv("ARCTURN_SANDBOX");
#endif
}

void
sandbox_end_from(struct sandbox_end *end, int code, int sig, int said)
{
	end->sig = sig > 0 ? sig : 0;
	end->status = end->sig > 0 ? 128 + end->sig : code >= 0 ? code :
	    EXIT_OWN;
	end->ran = !said || end->sig > 0 || end->status < EXIT_OWN ||
	    end->status > EXIT_NOTFOUND;
}

int
sandbox_nested(char *mode, size_t len)
{
	if (len > 0)
		mode[0] = '\0';
	return sandbox_platform.nested != NULL ?
	    sandbox_platform.nested(mode, len) : 0;
}

void
sandbox_label(const struct policy *p, const struct sandbox_choice *ch,
    char *buf, size_t len)
{
	const char *name = ch->verdict == SANDBOX_OFF ? "off" :
	    ch->verdict == SANDBOX_CONFINE ? ch->name : "none";

	if (ch->verdict == SANDBOX_CONFINE && sandbox_platform.label != NULL)
		name = sandbox_platform.label(ch);
	(void)p;
	snprintf(buf, len, "%s", name);
}

void
sandbox_report_start(struct sandbox_report *r, const struct policy *p,
    const struct sandbox_choice *ch)
{
	int i;

	memset(r, 0, sizeof *r);
	switch (ch->verdict) {
	case SANDBOX_CONFINE:
		snprintf(r->backend, sizeof r->backend, "%s", ch->name);
		snprintf(r->why, sizeof r->why, "%s", ch->why);
		return;
	case SANDBOX_OFF:
		snprintf(r->backend, sizeof r->backend, "off");
		snprintf(r->why, sizeof r->why, "%s", ch->why);
		break;
	case SANDBOX_NONE:
	case SANDBOX_BAD:
		snprintf(r->backend, sizeof r->backend, "none");
		snprintf(r->why, sizeof r->why, "%s; %s", ch->why,
		    ch->verdict == SANDBOX_BAD || p->require_sandbox ?
		    "exec exits 125" : "exec runs the command unconfined");
		break;
	}
	for (i = 0; i < SANDBOX_NKEYS; i++)
		sandbox_guarantee(r, (enum sandbox_key)i, 0,
		    "nothing confines the command");
}

void
sandbox_fact(struct sandbox_report *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->nfacts >= SANDBOX_MAXFACTS)
		return;
	r->facts[r->nfacts].key = key;
	r->facts[r->nfacts].type = SF_TEXT;
	va_start(ap, fmt);
	vsnprintf(r->facts[r->nfacts].value, sizeof r->facts[0].value, fmt,
	    ap);
	va_end(ap);
	r->nfacts++;
}

void
sandbox_fact_as(struct sandbox_report *r, enum sandbox_ftype type, long num,
    const char *word)
{
	if (r->nfacts == 0)
		return;
	r->facts[r->nfacts - 1].type = type;
	r->facts[r->nfacts - 1].num = num;
	r->facts[r->nfacts - 1].word = word;
}

void
sandbox_fact_json(struct sandbox_report *r, const char *key,
    enum sandbox_ftype type, long num, const char *word)
{
	if (r->nfacts >= SANDBOX_MAXFACTS)
		return;
	r->facts[r->nfacts].key = key;
	r->facts[r->nfacts].value[0] = '\0';
	r->nfacts++;
	sandbox_fact_as(r, type, num, word);
}

void
sandbox_guarantee(struct sandbox_report *r, enum sandbox_key k, int holds,
    const char *fmt, ...)
{
	va_list ap;

	r->g[k].set = 1;
	r->g[k].holds = holds;
	va_start(ap, fmt);
	vsnprintf(r->g[k].why, sizeof r->g[k].why, fmt, ap);
	va_end(ap);
}

void
sandbox_claims(struct sandbox_report *r, const struct sandbox_claim *c,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sandbox_guarantee(r, c[i].key, c[i].holds, "%s", c[i].why);
}
