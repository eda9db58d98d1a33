/*
 * mcp_nav: the MCP server's tools that find their way around the
 * workspace, with the names and shapes of the reference filesystem
 * server: list_directory, directory_tree, get_file_info (mcp_nav.c),
 * search_files, search_content, read_multiple_files (mcp_find.c).
 *
 * They see the workspace as `arcturn read` does: under dry run, the
 * session's view (the pending changes over the real tree: shadow.h), else
 * the real tree. Every path goes through the workspace's containment: it
 * must lie inside the workspace ("" or "." is the workspace itself), and
 * nothing is opened through a symlink out of it (fsx_open_beneath); a
 * walk never follows a symlink. Every result fits the server's budget
 * (mcp_server.budget): what did not fit is counted and said, with the
 * way to narrow the call.
 */
#ifndef ARCTURN_MCP_NAV_H
#define ARCTURN_MCP_NAV_H

#include <sys/stat.h>

#include <limits.h>
#include <stddef.h>

#include <cJSON.h>

#include "cli/cmd_dryrun.h"
#include "mcp/mcp.h"
#include "mcp/mcp_args.h"
#include "session/workspace.h"
#include "session/wsview.h"

enum { NAV_FILE, NAV_DIR, NAV_LINK, NAV_OTHER };

/* The view: open it, resolve paths in it, list and stat, close it. */
struct nav {
	struct workspace	 x;
	struct wsview	 v;		/* the session's view, or the real
					   tree (workspace_view) */
};

struct nav_ent {
	char		*name;
	int		 kind;		/* NAV_* */
};

/* 0, or -1 with line the isError text. */
int	nav_open(const struct mcp_server *, const char *what, struct nav *,
	    char *line, size_t size);
void	nav_close(struct nav *);

/*
 * The workspace-relative path of path ("" for the workspace), or -1
 * with line filled: outside the workspace, or not a path.
 */
int	nav_rel(struct nav *, const char *what, const char *path, char **rel,
	    char *line, size_t size);

/* The entries of directory rel, sorted by name; -1 with errno. */
int	nav_list(struct nav *, const char *rel, struct nav_ent **v, size_t *n);
void	nav_list_free(struct nav_ent *v, size_t n);

/* lstat of rel in the view (ENOENT: absent); -1 with errno. */
int	nav_stat(struct nav *, const char *rel, struct stat *st);

/* rel/name (rel may be ""): mem_free it; NULL when out of memory. */
char	*nav_join(const char *rel, const char *name);

const char *nav_kind_name(int kind);

/*
 * The tools' functions, as mcp_schema.c's table calls them (mcp_tools.h:
 * mcp_tool_fn): list_directory, directory_tree, get_file_info
 * (mcp_nav.c); search_files, search_content, read_multiple_files
 * (mcp_find.c); begin_turn, list_checkpoints, undo (mcp_turns.c).
 */
int	mcp_nav_call(const struct mcp_server *, const char *name,
	    const cJSON *args, cJSON **result, char *msg, size_t msglen);
int	mcp_find_call(const struct mcp_server *, const char *name,
	    const cJSON *args, cJSON **result, char *msg, size_t msglen);
int	mcp_turns_call(const struct mcp_server *, const char *name,
	    const cJSON *args, cJSON **result, char *msg, size_t msglen);


/* Growing text within a budget. */
struct nav_text {
	char		*p;
	size_t		 len, budget;
	int		 full;		/* something did not fit */
};

/* Append s (and a newline with nl): 0; 1 when it does not fit (full). */
int	nav_text_add(struct nav_text *, const char *s, int nl);

#endif
