/*
 * landlock-helper: confine the writes of one command and run it.
 *
 *	landlock-helper [-m | -M] [-n] [-g] [-o DIR -u UPPER -k WORK [-G FD]]
 *	    [-L FD] [-w PATH]... [-P PATH]... [-p PATH]...
 *	    [-s PATH]... [-t PATH]... [-a PATH]... [-A] -- CMD [ARG]...
 *	landlock-helper -I [-c FD] [-K SERIAL]... [-g] [-s PATH]... [-t PATH]...
 *	    [-a PATH]... [-A] -- CMD [ARG]...
 *
 *	-w PATH	writable root (a directory, or a single file such as a device)
 *	-p PATH	protected path: stays read-only even inside a writable root
 *		(needs the mount layer; Landlock cannot carve out a subpath)
 *	-P PATH	a parent of a protected path, pinned so that it cannot be
 *		renamed away (outermost first; the mount layer)
 *	-m	add the mount layer when user namespaces allow it, else go on
 *		with Landlock alone
 *	-M	the mount layer is required: exit 125 when it cannot be had
 *	-n	no network (a fresh network namespace, else Landlock TCP rules)
 *	-o DIR -u UPPER -k WORK
 *		dry run: mount overlayfs on DIR (lower: DIR itself, upper and
 *		work from the session), so every change lands in UPPER; needs
 *		the mount layer (implies -M). The mount is volatile: UPPER
 *		is not synced at the end, and the WORK/work it leaves must be
 *		moved aside before the next mount (overlayfs refuses it).
 *		-G FD: the session is not ready yet; mount only once the
 *		byte 'g' comes on FD (arcturn readies it while the sandbox
 *		is being built). Anything else, or the end of FD, ends the
 *		helper with 125 and without a word: the command never
 *		starts, and arcturn says why. The command never has FD.
 *	-L FD	an open file (the session lock) that stays open until the
 *		last process of the command is gone; the command never has it
 *	-s PATH	a root whose pathname unix sockets the command may connect to
 *		(the workspace, a grant); -t PATH: one whose sockets it may
 *		not, though it may write there (the temp and state dirs);
 *		-a PATH: a socket (or a folder of them) allowed by name; -A:
 *		every socket. A socket the command's own processes bound is
 *		always allowed. See gate.h.
 *	-g	the seccomp gate even where Landlock has RESOLVE_UNIX
 *	-I	run as pid 1 of a pid namespace someone else made (bubblewrap,
 *		which built the rest of the sandbox); -c FD: write the
 *		command's wait status there (an int) when it ends; -K SERIAL
 *		(at most 2): the user's keyrings, looked up by arcturn
 *		outside bubblewrap's user namespace (keys.h)
 *
 * arcturn embeds this program and starts it with the whole policy on argv
 * (computed by its roots module: canonical paths, at most HELPER_MAXPATHS
 * of each kind); it reads no config and no environment.
 *
 * The order of the steps in main, and why each comes where it does, is
 * written down in helper.h.
 *
 * Exit status when CMD never starts: 125 setup failed, 126 CMD could not be
 * executed, 127 CMD not found. Otherwise CMD's: its exit code, or the
 * signal that killed it, raised again on the helper.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "fmt.h"
#include "helper.h"
#include "keys.h"
#include "landlock.h"
#include "mount.h"
#include "opts.h"
#include "proc.h"
#include "say.h"

static int
number(const char *s, int *v, long max)
{
	char *end;
	long n;

	errno = 0;
	n = fmt_long(s, &end);
	if (errno != 0 || end == s || *end != '\0' || n < 0 || n > max)
		return -1;
	*v = (int)n;
	return 0;
}

/* -X PATH into list l, at most HELPER_MAXPATHS. */
static int
push(const char **l, int *n, const char *v)
{
	if (*n >= HELPER_MAXPATHS)
		return -1;
	l[(*n)++] = v;
	return 0;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	int i;

	o->lockfd = o->statusfd = o->gofd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--") == 0) {
			o->cmd = argv + i + 1;
			return *o->cmd != NULL ? 0 : -1;
		}
		if (a[0] != '-' || a[1] == '\0' || a[2] != '\0')
			return -1;
		switch (a[1]) {
		case 'm':
		case 'M':
			o->mount = a[1] == 'm' ? 1 : 2;
			continue;
		case 'n':
			o->nonet = 1;
			continue;
		case 'g':
			o->gate = 1;
			continue;
		case 'A':
			o->all = 1;
			continue;
		case 'I':
			o->init = 1;
			continue;
		}
		if (v == NULL)
			return -1;
		i++;
		switch (a[1]) {
		case 'o':
			o->ovl = v;
			break;
		case 'u':
			o->upper = v;
			break;
		case 'k':
			o->work = v;
			break;
		case 'L':
			if (number(v, &o->lockfd, 1 << 20) < 0)
				return -1;
			break;
		case 'G':
			if (number(v, &o->gofd, 1 << 20) < 0)
				return -1;
			break;
		case 'c':
			if (number(v, &o->statusfd, 1 << 20) < 0)
				return -1;
			break;
		case 'K':
			if (o->nkeyrings == 2 || number(v,
			    &o->keyrings[o->nkeyrings++], INT32_MAX) < 0)
				return -1;
			break;
		case 'w':
			if (push(o->w, &o->nw, v) < 0)
				return -1;
			break;
		case 'P':
			if (push(o->pin, &o->npin, v) < 0)
				return -1;
			break;
		case 'p':
			if (push(o->p, &o->np, v) < 0)
				return -1;
			break;
		case 's':
			if (push(o->s, &o->ns, v) < 0)
				return -1;
			break;
		case 't':
			if (push(o->t, &o->nt, v) < 0)
				return -1;
			break;
		case 'a':
			if (push(o->a, &o->na, v) < 0)
				return -1;
			break;
		default:
			return -1;
		}
	}
	return -1;
}

