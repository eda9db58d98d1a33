/*
 * mcp_macos: what the MCP server asks of macOS (mcp.h): its own binary
 * through _NSGetExecutablePath. macOS has no parent-death signal: a
 * child of a killed server runs to its end (or its deadline), its output
 * pipes closed.
 */
#include <mach-o/dyld.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mcp/mcp.h"

int
mcp_self_path(char *buf, size_t size)
{
	uint32_t n = (uint32_t)size;
	char real[PATH_MAX];

	if (_NSGetExecutablePath(buf, &n) != 0 || realpath(buf, real) == NULL)
		return -1;
	if ((size_t)snprintf(buf, size, "%s", real) >= size)
		return -1;
	return 0;
}

int
mcp_child_tie(pid_t parent)
{
	return getppid() == parent ? 0 : -1;
}
