/*
 * exitcode: the exit statuses of arcturn (README, EXIT STATUS), in a
 * header of their own so that the modules that compute a status (the
 * sandbox backends return the one exec ends with) need not include the
 * front ends' cmd.h.
 *
 * exec: the command's own status, 128+N when it was killed by signal N,
 * else one of EXIT_OWN, EXIT_NOEXEC, EXIT_NOTFOUND. Other commands: 0,
 * EXIT_REFUSED or EXIT_USAGE.
 */
#ifndef ARCTURN_EXITCODE_H
#define ARCTURN_EXITCODE_H

#define EXIT_REFUSED	1	/* operation refused or partly failed */
#define EXIT_USAGE	2	/* usage or environment error */
#define EXIT_OWN	125	/* exec: arcturn itself failed */
#define EXIT_NOEXEC	126	/* exec: found but could not run */
#define EXIT_NOTFOUND	127	/* exec: not found */

#endif