/* What init needs of main's: helper.h's steps 2 to 6 run in init. */
struct initargs {
	const struct opts	*o;
	int			 gate;
	int			 resolve;
	int			 filters;
};

static int
init_main(void *arg, int ctl)
{
	struct initargs *a = arg;
	int proc = 0;

	if (mount_layer(a->o, ctl))
		proc = proc_fresh();
	say_dryrun(0);
	caps_drop(a->gate);
	ll_confine(a->o, a->o->nonet, a->resolve, proc);
	proc_supervise(a->o, PROC_NS, ctl, a->gate, a->filters);
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct initargs ia;
	int resolve, gate, ctl, flags, root = getuid() == 0 ? PROC_NOOPENAT2 : 0;
	pid_t init;

	if (parse(argc, argv, &o) < 0)
		goto usage;
	if (o.ovl != NULL || o.upper != NULL || o.work != NULL) {
		if (o.ovl == NULL || o.upper == NULL || o.work == NULL ||
		    o.init)
			goto usage;
		o.mount = 2;	/* never run a dry run against the real tree */
		say_dryrun(1);
	} else if (o.gofd >= 0)
		goto usage;
	if (o.init && o.mount)
		goto usage;

	/* The order is helper.h's; each step says why it comes there. */
	proc_start(&o);
	keys_lookup(&o);
	if (o.init)	/* bubblewrap built the sandbox: be its init */
		proc_supervise(&o, PROC_BWRAP, -1, 1, PROC_KEYS | root);
	resolve = ll_resolve_unix();
	gate = o.gate || !resolve;
	if (o.mount && (flags = mount_flags(&o)) != 0) {
		/* a network namespace of its own: no netoff filter there */
		ia = (struct initargs){ &o, gate, resolve, PROC_KEYS | root };
		if ((init = proc_init(flags, init_main, &ia, &ctl)) > 0) {
			/* AppArmor's restriction refuses the maps, not the clone */
			if (mount_map(init) < 0)
				mount_nouserns("mount layer: id map", errno);
			proc_go(ctl);
			proc_wait(init, ctl);
		}
		mount_refused(&o, errno);
	}
	say_dryrun(0);
	/* no network namespace: Landlock has TCP, seccomp the rest */
	flags = PROC_KEYS | root | (o.nonet ? PROC_NETOFF : 0);
	caps_drop(gate);
	ll_confine(&o, 0, resolve, 0);
	if (gate)
		proc_supervise(&o, PROC_PLAIN, -1, 1, flags);
	/* the kernel decides about sockets: become the command */
	return proc_exec(o.cmd, flags);
usage:
	fmt_err("usage: landlock-helper [-m | -M | -I] [-n] [-g] "
	    "[-o DIR -u UPPER -k WORK [-G FD]] [-L FD] [-c FD] "
	    "[-K SERIAL]... [-w PATH]... "
	    "[-P PATH]... [-p PATH]... [-s PATH]... [-t PATH]... "
	    "[-a PATH]... [-A] -- CMD [ARG]...\n");
	return 125;
}
