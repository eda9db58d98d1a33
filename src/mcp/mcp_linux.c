/*
 * mcp_linux: what the MCP server asks of Linux (mcp.h): its own binary
 * through /proc/self/exe, and children that die with the server.
 */
#include <sys/prctl.h>

#include <signal.h>
#include <unistd.h>

#include "mcp/mcp.h"

int
mcp_self_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int
mcp_child_tie(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -1;
	return getppid() == parent ? 0 : -1;	/* gone before the call */
}
