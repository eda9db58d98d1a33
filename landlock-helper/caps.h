/*
 * caps.h: what root loses before the command runs. An unprivileged
 * caller has none of these capabilities and is left alone.
 *
 * caps_drop: root keeps only what bubblewrap keeps for arcturn (the
 * list is in caps.c) and loses every other capability (CAP_SYS_ADMIN,
 * CAP_MKNOD, CAP_DAC_READ_SEARCH, CAP_SYS_TTY_CONFIG, ...), from the
 * bounding set and from the effective, permitted, inheritable and
 * ambient sets. keep_ptrace keeps CAP_SYS_PTRACE: the
 * gate's supervisor reaches into a command that made itself undumpable.
 * caps_drop_ptrace then takes it from the command (in its own process,
 * before exec). Both exit 125 on failure (say.h).
 */
#ifndef ARCTURN_CAPS_H
#define ARCTURN_CAPS_H

void	caps_drop(int keep_ptrace);
void	caps_drop_ptrace(void);

#endif
