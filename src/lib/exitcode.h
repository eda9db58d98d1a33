/*
 * exitcode: the exit statuses of arcturn (README, EXIT STATUS), in a
 * header of their own so that the modules that compute a status (the
 * sandbox backends return the one exec ends with) need not include the
 * front ends' cmd.h.
 *
 * exec: the command's own status, 128+N when it was killed by signal N,
 * else one of EXIT_OWN, EXIT_NOEXEC, EXIT_NOTFOUND. Other commands: 0,
 * EXIT_REFUSED or EXIT_USAGE.
 *
 * enum say_code is what kind of error it was: --json's "error"."code",
 * which say (cli/say.h) words. It is here, with the statuses, so that a
 * module below the front ends that fills an error they render (struct
 * workspace_err, session/workspace.h) can name the kind as data.
 */
#ifndef ARCTURN_EXITCODE_H
#define ARCTURN_EXITCODE_H

#define EXIT_REFUSED	1	/* operation refused or partly failed */
#define EXIT_USAGE	2	/* usage or environment error */
#define EXIT_OWN	125	/* exec: arcturn itself failed */
#define EXIT_NOEXEC	126	/* exec: found but could not run */
#define EXIT_NOTFOUND	127	/* exec: not found */

/* The fixed words of "error"."code". */
enum say_code {
	SAY_NONE,		/* derived from errno and the exit status */
	SAY_USAGE,		/* "usage": the command line is wrong */
	SAY_REFUSED,		/* "refused": the policy or a check said no */
	SAY_CONFLICT,		/* "conflict": the file changed since capture */
	SAY_NOT_FOUND,		/* "not_found" */
	SAY_PERMISSION,		/* "permission": the OS said no */
	SAY_NO_SPACE,		/* "no_space": disk or quota full */
	SAY_BUSY,		/* "busy": another arcturn holds it */
	SAY_DAMAGED,		/* "damaged": a session or record is broken */
	SAY_CONFIG,		/* "config": a config file is wrong */
	SAY_SANDBOX,		/* "sandbox": no sandbox, or setting it up failed */
	SAY_CANNOT_RUN,		/* "cannot_run": exec found CMD, could not run it */
	SAY_FAILED,		/* "failed": anything else */
	SAY_OUTSIDE_ROOTS,	/* "outside_roots": the policy's writable
				   roots do not hold the path */
	SAY_PROTECTED		/* "protected": a protected path (roots.h) */
};

#endif
