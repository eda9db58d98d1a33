/*
 * config_check: the inputs that would widen what a confined command may
 * write without a word, refused before anything runs. config.h includes
 * this header: config_check_inputs is part of the config interface.
 *
 * Errors: the err/errlen convention (src/STYLE.md): 0, or -1 with errno
 * and one line in err (err may be NULL).
 */
#ifndef ARCTURN_CONFIG_CHECK_H
#define ARCTURN_CONFIG_CHECK_H

#include <stddef.h>

#include "policy/policy.h"

/*
 * The temp dir (TMPDIR, else /tmp), checked before any backend: it must
 * not be /, the home directory, the workspace or a folder above it, nor
 * hold the home directory, arcturn's state dir or the user config. -1
 * (EINVAL) with a line naming TMPDIR. Then, in workspace-write mode, each
 * grant (p->grants and p->grants_new): it must not be the workspace nor
 * hold it, the state dir or the user config (a command could rename the
 * folder away and make its own there, .git and config included); -1
 * (EINVAL) with a line `grant: PATH: holds ...`. Only exec asks: write,
 * edit, diff, apply and the rest run no command.
 */
int	config_check_inputs(const struct policy *p, char *err, size_t errlen);

/*
 * The workspace dir as given (-C DIR; NULL: the cwd, nothing to check)
 * must not be reached through a symlink that lies in the temp dir, the
 * state dir or a grant: one confined run could swap the link, and the
 * next run with the same -C would make its target writable. Each
 * component is looked at as the kernel walks it (relative to the cwd).
 * -1 (ELOOP) with a line `workspace: WS: reached through the symlink
 * LINK, ...`. config_load asks, once p's roots are known.
 */
int	config_check_link(const struct policy *p, const char *dir, char *err,
	    size_t errlen);

/*
 * The workspace p->workspace must be a project's folder: not /, not the
 * home directory or a folder that holds it (/home, /Users), not a system
 * folder (/etc, /usr, /bin, /boot, /dev, /proc, /sys, ... and anything
 * beneath /etc, /usr, /bin, /sbin, /lib*, /boot, /dev, /proc, /sys; the
 * folder itself only for /var, /opt, /srv, /run, /tmp, /mnt, /media,
 * where projects do live beneath), nor the state dir or beneath it. An
 * agent's tools started there would write the whole disk, the home or
 * arcturn's own records. -1 (EINVAL) with a line `workspace: WS: what
 * it is; refused as a workspace`; the caller says how to choose one.
 */
int	config_check_workspace(const struct policy *p, char *err,
	    size_t errlen);

#endif
